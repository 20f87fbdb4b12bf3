"""The vocabulary of a loaded index, found by binary search in place.

Format ``regrag-index/3`` stores the terms front-coded in blocks of
``BLOCK_TERMS`` (16), ``terms.bin``: terms in code-point order (UTF-8 byte
order), each block starting with a whole term (its byte count as a varint,
then its UTF-8 bytes) and each following term as the number of leading
bytes it shares with the term before it, the number of bytes that follow
(two varints) and those bytes. ``term_blocks.i32`` gives where each block
starts (and the blob's size last). Neighbouring terms of a sorted
vocabulary share most of their bytes (syllable pairs, stems), so this takes
about half the bytes of the terms back to back and an offset per term.
Opening reads the block offsets, not the terms; a lookup compares about
log2(blocks) block heads, then reads one block, each after its chunk of the
blob is verified (``regrag.index.chunks``).

A varint is 7 bits a byte, least significant first, the high bit set on
every byte but the last.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from regrag.errors import CorruptIndexError
from regrag.index.chunks import CheckedBytes

TERMS = "terms.bin"
TERM_OFFSETS = "term_blocks.i32"  # where each block of terms starts in terms.bin
POSTING_STARTS = "posting_starts.i32"
BLOCK_TERMS = 16
CACHED_DEPTH = 12  # the block heads of a lookup's first 12 steps are kept (at most 4,095 of them)


def _varint(value: int) -> bytes:
    if value < 0x80:
        return _SMALL_VARINTS[value]
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL_VARINTS = [bytes((value,)) for value in range(0x80)]  # one byte each: almost every length and prefix


def shared_prefix(first: bytes, second: bytes) -> int:
    """How many leading bytes ``first`` and ``second`` share. Computed in C:
    the big-endian integers of their common length XOR to zero up to the
    first differing byte, so the bytes after that are the XOR's byte length."""
    length = min(len(first), len(second))
    differ = int.from_bytes(first[:length], "big") ^ int.from_bytes(second[:length], "big")
    return length - ((differ.bit_length() + 7) >> 3)


