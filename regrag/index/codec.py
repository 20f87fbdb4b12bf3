"""One index generation on disk: a manifest plus data files in canonical form.

Layout of a generation directory (docs/index-format.md):

- ``manifest.json``: format, engine version, analyzer identity, parameters,
  counts, average length, index id, corpus Merkle root, and the size and
  SHA-256 of every data file (canonical JSON);
- ``documents.jsonl``: one canonical JSON object per document, sorted by id,
  with its language and its passages;
- ``terms.json``: the sorted vocabulary, a canonical JSON array of strings;
- binary arrays, little-endian, in term order then passage order:
  ``document_frequencies.i32``, ``postings.i32``, ``frequencies.f64``,
  ``bm25_impacts.f64``, ``tfidf_weights.f64``, ``bm25_idf.f64``,
  ``tfidf_idf.f64``; per passage ``lengths.f64``, ``length_norms.f64``,
  ``tfidf_norms.f64``.

Writing the same index twice gives the same bytes. Reading never runs code
from the files (JSON and raw IEEE numbers only) and checks every file's size
and hash against the manifest before use.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import sys
from array import array
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Sequence

from regrag.io import files as io_files, writes
from regrag.io.digests import sha256_of_file
from regrag.audit.canonical import canonical_bytes, canonical_json
from regrag.corpus.model import Document, Passage, Section
from regrag.errors import CorruptIndexError
from regrag.index.build import INDEX_FORMAT_VERSION, InvertedIndex, check_index_size
from regrag.index.parameters import IndexParameters
from regrag.index.postings_table import PostingsTable
from regrag.limits import Limits
from regrag.text.analyzer import Analyzer

STORAGE_FORMAT = "regrag-index/1"
MANIFEST = "manifest.json"
DOCUMENTS = "documents.jsonl"
TERMS = "terms.json"
TERM_ARRAYS = ("document_frequencies.i32", "bm25_idf.f64", "tfidf_idf.f64")
POSTING_ARRAYS = ("postings.i32", "frequencies.f64", "bm25_impacts.f64", "tfidf_weights.f64")
PASSAGE_ARRAYS = ("lengths.f64", "length_norms.f64", "tfidf_norms.f64")
DATA_FILES = (DOCUMENTS, TERMS) + TERM_ARRAYS + POSTING_ARRAYS + PASSAGE_ARRAYS


def _little_endian(values: array) -> bytes:
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def _typed(name: str) -> str:
    return "i" if name.endswith(".i32") else "d"


def _array_from(name: str, data: bytes) -> array:
    values = array(_typed(name))
    if values.itemsize != (4 if name.endswith(".i32") else 8):
        raise CorruptIndexError(f"{name}: this platform's array item size does not match the format")
    if len(data) % values.itemsize:
        raise CorruptIndexError(f"{name}: size {len(data)} is not a whole number of items")
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def document_record(document: Document, language: str, passages: list[Passage], content_hash: str) -> dict[str, Any]:
    return {
        "content_hash": content_hash,
        "id": document.id,
        "language": language,
        "metadata": [list(pair) for pair in document.metadata],
        "passages": [[p.title, p.start, p.end] for p in passages],
        "sections": [[s.title, s.start, s.end] for s in document.sections],
        "source": document.source,
        "text": document.text,
        "title": document.title,
    }


def serialise(index: InvertedIndex, engine_version: str, limits: Limits | None = None) -> dict[str, bytes]:
    """Every file of one generation, manifest included, as bytes. ``LimitError``
    first (nothing is built or written) when the passages or postings exceed
    ``limits`` or what int32 columns hold (``array("i")`` would overflow)."""
    check_index_size(len(index.passages), sum(len(entry.passages) for entry in index.postings.values()), limits)
    files: dict[str, bytes] = {}
    by_document: dict[str, list[Passage]] = {key: [] for key in index.documents}
    for passage in index.passages:
        by_document[passage.document_id].append(passage)
    files[DOCUMENTS] = b"".join(
        canonical_bytes(
            document_record(
                index.documents[key], index.document_languages[key], by_document[key], index.content_hashes[key]
            )
        )
        + b"\n"
        for key in sorted(index.documents)
    )
    terms = sorted(index.postings)
    files[TERMS] = canonical_bytes(terms) + b"\n"
    columns: dict[str, array] = {name: array(_typed(name)) for name in TERM_ARRAYS + POSTING_ARRAYS}
    for term in terms:
        entry = index.postings[term]
        columns["document_frequencies.i32"].append(len(entry.passages))
        columns["bm25_idf.f64"].append(entry.bm25_idf)
        columns["tfidf_idf.f64"].append(entry.tfidf_idf)
        columns["postings.i32"].extend(entry.passages)
        columns["frequencies.f64"].extend(entry.frequencies)
        columns["bm25_impacts.f64"].extend(entry.bm25_impacts)
        columns["tfidf_weights.f64"].extend(entry.tfidf_weights)
    for name, values in columns.items():
        files[name] = _little_endian(values)
    files["lengths.f64"] = _little_endian(index.lengths)
    files["length_norms.f64"] = _little_endian(index.length_norms)
    files["tfidf_norms.f64"] = _little_endian(index.tfidf_norms)
    manifest = {
        "analyzer": index.analyzer.identity(),
        "average_length": index.average_length,
        "corpus_root": index.corpus_root,
        "document_count": len(index.documents),
        "engine_version": engine_version,
        "files": {
            name: {"bytes": len(files[name]), "sha256": hashlib.sha256(files[name]).hexdigest()}
            for name in DATA_FILES
        },
        "format": STORAGE_FORMAT,
        "index_format": INDEX_FORMAT_VERSION,
        "index_id": index.index_id,
        "parameters": index.parameters.to_dict(),
        "passage_count": len(index.passages),
        "posting_count": len(columns["postings.i32"]),
        "term_count": len(terms),
    }
    files[MANIFEST] = (json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    return files


def write_files(directory: Path, files: dict[str, bytes]) -> None:
    """Create, write and fsync each file (all of it: short writes are
    continued), then the directory itself. An ``OSError`` naming the file on
    failure (a full disk, say); the caller removes the directory."""
    for name in sorted(files):
        writes.write_file(directory / name, files[name])
    fsync_directory(directory)


def fsync_directory(directory: Path) -> None:
    """fsync ``directory`` (``regrag.io.writes.fsync_directory``): an ``OSError``
    naming it on a real failure, nothing where directories cannot be synced."""
    writes.fsync_directory(directory)


def _read_index_file(path: Path, missing: str = "missing") -> bytes:
    """The whole of a (small) index file, opened as every index file is."""
    with _open_index_file(path, missing) as handle:
        try:
            return handle.read()
        except OSError as error:
            raise CorruptIndexError(f"{path}: cannot read ({error.strerror or error})") from None


def read_manifest(directory: Path) -> tuple[dict[str, Any], bytes]:
    """The manifest and its bytes; ``CorruptIndexError`` when it is unusable."""
    path = directory / MANIFEST
    data = _read_index_file(path, "missing (not an index generation, or an incomplete one)")
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CorruptIndexError(f"{path}: not valid JSON (damaged manifest)") from None
    if not isinstance(manifest, dict):
        raise CorruptIndexError(f"{path}: not a JSON object")
    found = manifest.get("format")
    if found != STORAGE_FORMAT:
        raise CorruptIndexError(f"{path}: index format {found!r} is not supported (this regrag reads {STORAGE_FORMAT!r})")
    files = manifest.get("files")
    if not isinstance(files, dict) or sorted(files) != sorted(DATA_FILES):
        raise CorruptIndexError(f"{path}: the file list does not match format {STORAGE_FORMAT}")
    for name, entry in files.items():
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("bytes"), int)
            or not isinstance(entry.get("sha256"), str)
        ):
            raise CorruptIndexError(f"{path}: malformed entry for {name}")
    for key in ("document_count", "passage_count", "term_count", "posting_count"):
        if not isinstance(manifest.get(key), int) or isinstance(manifest.get(key), bool) or manifest[key] < 0:
            raise CorruptIndexError(f"{path}: malformed {key}")
    if not isinstance(manifest.get("average_length"), float):
        raise CorruptIndexError(f"{path}: malformed average_length")
    return manifest, data


def _open_index_file(path: Path, missing: str = "missing") -> BinaryIO:
    """``path`` opened for reading; it must be a regular file. Opened without
    blocking and checked on the open descriptor, so a FIFO or device swapped
    in after any earlier check can neither hang the reader nor be read."""
    try:
        descriptor = io_files.open_without_blocking(path)
    except OSError as error:  # (a directory opens for reading: it is refused below)
        raise CorruptIndexError(f"{path}: {io_files.open_failure(error, missing)}") from None
    try:
        if io_files.not_regular(io_files.status(descriptor).st_mode):
            raise CorruptIndexError(f"{path}: not a regular file")
        return io_files.reader(descriptor)
    except BaseException:
        io_files.close(descriptor)
        raise


def _check_file(handle: BinaryIO, path: Path, expected: dict[str, Any]) -> None:
    """Size and SHA-256 of an open file against its manifest entry, read in
    blocks (no copy of the file is held)."""
    try:
        size = io_files.status(handle.fileno()).st_size
        if size != expected["bytes"]:
            raise CorruptIndexError(f"{path}: size {size} bytes, the manifest says {expected['bytes']} (truncated or altered)")
        digest = sha256_of_file(handle)
        handle.seek(0)
    except OSError as error:
        raise CorruptIndexError(f"{path}: cannot read ({error.strerror or error})") from None
    if digest != expected["sha256"]:
        raise CorruptIndexError(f"{path}: SHA-256 does not match the manifest (the file was altered)")


def _read_checked(directory: Path, manifest: dict[str, Any], name: str) -> bytes:
    """A (small) data file's bytes, after checking its size and SHA-256."""
    path = directory / name
    with _open_index_file(path) as handle:
        _check_file(handle, path, manifest["files"][name])
        return handle.read()


