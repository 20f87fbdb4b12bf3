"""``HashedFile`` gathers small writes before hashing and writing them: the
file, its size, its SHA-256 and its chunk digests must be those of the
same bytes written in one piece, whatever the pieces."""

from __future__ import annotations

import hashlib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.index.chunks import CHUNK_BYTES
from regrag.index.streamed_files import HASH_BLOCK, HashedFile

_pieces = st.lists(st.one_of(st.binary(max_size=40), st.integers(1, 3 * CHUNK_BYTES).map(lambda n: bytes([n % 251]) * n)),
                   max_size=30)


@settings(max_examples=60, deadline=None)
@given(_pieces, st.booleans())
def test_pieces_give_the_bytes_size_and_digests_of_one_write(tmp_path_factory, pieces, chunked):
    folder = tmp_path_factory.mktemp("hashed")
    whole = b"".join(pieces)
    written = HashedFile(folder / "pieces.bin", chunked=chunked)
    for piece in pieces:
        assert written.write(piece) == len(piece)
    assert written.size == len(whole)  # known before anything is hashed or written
    entry = written.finish()
    assert entry == (len(whole), hashlib.sha256(whole).hexdigest())
    assert (folder / "pieces.bin").read_bytes() == whole
    expected = b"".join(hashlib.sha256(whole[at:at + CHUNK_BYTES]).digest()
                        for at in range(0, len(whole), CHUNK_BYTES)) if chunked else b""
    assert written.chunk_digests == expected


def test_a_flush_writes_what_was_gathered(tmp_path: Path):
    written = HashedFile(tmp_path / "f.bin")
    written.write(b"abc")
    assert (tmp_path / "f.bin").read_bytes() == b""  # gathered, below HASH_BLOCK
    written.flush()
    assert (tmp_path / "f.bin").read_bytes() == b"abc"
    written.write(b"d" * HASH_BLOCK)
    written.finish()
    assert (tmp_path / "f.bin").read_bytes() == b"abc" + b"d" * HASH_BLOCK
