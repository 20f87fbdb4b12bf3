"""One index generation on disk: a manifest plus data files in canonical form.

Layout of a generation directory (docs/index-format.md, format
``regrag-index/3``):

- ``manifest.json``: format, engine version, analyzer identity, parameters,
  counts, average length, index id, corpus Merkle root, and the size and
  SHA-256 of every data file (canonical JSON);
- ``documents.jsonl``: one canonical JSON object per document, sorted by id,
  with its language and its passages; ``document_ids.json``,
  ``document_offsets.i64``, ``passage_starts.i32`` and ``metadata.json`` to
  find and filter documents without parsing them
  (``regrag.index.stored_documents``);
- ``terms.json``: the sorted vocabulary, a canonical JSON array of strings;
- binary arrays, little-endian: per term ``document_frequencies.i32``,
  ``bm25_idf.f64``, ``tfidf_idf.f64``; per posting, in term order then
  passage order, ``positions.bin`` (per-term gaps of 1 to 4 bytes, with
  ``position_widths.bin`` and ``position_blocks.i64``:
  ``regrag.index.position_codes``) and ``frequency_codes.bin`` (places in
  ``frequency_values.f64``, the distinct weighted frequencies:
  ``regrag.index.frequency_codes``); per passage ``lengths.f64``,
  ``length_norms.f64``, ``tfidf_norms.f64``;
- ``chunks.sha256``: the SHA-256 of every 64 KiB chunk of the three large
  files (``regrag.index.chunks``), so opening need not read them.

BM25 impacts and TF-IDF weights are not stored: they are pure functions of a
posting's frequency, its passage's length norm and the term's IDF, computed
for a term when a query first needs it (``regrag.index.postings_table``).
Writing the same index twice gives the same bytes. Reading never runs code
from the files (JSON and raw IEEE numbers only) and checks every byte
against the manifest (small files whole, at open; large files chunk by chunk,
before a chunk is first used: ``regrag.index.loading``).
"""

from __future__ import annotations

import hashlib
import json
import mmap
import sys
from array import array
from pathlib import Path
from typing import Any, BinaryIO, Sequence

from regrag.io import files as io_files, writes
from regrag.io.digests import sha256_of_file
from regrag.audit.canonical import canonical_bytes
from regrag.errors import CorruptIndexError
from regrag.index import frequency_codes, position_codes
from regrag.index.build import INDEX_FORMAT_VERSION, INT32_MAX, check_index_size
from regrag.index.chunks import CHUNKS, chunk_table
from regrag.index.term_table import POSTING_STARTS, TERM_OFFSETS, TERMS, term_blob
from regrag.index.stored_documents import (
    DOCUMENT_IDS, DOCUMENT_OFFSETS, DOCUMENTS, METADATA, PASSAGE_STARTS, document_files, document_record,  # noqa: F401
)
from regrag.limits import LimitError, Limits

STORAGE_FORMAT = "regrag-index/3"
SEGMENTED_FORMAT = "regrag-segments/2"  # regrag.index.segmented
SHARDED_FORMAT = "regrag-shards/2"  # regrag.index.sharded (shards of format-3 segments)
# refused with "re-index" (docs/index-format.md, "Older formats")
OLDER_FORMATS = ("regrag-index/1", "regrag-index/2", "regrag-segments/1", "regrag-shards/1")
MANIFEST = "manifest.json"
TERM_ARRAYS = (TERM_OFFSETS, POSTING_STARTS)
POSITIONS = position_codes.POSITIONS
POSTING_ARRAYS = (POSITIONS, position_codes.WIDTHS, position_codes.BLOCKS, frequency_codes.CODES)
PASSAGE_ARRAYS = ("lengths.f64", "length_norms.f64", "tfidf_norms.f64")
DOCUMENT_FILES = (DOCUMENTS, DOCUMENT_IDS, DOCUMENT_OFFSETS, PASSAGE_STARTS, METADATA)
DATA_FILES = DOCUMENT_FILES + (TERMS, frequency_codes.VALUES) + TERM_ARRAYS + POSTING_ARRAYS + PASSAGE_ARRAYS + (CHUNKS,)
CHUNKED_FILES = (DOCUMENTS, TERMS, POSITIONS, frequency_codes.CODES)  # verified chunk by chunk (regrag.index.chunks)


_little_endian = frequency_codes.little_endian


class OlderFormatError(CorruptIndexError):
    """A generation in a format this regrag no longer reads (``regrag-index/1``):
    re-index the corpus. ``regrag verify`` reports it as outdated, not damaged."""


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


