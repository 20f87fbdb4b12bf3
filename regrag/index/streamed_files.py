"""Writing a generation's files as they are produced, instead of building
every file's bytes in memory first (``regrag.index.codec.serialise``).

``HashedFile`` writes through ``regrag.io.system`` (so fault tests reach
it), keeps the size and SHA-256 the manifest needs and, for the chunked
files, the digest of every 64 KiB chunk (``regrag.index.chunks``), then
fsyncs on close. ``write_document_files`` writes ``documents.jsonl``,
``document_ids.json``, ``document_offsets.i64``, ``passage_starts.i32`` and
``metadata.json`` one document at a time with the very record and JSON
functions ``serialise`` uses, so the bytes are the same.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path

from regrag.audit.canonical import canonical_bytes
from regrag.corpus.model import Document, Passage
from regrag.index.chunks import CHUNK_BYTES
from regrag.index.frequency_codes import little_endian
from regrag.index.spill import _Output
from regrag.index.stored_documents import (DOCUMENT_IDS, DOCUMENT_OFFSETS, DOCUMENTS, METADATA, PASSAGE_STARTS,
                                           document_record)

HASH_BLOCK = 1 << 16  # bytes gathered before a hash update and a buffered write


class HashedFile(_Output):
    """A new file of a generation, written in order; ``entry`` is its (size,
    SHA-256 hex) once closed, ``chunk_digests`` its chunks' raw digests."""

    def __init__(self, path: Path, chunked: bool = False) -> None:
        super().__init__(str(path))
        self.size = 0
        self._sha = hashlib.sha256()
        self._chunked = chunked
        self._pending = bytearray()
        self._digests: list[bytes] = []
        self._small: list[bytes] = []  # pieces not yet hashed: one hash update and write per HASH_BLOCK
        self._small_size = 0

    def write(self, data: bytes) -> int:
        """Append ``data``. Pieces are gathered and hashed and written a
        block at a time (a merge writes millions of pieces of a few bytes):
        the same bytes, digests and size as writing each at once."""
        size = len(data)
        self.size += size
        self._small.append(data)
        self._small_size += size
        if self._small_size >= HASH_BLOCK:
            self._drain()
        return size

    def _drain(self) -> None:
        if not self._small:
            return
        data = b"".join(self._small)
        self._small, self._small_size = [], 0
        self._sha.update(data)
        if self._chunked:
            self._chunk(memoryview(data))
        super().write(data)

    def flush(self) -> None:
        self._drain()
        super().flush()

    def write_numbers(self, values: array) -> int:
        """``values`` as little-endian bytes."""
        return self.write(little_endian(values))

    def _chunk(self, view: memoryview) -> None:
        if self._pending:
            need = CHUNK_BYTES - len(self._pending)
            self._pending += view[:need]
            view = view[need:]
            if len(self._pending) < CHUNK_BYTES:
                return
            self._digests.append(hashlib.sha256(self._pending).digest())
            self._pending = bytearray()
        whole = len(view) // CHUNK_BYTES * CHUNK_BYTES
        self._digests.extend(hashlib.sha256(view[at : at + CHUNK_BYTES]).digest() for at in range(0, whole, CHUNK_BYTES))
        self._pending += view[whole:]

    def finish(self) -> tuple[int, str]:
        """Flush, fsync and close; the manifest's (size, SHA-256)."""
        self._drain()
        if self._pending:
            self._digests.append(hashlib.sha256(self._pending).digest())
            self._pending = bytearray()
        self.close(sync=True)
        return self.size, self._sha.hexdigest()

    @property
    def chunk_digests(self) -> bytes:
        return b"".join(self._digests)


def write_document_files(directory: Path, documents: Iterable[tuple[Document, Sequence[Passage]]],
                         languages: Sequence[str], hashes: Sequence[str],
                         entries: dict[str, tuple[int, str]], small: dict[str, bytes]) -> bytes:
    """The five document files of id-sorted ``documents`` (each with its
    passages; their languages and content hashes side by side): the three that
    grow with the text written here (their (size, SHA-256) go in
    ``entries``), the two offset tables returned in ``small`` for the caller
    to write. Returns the chunk digests of ``documents.jsonl``."""
    lines = HashedFile(directory / DOCUMENTS, chunked=True)
    ids = HashedFile(directory / DOCUMENT_IDS)
    metadata = HashedFile(directory / METADATA)
    outputs = [lines, ids, metadata]
    try:
        offsets, starts = array("q", [0]), array("i", [0])
        ids.write(b"[")
        metadata.write(b"[")
        with_metadata = 0
        for number, ((document, document_passages), language, digest) in enumerate(
                zip(documents, languages, hashes)):
            line = canonical_bytes(document_record(document, language, document_passages, digest)) + b"\n"
            lines.write(line)
            offsets.append(offsets[-1] + len(line))
            starts.append(starts[-1] + len(document_passages))
            ids.write((b"," if number else b"") + canonical_bytes(document.id))
            if document.metadata:
                entry = [number, [list(pair) for pair in document.metadata]]
                metadata.write((b"," if with_metadata else b"") + canonical_bytes(entry))
                with_metadata += 1
        ids.write(b"]\n")
        metadata.write(b"]\n")
        entries[DOCUMENTS] = lines.finish()
        entries[DOCUMENT_IDS] = ids.finish()
        entries[METADATA] = metadata.finish()
    finally:
        for output in outputs:
            output.close()
    small[DOCUMENT_OFFSETS] = little_endian(offsets)
    small[PASSAGE_STARTS] = little_endian(starts)
    return lines.chunk_digests
