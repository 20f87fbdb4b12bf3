"""Open one generation (format ``regrag-index/3``) without reading its
postings or its documents.

What opening reads, whole, and checks against the manifest's SHA-256: the
small files (vocabulary, document ids, offsets, per-term and per-passage
arrays, the frequency table, ``metadata.json``, ``chunks.sha256``). The four
large files (``documents.jsonl``, ``terms.bin``, ``positions.bin``,
``frequency_codes.bin``) are memory-mapped, their sizes checked, and each 64 KiB chunk is verified
against ``chunks.sha256`` the first time a query reads a byte of it
(``regrag.index.chunks``), so no result is computed from an unverified byte.
Structural checks (counts, lengths, order, ranges) are the cheap ones that
need no posting or document; a term's ranges are checked when it is first
read, a document's record when it is first parsed. With ``memory_map=False``
every file is read and hashed whole at open, as in format 1.
"""

from __future__ import annotations

import json
import mmap
import sys
from array import array
from dataclasses import dataclass, field
from functools import partial
from operator import le, lt
from pathlib import Path
from typing import Any

from regrag.audit.canonical import canonical_json
from regrag.errors import CorruptIndexError
from regrag.index import chunks, frequency_codes, position_codes
from regrag.index.build import INDEX_FORMAT_VERSION, InvertedIndex
from regrag.index.codec import (
    CHUNKED_FILES, MANIFEST, POSITIONS, SEGMENTED_FORMAT, PASSAGE_ARRAYS, _array_from, _read_checked, mapped_bytes,
)
from regrag.index.parameters import IndexParameters, bm25_scorer, tfidf_scorer
from regrag.index.postings_table import PostingsTable
from regrag.index.term_table import POSTING_STARTS, TERM_OFFSETS, TERMS, TermTable
from regrag.index.stored_documents import (
    DOCUMENT_IDS, DOCUMENT_OFFSETS, DOCUMENTS, METADATA, PASSAGE_STARTS, DocumentMap, FieldMap, PassageLanguages,
    PassageList, StoredDocuments,
)
from regrag.text.analyzer import Analyzer
from regrag.text.underthesea_words import word_analyzer


@dataclass
class LoadedIndex(InvertedIndex):
    """A format-3 generation as loaded, with its ``manifest`` (the file hashes
    an update records when it turns the generation into a segment)."""

    manifest: dict[str, Any] = field(default_factory=dict)