def serialise(index: InvertedIndex, engine_version: str, limits: Limits | None = None) -> dict[str, bytes]:
    """Every file of one generation, manifest included, as bytes. ``LimitError``
    first (nothing is built or written) when the passages or postings exceed
    ``limits`` or what int32 columns hold (``array("i")`` would overflow)."""
    check_index_size(len(index.passages), sum(len(entry.passages) for entry in index.postings.values()), limits)
    files: dict[str, bytes] = {}
    files[DOCUMENTS], ids, offsets, starts, files[METADATA] = document_files(
        index.documents, index.document_languages, index.content_hashes, index.passages)
    files[DOCUMENT_IDS] = canonical_bytes(ids) + b"\n"
    files[DOCUMENT_OFFSETS] = _little_endian(array("q", offsets))
    files[PASSAGE_STARTS] = _little_endian(array("i", starts))
    terms = sorted(index.postings)
    files[TERMS], term_offsets = term_blob(terms)
    if term_offsets[-1] > INT32_MAX:
        raise LimitError(f"the vocabulary would take {term_offsets[-1]:,} bytes; the format stores its offsets as "
                         f"32-bit integers (at most {INT32_MAX:,})")
    files[TERM_OFFSETS] = _little_endian(array("i", term_offsets))
    entries = [index.postings[term] for term in terms]
    starts = array("i", [0])
    for entry in entries:
        starts.append(starts[-1] + len(entry.passages))
    files[POSTING_STARTS] = _little_endian(starts)
    posting_count = starts[-1]
    files[POSITIONS], files[position_codes.WIDTHS], files[position_codes.BLOCKS] = position_codes.encode_columns(
        entry.passages for entry in entries)
    del starts
    table = frequency_codes.frequency_table(entry.frequencies for entry in entries)
    files[frequency_codes.VALUES] = _little_endian(table)
    files[frequency_codes.CODES] = _little_endian(
        frequency_codes.encode((entry.frequencies for entry in entries), table))
    del entries
    files["lengths.f64"] = _little_endian(index.lengths)
    files["length_norms.f64"] = _little_endian(index.length_norms)
    files["tfidf_norms.f64"] = _little_endian(index.tfidf_norms)
    files[CHUNKS] = chunk_table(files[name] for name in CHUNKED_FILES)
    files[MANIFEST] = manifest_bytes(
        index.analyzer.identity(), index.average_length, index.corpus_root, len(index.documents), engine_version,
        {name: (len(files[name]), hashlib.sha256(files[name]).hexdigest()) for name in DATA_FILES},
        index.index_id, index.parameters.to_dict(), len(index.passages), posting_count, len(terms))
    return files


def manifest_bytes(analyzer: dict[str, Any], average_length: float, corpus_root: str, document_count: int,
                   engine_version: str, files: dict[str, tuple[int, str]], index_id: str, parameters: dict[str, Any],
                   passage_count: int, posting_count: int, term_count: int) -> bytes:
    """``manifest.json``: ``files`` gives each data file's (size, SHA-256 hex).
    One function for the in-memory write and the streamed one
    (``regrag.index.bounded_build``), so both give the same bytes."""
    manifest = {
        "analyzer": analyzer,
        "average_length": average_length,
        "corpus_root": corpus_root,
        "document_count": document_count,
        "engine_version": engine_version,
        "files": {name: {"bytes": files[name][0], "sha256": files[name][1]} for name in DATA_FILES},
        "format": STORAGE_FORMAT,
        "index_format": INDEX_FORMAT_VERSION,
        "index_id": index_id,
        "parameters": parameters,
        "passage_count": passage_count,
        "posting_count": posting_count,
        "term_count": term_count,
    }
    return (json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


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
    if found in OLDER_FORMATS:
        raise OlderFormatError(f"{path}: index format {found!r} is older than this regrag reads ({STORAGE_FORMAT!r}); "
                                "re-index the corpus (regrag index CORPUS --out DIR)")
    if found not in (STORAGE_FORMAT, SEGMENTED_FORMAT, SHARDED_FORMAT):
        raise CorruptIndexError(f"{path}: index format {found!r} is not supported (this regrag reads {STORAGE_FORMAT!r})")
    files = manifest.get("files")
    if found in (SEGMENTED_FORMAT, SHARDED_FORMAT):  # file lists checked by regrag.index.segmented / sharded
        files = files if isinstance(files, dict) else None
    elif not isinstance(files, dict) or sorted(files) != sorted(DATA_FILES):
        raise CorruptIndexError(f"{path}: the file list does not match format {STORAGE_FORMAT}")
    if files is None:
        raise CorruptIndexError(f"{path}: the file list does not match format {found}")
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


def mapped_bytes(directory: Path, manifest: dict[str, Any], name: str, memory_map: bool) -> tuple[memoryview, bool]:
    """A large data file's bytes and whether they were verified whole: with
    ``memory_map`` (and a non-empty file) mapped read-only and not read (its
    size is checked; its chunks are verified when used:
    ``regrag.index.chunks``), otherwise read into memory after checking its
    size and SHA-256."""
    path = directory / name
    expected = manifest["files"][name]
    with _open_index_file(path) as handle:
        if not memory_map or expected["bytes"] == 0:
            _check_file(handle, path, expected)
            try:
                return memoryview(handle.read()), True
            except OSError as error:
                raise CorruptIndexError(f"{path}: cannot read ({error.strerror or error})") from None
        try:
            size = io_files.status(handle.fileno()).st_size
        except OSError as error:
            raise CorruptIndexError(f"{path}: cannot read ({error.strerror or error})") from None
        if size != expected["bytes"]:
            raise CorruptIndexError(f"{path}: size {size} bytes, the manifest says {expected['bytes']} (truncated or altered)")
        try:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as error:
            raise CorruptIndexError(f"{path}: cannot memory-map ({error})") from None
        return memoryview(mapped), False


def check_whole_files(directory: Path, manifest: dict[str, Any]) -> None:
    """Every data file's size and SHA-256 against the manifest, read in
    blocks (``regrag verify --quick`` and the full verify)."""
    for name in DATA_FILES:
        path = directory / name
        with _open_index_file(path) as handle:
            _check_file(handle, path, manifest["files"][name])