def block_count(terms: int) -> int:
    """Blocks for ``terms`` terms (``term_blocks.i32`` holds one more number)."""
    return -(-terms // BLOCK_TERMS)


class TermCoder:
    """Front-codes terms given in order: ``add`` returns a term's bytes in
    ``terms.bin``; ``offsets`` the block starts so far (the size last once
    ``finish`` is called)."""

    def __init__(self) -> None:
        self.offsets: list[int] = []
        self.size = 0
        self._count = 0
        self._previous = b""

    def add(self, term: bytes) -> bytes:
        if self._count % BLOCK_TERMS == 0:
            self.offsets.append(self.size)
            data = _varint(len(term)) + term
        else:
            shared = shared_prefix(term, self._previous)
            data = _varint(shared) + _varint(len(term) - shared) + term[shared:]
        self._previous = term
        self._count += 1
        self.size += len(data)
        return data

    def finish(self) -> list[int]:
        return self.offsets + [self.size]


def term_blob(terms: Iterable[str]) -> tuple[bytes, list[int]]:
    """``terms.bin`` and its block offsets (``terms`` already in code-point
    order): what ``TermCoder`` writes, in one loop without a call per term."""
    parts: list[bytes] = []
    offsets: list[int] = []
    size, previous, small = 0, b"", _SMALL_VARINTS
    from_bytes = int.from_bytes
    for number, text in enumerate(terms):
        term = text.encode("utf-8")
        length = len(term)
        if number % BLOCK_TERMS == 0:
            offsets.append(size)
            data = (small[length] if length < 0x80 else _varint(length)) + term
        else:  # shared_prefix written out (a call per term costs a tenth of this loop); tests hold the two equal
            common = min(length, len(previous))
            differ = from_bytes(term[:common], "big") ^ from_bytes(previous[:common], "big")
            shared = common - ((differ.bit_length() + 7) >> 3)
            rest = length - shared
            data = (small[shared] if shared < 0x80 else _varint(shared)) \
                + (small[rest] if rest < 0x80 else _varint(rest)) + term[shared:]
        parts.append(data)
        size += len(data)
        previous = term
    return b"".join(parts), offsets + [size]


class TermTable(Sequence[str]):
    """Term number -> term, and term -> number by binary search. ``count``:
    the number of terms (``blocks`` must be its block offsets)."""

    def __init__(self, blob: CheckedBytes, blocks: Sequence[int], starts_file: Path, count: int) -> None:
        self._blob = blob
        self._offsets = blocks
        self._count = count
        self.starts_file = starts_file
        self._path = blob.path.with_name(TERM_OFFSETS)
        self._heads: dict[int, bytes] = {}  # block -> its first term, for the blocks near the search's root
        if len(blocks) != block_count(count) + 1 or blocks[0] != 0 or blocks[-1] != len(blob.data):
            raise CorruptIndexError(f"{self._path}: does not describe the terms of {TERMS}")

    def __len__(self) -> int:
        return self._count

    def _block(self, block: int, stop: int = BLOCK_TERMS) -> list[bytes]:
        """The first ``stop`` terms of block ``block``, as bytes."""
        start, end = self._offsets[block], self._offsets[block + 1]
        if not 0 <= start <= end <= len(self._blob.data):
            raise CorruptIndexError(f"{self._path}: offsets of block {block} descend")
        self._blob.check(start, end)
        data = bytes(self._blob.data[start:end])
        stop = min(stop, self._count - block * BLOCK_TERMS)
        terms: list[bytes] = []
        at, previous = 0, b""
        try:
            for place in range(stop):
                numbers = []
                for _ in range(1 if place == 0 else 2):
                    value = shift = 0
                    while True:
                        byte = data[at]
                        at += 1
                        value |= (byte & 0x7F) << shift
                        if byte < 0x80:
                            break
                        shift += 7
                        if shift > 35:
                            raise IndexError
                    numbers.append(value)
                shared, length = (0, numbers[0]) if place == 0 else numbers
                if shared > len(previous) or at + length > len(data):
                    raise IndexError
                previous = previous[:shared] + data[at:at + length]
                at += length
                terms.append(previous)
        except IndexError:
            raise CorruptIndexError(f"{self._blob.path}: block {block} is not front-coded terms") from None
        if stop == min(BLOCK_TERMS, self._count - block * BLOCK_TERMS) and at != len(data):
            raise CorruptIndexError(f"{self._blob.path}: block {block} is not front-coded terms")
        return terms

    def _head(self, block: int) -> bytes:
        """Block ``block``'s first term: its length byte and its bytes read
        alone (each verified first) when the length takes one byte, as it
        nearly always does; otherwise by the block reader."""
        start, end = self._offsets[block], self._offsets[block + 1]
        if 0 <= start < end <= len(self._blob.data):
            self._blob.check(start, start + 1)
            length = self._blob.data[start]
            if length < 0x80 and start + 1 + length <= end:
                self._blob.check(start + 1, start + 1 + length)
                return bytes(self._blob.data[start + 1:start + 1 + length])
        return self._block(block, 1)[0]

    def _bytes(self, number: int) -> bytes:
        if not 0 <= number < self._count:
            raise IndexError(number)
        return self._block(number // BLOCK_TERMS, number % BLOCK_TERMS + 1)[-1]

    def _decode(self, data: bytes, number: int | str) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise CorruptIndexError(f"{self._blob.path}: term {number} is not UTF-8") from None

    def __getitem__(self, number):  # type: ignore[override]
        if isinstance(number, slice):
            return [self[n] for n in range(*number.indices(len(self)))]
        if number < 0:
            number += self._count
        return self._decode(self._bytes(number), number)

    def __iter__(self) -> Iterator[str]:
        for block in range(block_count(self._count)):
            for data in self._block(block):
                yield self._decode(data, "in block " + str(block))

    def number(self, term: object) -> int | None:
        """The term's number, or None when the index does not hold it."""
        if not isinstance(term, str) or not self._count:
            return None
        try:
            wanted = term.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate is no indexed term
            return None
        low, high = 0, block_count(self._count)  # the last block whose head is <= wanted
        heads, depth = self._heads, 0
        while high - low > 1:
            middle = (low + high) // 2
            head = heads.get(middle)
            if head is None:
                head = self._head(middle)
                if depth < CACHED_DEPTH:  # the same few blocks begin every lookup
                    heads[middle] = head
            if head <= wanted:
                low = middle
            else:
                high = middle
            depth += 1
        for place, data in enumerate(self._block(low)):
            if data == wanted:
                return low * BLOCK_TERMS + place
            if data > wanted:
                return None
        return None

    def all_terms(self) -> list[str]:
        """Every term, in order, the blob verified and decoded (what a pass
        over the whole vocabulary reads). One pass over the blob, with a
        fast path for one-byte counts (nearly every term); a block with a
        longer count is decoded by the general reader."""
        self._blob.check_all()
        offsets, data, count = self._offsets, bytes(self._blob.data), self._count
        found: list[bytes] = []
        for block in range(block_count(count)):
            at, end = offsets[block], offsets[block + 1]
            if not 0 <= at <= end <= len(data):
                raise CorruptIndexError(f"{self._path}: offsets descend")
            size = min(BLOCK_TERMS, count - block * BLOCK_TERMS)
            length = data[at] if at < end else 0x80
            if length >= 0x80:  # a long first term (or damage): the general reader
                found.extend(self._block(block))
                continue
            previous = data[at + 1:at + 1 + length]
            at += 1 + length
            terms = [previous]
            for _ in range(size - 1):
                if at + 1 >= end:
                    break
                shared, length = data[at], data[at + 1]
                if shared >= 0x80 or length >= 0x80 or shared > len(previous):
                    break
                previous = previous[:shared] + data[at + 2:at + 2 + length]
                at += 2 + length
                terms.append(previous)
            if len(terms) != size or at != end:
                terms = self._block(block)  # a long term (or damage, which it names)
            found.extend(terms)
        try:
            return list(map(bytes.decode, found))
        except UnicodeDecodeError:
            raise CorruptIndexError(f"{self._blob.path}: a term is not UTF-8") from None