def _typed_array(typecode: str, data: bytes, path: Path, itemsize: int) -> array:
    values = array(typecode)
    if values.itemsize != itemsize:
        raise CorruptIndexError(f"{path}: this platform's array item size does not match the format")
    if len(data) % itemsize:
        raise CorruptIndexError(f"{path}: size {len(data)} is not a whole number of items")
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def _json_strings(directory: Path, manifest: dict[str, Any], name: str) -> list[str]:
    """A verified canonical JSON array of strings, strictly ascending."""
    try:
        values = json.loads(_read_checked(directory, manifest, name).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CorruptIndexError(f"{directory / name}: not valid JSON") from None
    if not isinstance(values, list) or not set(map(type, values)) <= {str}:  # map(type): 10M ids in 0.3 s, not 2
        raise CorruptIndexError(f"{directory / name}: not a list of strings")
    if not all(map(lt, values, values[1:])):
        raise CorruptIndexError(f"{directory / name}: not in ascending order, or repeated")
    return values


def _checked_large(directory: Path, manifest: dict[str, Any], memory_map: bool) -> dict[str, chunks.CheckedBytes]:
    """The large files, mapped, each with its chunk digests (or verified whole)."""
    mapped = {name: mapped_bytes(directory, manifest, name, memory_map) for name in CHUNKED_FILES}  # sizes first
    table = _read_checked(directory, manifest, chunks.CHUNKS)
    digests = chunks.split_table(
        table, [(name, len(mapped[name][0])) for name in CHUNKED_FILES], directory / chunks.CHUNKS)
    return {name: chunks.CheckedBytes(directory / name, data, None if whole else digests[name])
            for name, (data, whole) in mapped.items()}


def _column(checked: chunks.CheckedBytes, typecode: str) -> Any:
    """A posting column viewed as typed numbers (copied and swapped on a big-endian platform)."""
    itemsize = array(typecode).itemsize
    if len(checked.data) % itemsize:
        raise CorruptIndexError(f"{checked.path}: size {len(checked.data)} is not a whole number of items")
    if not isinstance(checked.data.obj, mmap.mmap) or (sys.byteorder == "big" and itemsize > 1):
        checked.check_all()  # read into memory (memory_map=False), or numbers to swap
        return memoryview(_typed_array(typecode, bytes(checked.data), checked.path, itemsize))
    return checked.data.cast(typecode)


def position_column(where: Path, read: Any, large: dict[str, chunks.CheckedBytes], starts: Any) -> position_codes.PositionColumn:
    """The positions of a generation or segment at ``where`` (``read``: a small
    file's verified bytes by name)."""
    blocks = position_codes.read_blocks(read(position_codes.BLOCKS), where / position_codes.BLOCKS)
    return position_codes.PositionColumn(large[POSITIONS], read(position_codes.WIDTHS), blocks, starts, where)


def _analyzer_and_parameters(where: Path, manifest: dict[str, Any]) -> tuple[Analyzer, IndexParameters]:
    try:
        analyzer = word_analyzer(manifest["analyzer"]["name"])  # underthesea's need regrag[vi]
        parameters = IndexParameters(**manifest["parameters"])
    except (KeyError, TypeError, ValueError) as error:
        raise CorruptIndexError(f"{where}: malformed analyzer or parameters ({error})") from None
    if analyzer.identity() != manifest["analyzer"]:
        raise CorruptIndexError(
            f"{where}: built with analyzer {canonical_json(manifest['analyzer'])}, but this regrag's is "
            f"{canonical_json(analyzer.identity())}; re-index the corpus with this version"
        )
    if manifest.get("index_format") != INDEX_FORMAT_VERSION:
        raise CorruptIndexError(f"{where}: index format {manifest.get('index_format')!r} is not {INDEX_FORMAT_VERSION!r}")
    return analyzer, parameters


def _stored_documents(directory: Path, manifest: dict[str, Any], large: dict[str, chunks.CheckedBytes],
                      memory_map: bool = True) -> StoredDocuments:
    where = directory / MANIFEST
    ids = _json_strings(directory, manifest, DOCUMENT_IDS)
    offsets = _typed_array("q", _read_checked(directory, manifest, DOCUMENT_OFFSETS), directory / DOCUMENT_OFFSETS, 8)
    starts = _typed_array("i", _read_checked(directory, manifest, PASSAGE_STARTS), directory / PASSAGE_STARTS, 4)
    read_metadata = partial(_read_checked, directory, manifest, METADATA)
    metadata = chunks.DeferredFile(directory / METADATA, read_metadata) if memory_map \
        else chunks.CheckedBytes(directory / METADATA, memoryview(read_metadata()), None)
    if manifest["document_count"] != len(ids):
        raise CorruptIndexError(f"{where}: document_count is {manifest['document_count']}, the data files hold {len(ids)}")
    size = len(large[DOCUMENTS].data)
    if len(offsets) != len(ids) + 1 or offsets[0] != 0 or offsets[-1] != size or not all(map(lt, offsets, offsets[1:])):
        raise CorruptIndexError(f"{directory / DOCUMENT_OFFSETS}: does not describe the lines of {DOCUMENTS}")
    if len(starts) != len(ids) + 1 or starts[0] != 0 or not all(map(le, starts, starts[1:])):
        raise CorruptIndexError(f"{directory / PASSAGE_STARTS}: not the first passage of each document")
    return StoredDocuments(directory, large[DOCUMENTS], offsets, ids, starts, metadata)


def load_generation(directory: Path, manifest: dict[str, Any], memory_map: bool = True) -> InvertedIndex:
    """The index of one generation directory whose manifest is ``manifest``
    (already checked against ``CURRENT`` and ``checks.manifest_problem``).

    Structural checks catch files that hash correctly but do not belong
    together (a swapped generation). With ``memory_map`` the large files are
    mapped read-only and verified chunk by chunk when first used (a
    generation is never modified once published; see docs/index-format.md)."""
    where = directory / MANIFEST
    if manifest.get("format") == SEGMENTED_FORMAT:
        raise CorruptIndexError(f"{where}: a segmented generation (regrag.index.segmented.load_segmented opens it)")
    analyzer, parameters = _analyzer_and_parameters(where, manifest)
    large = _checked_large(directory, manifest, memory_map)
    stored = _stored_documents(directory, manifest, large, memory_map)
    passage_count = stored.passage_starts[-1]
    arrays: dict[str, Any] = {
        name: _array_from(name, _read_checked(directory, manifest, name))
        for name in PASSAGE_ARRAYS + (frequency_codes.VALUES,)
    }
    for name in (TERM_OFFSETS, POSTING_STARTS):
        arrays[name] = _typed_array("i", _read_checked(directory, manifest, name), directory / name, 4)
    table = arrays[frequency_codes.VALUES]
    problem = frequency_codes.table_problem(table)
    if problem:
        raise CorruptIndexError(f"{directory / frequency_codes.VALUES}: {problem}")
    codes = _column(large[frequency_codes.CODES], frequency_codes.code_typecode(len(table)))
    offsets, starts = arrays[TERM_OFFSETS], arrays[POSTING_STARTS]
    term_count = len(starts) - 1
    counts = {"passage_count": passage_count, "term_count": term_count, "posting_count": len(codes)}
    for key, value in counts.items():
        if manifest[key] != value:
            raise CorruptIndexError(f"{where}: {key} is {manifest[key]}, the data files hold {value}")
    # The ends here; the order of neighbours is checked where a term is read
    # (term_table, postings_table) and for every term by verify: a loop over
    # millions of terms would be most of the time opening takes.
    terms = TermTable(large[TERMS], offsets, directory / POSTING_STARTS, term_count)  # checks the block offsets' ends
    if not len(starts) or starts[0] != 0 or starts[-1] != len(codes):
        raise CorruptIndexError(f"{directory / POSTING_STARTS}: does not add up to the postings")
    positions = position_column(directory, lambda name: _read_checked(directory, manifest, name), large, starts)
    for name in PASSAGE_ARRAYS:
        if len(arrays[name]) != passage_count:
            raise CorruptIndexError(f"{directory / name}: {len(arrays[name])} items for {passage_count} passages")
    postings = PostingsTable(
        terms, starts, positions, codes, table,
        arrays["length_norms.f64"],
        (bm25_scorer(parameters, manifest["average_length"]), tfidf_scorer(parameters)),
        (large[POSITIONS], large[frequency_codes.CODES]),
    )
    return LoadedIndex(
        analyzer=analyzer,
        parameters=parameters,
        documents=DocumentMap(stored),  # type: ignore[arg-type]
        passages=PassageList(stored),  # type: ignore[arg-type]
        passage_languages=PassageLanguages(stored),  # type: ignore[arg-type]
        lengths=arrays["lengths.f64"],
        average_length=manifest["average_length"],
        length_norms=arrays["length_norms.f64"],
        postings=postings,
        tfidf_norms=arrays["tfidf_norms.f64"],
        index_id=manifest["index_id"],
        document_languages=FieldMap(stored, "language"),  # type: ignore[arg-type]
        content_hashes=FieldMap(stored, "content_hash"),  # type: ignore[arg-type]
        corpus_root=manifest["corpus_root"],
        manifest=manifest,
    )
