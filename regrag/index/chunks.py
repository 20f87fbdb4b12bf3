"""Chunk checksums: the large files of a generation are verified piece by
piece, when a query first reads a piece, instead of all at open.

``chunks.sha256`` holds the raw SHA-256 (32 bytes) of every 64 KiB chunk of
each file of ``CHUNKED_FILES``, file after file in that order (the last chunk
of a file may be shorter). It is itself listed in the manifest with its size
and SHA-256, and read and verified whole when a generation is opened; the
manifest is verified against ``CURRENT``. So no byte of a chunked file is
used before the chunk holding it has been hashed and compared
(docs/index-format.md, "What opening checks").
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from pathlib import Path

from regrag.errors import CorruptIndexError

CHUNKS = "chunks.sha256"
CHUNK_BYTES = 1 << 16
DIGEST_BYTES = 32


def chunk_count(size: int) -> int:
    return -(-size // CHUNK_BYTES)


def chunk_digests(data: bytes | memoryview) -> bytes:
    """The concatenated SHA-256 digests of ``data``'s chunks."""
    view = memoryview(data)
    return b"".join(hashlib.sha256(view[at : at + CHUNK_BYTES]).digest() for at in range(0, len(view), CHUNK_BYTES))


def chunk_table(files: Iterable[bytes]) -> bytes:
    """``chunks.sha256``: the chunk digests of each of ``files`` in order."""
    return b"".join(chunk_digests(data) for data in files)


def split_table(table: bytes, sizes: list[tuple[str, int]], path: Path) -> dict[str, bytes]:
    """Each file's digests from ``table``, given the files' sizes (from the
    manifest) in table order; ``CorruptIndexError`` when the sizes disagree."""
    expected = sum(chunk_count(size) for _name, size in sizes) * DIGEST_BYTES
    if len(table) != expected:
        raise CorruptIndexError(f"{path}: {len(table)} bytes, the file sizes in the manifest need {expected}")
    parts: dict[str, bytes] = {}
    at = 0
    for name, size in sizes:
        length = chunk_count(size) * DIGEST_BYTES
        parts[name] = table[at : at + length]
        at += length
    return parts


class CheckedBytes:
    """A file's bytes (usually memory-mapped) whose chunks are compared with
    their digests the first time any byte of them is asked for (``check``).
    ``digests`` None: the whole file was verified already (nothing to do)."""

    def __init__(self, path: Path, data: memoryview, digests: bytes | None) -> None:
        self.path = path
        self.data = data
        self._digests = digests
        self._unchecked = bytearray(b"\x01") * chunk_count(len(data)) if digests is not None else bytearray()
        self._lock = threading.Lock()

    def check(self, start: int, end: int) -> None:
        """``CorruptIndexError`` unless the chunks holding bytes
        ``start``..``end - 1`` match their digests."""
        if end <= start or not self._unchecked:
            return
        first, last = start // CHUNK_BYTES, (end - 1) // CHUNK_BYTES + 1
        if self._unchecked.find(1, first, last) < 0:
            return
        with self._lock:
            for chunk in range(first, last):
                if self._unchecked[chunk]:
                    at = chunk * CHUNK_BYTES
                    digest = hashlib.sha256(self.data[at : at + CHUNK_BYTES]).digest()
                    if digest != self._digests[chunk * DIGEST_BYTES : (chunk + 1) * DIGEST_BYTES]:  # type: ignore[index]
                        raise CorruptIndexError(
                            f"{self.path}: bytes {at:,} to {min(at + CHUNK_BYTES, len(self.data)) - 1:,} do not match "
                            f"their SHA-256 in {CHUNKS} (the file was altered)")
                    self._unchecked[chunk] = 0

    def check_all(self) -> None:
        self.check(0, len(self.data))


class DeferredFile:
    """A small file verified whole (size and SHA-256, by ``read``) the first
    time any byte of it is asked for, not on open: ``CheckedBytes``'s
    interface (``path``, ``data``, ``check``, ``check_all``) for a file that
    most queries never need (``metadata.json``: 719 MB at 10 million
    documents, 2 s of an open read and hashed for filters and entities only)."""

    def __init__(self, path: Path, read) -> None:
        self.path = path
        self._read = read
        self._data: memoryview | None = None
        self._lock = threading.Lock()

    @property
    def data(self) -> memoryview:
        if self._data is None:
            with self._lock:
                if self._data is None:
                    self._data = memoryview(self._read())
        return self._data

    def check(self, start: int, end: int) -> None:
        self.data  # reading it verifies it

    def check_all(self) -> None:
        self.data