def _column(directory: Path, manifest: dict[str, Any], name: str, memory_map: bool) -> Sequence[Any]:
    """A posting column after checking its size and SHA-256: memory-mapped
    (read in place, shared with the page cache) where the platform stores
    numbers as the format does, otherwise read into an array."""
    path = directory / name
    with _open_index_file(path) as handle:
        _check_file(handle, path, manifest["files"][name])
        size = manifest["files"][name]["bytes"]
        itemsize = 4 if name.endswith(".i32") else 8
        if size % itemsize:
            raise CorruptIndexError(f"{path}: size {size} is not a whole number of items")
        if not memory_map or sys.byteorder != "little" or array(_typed(name)).itemsize != itemsize or size == 0:
            return memoryview(_array_from(name, handle.read()))
        try:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as error:
            raise CorruptIndexError(f"{path}: cannot memory-map ({error})") from None
        return memoryview(mapped).cast(_typed(name))  # type: ignore[call-overload]


def _document_lines(directory: Path, manifest: dict[str, Any]) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, line without newline) of the verified documents
    file, streamed: the file is never held whole in memory."""
    path = directory / DOCUMENTS
    with _open_index_file(path) as handle:
        _check_file(handle, path, manifest["files"][DOCUMENTS])
        number = 0
        try:
            for number, line in enumerate(handle, start=1):
                if not line.endswith(b"\n"):
                    raise CorruptIndexError(f"{path}: does not end with a newline")
                yield number, line[:-1]
        except OSError as error:
            raise CorruptIndexError(f"{path}:{number + 1}: cannot read ({error.strerror or error})") from None


def load_generation(directory: Path, manifest: dict[str, Any], memory_map: bool = True) -> InvertedIndex:
    """The index of one generation directory whose manifest is ``manifest``.

    Every data file's size and SHA-256 are checked against the manifest as it
    is read. Structural checks then catch files that hash correctly but do
    not belong together (a swapped generation). With ``memory_map`` the
    posting columns are mapped read-only and read in place (a generation is
    never modified once published; see docs/index-format.md)."""
    where = directory / MANIFEST
    try:
        analyzer = Analyzer(manifest["analyzer"]["name"])
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

    documents: dict[str, Document] = {}
    languages: dict[str, str] = {}
    hashes: dict[str, str] = {}
    passages: list[Passage] = []
    passage_languages: list[str] = []
    last_id: str | None = None
    for number, line in _document_lines(directory, manifest):
        try:
            record = json.loads(line.decode("utf-8"))
            document = Document(
                record["id"],
                record["title"],
                record["text"],
                tuple(Section(title, start, end) for title, start, end in record["sections"]),
                tuple((key, value) for key, value in record["metadata"]),
                record["source"],
            )
            language = record["language"]
            document_passages = [
                Passage(document.id, position, title, start, end)
                for position, (title, start, end) in enumerate(record["passages"], start=1)
            ]
            content_hash = record["content_hash"]
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, RecursionError) as error:
            raise CorruptIndexError(f"{directory / DOCUMENTS}:{number}: malformed document record ({type(error).__name__})") from None
        if last_id is not None and document.id <= last_id:
            raise CorruptIndexError(f"{directory / DOCUMENTS}:{number}: document ids out of order or repeated")
        last_id = document.id
        documents[document.id] = document
        languages[document.id] = language
        hashes[document.id] = content_hash
        passages.extend(document_passages)
        passage_languages.extend(language for _ in document_passages)

    try:
        terms = json.loads(_read_checked(directory, manifest, TERMS).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CorruptIndexError(f"{directory / TERMS}: not valid JSON") from None
    if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
        raise CorruptIndexError(f"{directory / TERMS}: not a list of strings")
    arrays: dict[str, Sequence[Any]] = {
        name: _array_from(name, _read_checked(directory, manifest, name)) for name in TERM_ARRAYS + PASSAGE_ARRAYS
    }
    arrays.update((name, _column(directory, manifest, name, memory_map)) for name in POSTING_ARRAYS)
    counts = {
        "document_count": len(documents),
        "passage_count": len(passages),
        "term_count": len(terms),
        "posting_count": len(arrays["postings.i32"]),
    }
    for key, value in counts.items():
        if manifest[key] != value:
            raise CorruptIndexError(f"{where}: {key} is {manifest[key]}, the data files hold {value}")
    for name in TERM_ARRAYS:
        if len(arrays[name]) != len(terms):
            raise CorruptIndexError(f"{directory / name}: {len(arrays[name])} items for {len(terms)} terms")
    for name in POSTING_ARRAYS:
        if len(arrays[name]) != counts["posting_count"]:
            raise CorruptIndexError(f"{directory / name}: {len(arrays[name])} items for {counts['posting_count']} postings")
    for name in PASSAGE_ARRAYS:
        if len(arrays[name]) != len(passages):
            raise CorruptIndexError(f"{directory / name}: {len(arrays[name])} items for {len(passages)} passages")
    frequencies = arrays["document_frequencies.i32"]
    if sum(frequencies) != counts["posting_count"] or any(f <= 0 for f in frequencies):
        raise CorruptIndexError(f"{directory / 'document_frequencies.i32'}: does not add up to the postings")
    if len(set(terms)) != len(terms):
        raise CorruptIndexError(f"{directory / TERMS}: repeated terms")
    postings = PostingsTable(
        terms,
        frequencies,
        arrays["postings.i32"],
        arrays["frequencies.f64"],
        arrays["bm25_impacts.f64"],
        arrays["tfidf_weights.f64"],
        arrays["bm25_idf.f64"],
        arrays["tfidf_idf.f64"],
        len(passages),
        directory / "postings.i32",
    )
    return InvertedIndex(
        analyzer=analyzer,
        parameters=parameters,
        documents=documents,
        passages=passages,
        passage_languages=passage_languages,
        lengths=arrays["lengths.f64"],  # type: ignore[arg-type]
        average_length=manifest["average_length"],
        length_norms=arrays["length_norms.f64"],  # type: ignore[arg-type]
        postings=postings,
        tfidf_norms=arrays["tfidf_norms.f64"],  # type: ignore[arg-type]
        index_id=manifest["index_id"],
        document_languages=languages,
        content_hashes=hashes,
        corpus_root=manifest["corpus_root"],
    )
