"""Write one segment: the files of a subset of the documents that depend on
no other document (docs/index-format.md, "Segments").

``segment_files(index)`` takes the in-memory index of exactly the segment's
documents (``segment_index`` of them, ``build_index`` of them, or any
``InvertedIndex`` whose postings list local passage positions) and returns the segment's name (the SHA-256 of
its ``segment.json``) and its files as bytes. The encodings are format 2's
(``regrag.index.codec``), without the corpus-wide files (length norms,
TF-IDF norms, the manifest), plus ``content_hashes.bin``. This is the one
function a build that writes its output in pieces would call per piece.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from regrag.audit.canonical import canonical_bytes
from regrag.corpus.model import Document, Passage
from regrag.index import frequency_codes, position_codes
from regrag.index.build import (
    AnalyzedDocument, InvertedIndex, Postings, analyze_document, append_passages, check_index_size, unique_documents,
)
from regrag.index.chunks import CHUNKS
from regrag.index.parameters import IndexParameters
from regrag.index.stored_documents import DOCUMENT_IDS, DOCUMENT_OFFSETS, DOCUMENTS, METADATA, PASSAGE_STARTS
from regrag.index.term_table import POSTING_STARTS, TERM_OFFSETS, TERMS
from regrag.limits import Limits
from regrag.text.analyzer import Analyzer

SEGMENT_FORMAT = "regrag-segment/2"
SEGMENT_MANIFEST = "segment.json"
CONTENT_HASHES = "content_hashes.bin"
LENGTHS = "lengths.f64"
# the files a format-2 generation shares with a segment (a format-2 generation becomes a segment by linking these)
SHARED_FILES = (DOCUMENTS, DOCUMENT_IDS, DOCUMENT_OFFSETS, PASSAGE_STARTS, METADATA, TERMS, frequency_codes.VALUES,
                TERM_OFFSETS, POSTING_STARTS, position_codes.POSITIONS, position_codes.WIDTHS, position_codes.BLOCKS,
                frequency_codes.CODES, LENGTHS, CHUNKS)
SEGMENT_FILES = SHARED_FILES + (CONTENT_HASHES,)
COUNT_KEYS = ("document_count", "passage_count", "posting_count", "term_count")


def content_hash_bytes(ids: Sequence[str], hashes: Mapping[str, str]) -> bytes:
    """``content_hashes.bin``: each document's content hash (32 raw bytes), in id order."""
    return b"".join(bytes.fromhex(hashes[key]) for key in ids)


def segment_manifest(files: Mapping[str, bytes | tuple[int, str]], counts: Mapping[str, int]) -> bytes:
    """``segment.json`` (canonical JSON and a newline) for ``files`` (bytes, or
    (size, SHA-256) of a file already on disk) and the segment's counts."""
    entries = {}
    for name in SEGMENT_FILES:
        value = files[name]
        size, digest = (len(value), hashlib.sha256(value).hexdigest()) if isinstance(value, (bytes, memoryview)) \
            else value
        entries[name] = {"bytes": size, "sha256": digest}
    record = {"files": entries, "format": SEGMENT_FORMAT, **{key: counts[key] for key in COUNT_KEYS}}
    return canonical_bytes(record) + b"\n"


def segment_files(index: InvertedIndex, limits: Limits | None = None) -> tuple[str, dict[str, bytes]]:
    """The segment holding ``index``'s documents: its name and every file
    (``segment.json`` included), as bytes. The same documents analysed the
    same way give the same bytes and name."""
    from regrag.index.codec import serialise

    generation = serialise(index, "", limits)
    files = {name: generation[name] for name in SHARED_FILES}
    ids = sorted(index.documents)
    files[CONTENT_HASHES] = content_hash_bytes(ids, index.content_hashes)
    counts = {"document_count": len(ids), "passage_count": len(index.passages),
              "posting_count": sum(len(entry.passages) for entry in index.postings.values()), "term_count": len(index.postings)}
    files[SEGMENT_MANIFEST] = segment_manifest(files, counts)
    return hashlib.sha256(files[SEGMENT_MANIFEST]).hexdigest(), files


def segment_index(documents: Sequence[Document], analyzer: Analyzer, parameters: IndexParameters,
                  limits: Limits | None = None) -> InvertedIndex:
    """The in-memory index of a segment of ``documents``: documents, passages,
    lengths and each term's local positions and weighted frequencies, by the
    per-document analysis incremental updates use (``analyze_document``, the
    same records a build assembles). No corpus-wide value is computed: a
    segment holds none (``segment_files`` of it is the segment)."""
    by_id = unique_documents(documents, limits)
    title_cache: dict[tuple[str, str], Counter] = {}
    records = (analyze_document(by_id[key], analyzer, parameters, title_cache, limits) for key in sorted(by_id))
    return assembled_segment(records, by_id, {key: by_id[key].content_hash() for key in by_id}, analyzer, parameters,
                             limits)


def assembled_segment(records: Iterable[AnalyzedDocument], documents: dict[str, Document], hashes: dict[str, str],
                      analyzer: Analyzer, parameters: IndexParameters, limits: Limits | None = None) -> InvertedIndex:
    """The in-memory segment index of analysed ``records`` (in id order) of
    ``documents`` with their content ``hashes``: passages, lengths and each
    term's local positions and weighted frequencies (what ``segment_index``
    and a shard's phase C, ``shard_phases.build_shard``, assemble)."""
    passages: list[Passage] = []
    passage_languages: list[str] = []
    lengths = array("d")
    languages: dict[str, str] = {}
    found: dict[str, tuple[array, array]] = {}
    for record in records:
        languages[record.document.id] = record.language
        for position, terms, frequencies in append_passages(record, passages, passage_languages, lengths):
            for term, frequency in zip(terms, frequencies):
                entry = found.get(term)
                if entry is None:
                    entry = found[term] = (array("i"), array("d"))
                entry[0].append(position)
                entry[1].append(frequency)
        check_index_size(len(passages), 0, limits)
    postings = {term: Postings(*found[term]) for term in sorted(found)}
    check_index_size(len(passages), sum(len(entry.passages) for entry in postings.values()), limits)
    return InvertedIndex(analyzer, parameters, documents, passages, passage_languages, lengths, 1.0, array("d"),
                         postings, array("d"), "", languages, hashes, "")


def segment_manifest_problem(record: object) -> str | None:
    """Why a parsed ``segment.json`` is not one ``segment_manifest`` writes, or None."""
    if not isinstance(record, dict) or set(record) != {"files", "format", *COUNT_KEYS}:
        return "malformed (not the keys of a segment manifest)"
    if record["format"] != SEGMENT_FORMAT:
        return f"segment format {record['format']!r} is not supported (this regrag reads {SEGMENT_FORMAT!r})"
    for key in COUNT_KEYS:
        value = record[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2**31 - 1:
            return f"malformed {key}"
    files = record["files"]
    if not isinstance(files, dict) or sorted(files) != sorted(SEGMENT_FILES):
        return "the file list does not match a segment"
    for name, entry in files.items():
        if not isinstance(entry, dict) or set(entry) != {"bytes", "sha256"} or isinstance(entry["bytes"], bool) \
                or not isinstance(entry["bytes"], int) or entry["bytes"] < 0 or not isinstance(entry["sha256"], str) \
                or len(entry["sha256"]) != 64 or entry["sha256"].strip("0123456789abcdef"):
            return f"malformed entry for {name}"
    return None
