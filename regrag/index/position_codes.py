"""Passage positions stored as per-term gaps of 1 to 4 bytes.

Format ``regrag-index/3`` stores each term's postings' passage positions
(ascending) as gaps: the first position itself, then the difference from
the previous one. All the gaps of one term take the same width, the fewest
bytes (1, 2, 3 or 4, unsigned little-endian) that hold its largest gap, so
a term's positions decode with C-level calls only (``array.frombytes`` and
``itertools.accumulate``) into the same ``array("i")`` the build holds:

- ``positions.bin``: the gaps of every term, term after term (the term
  order of ``terms.bin``);
- ``position_widths.bin``: each term's width, one byte per term;
- ``position_blocks.i64``: where the gaps of terms 0, 64, 128, ... start
  in ``positions.bin``, and its size last; a term's start is its block's
  plus the widths times the document frequencies of the terms before it in
  its block (``posting_starts.i32`` gives those).

Rare terms (most of a vocabulary: one or two postings) and frequent ones
(small gaps) both take 1 or 2 bytes a posting instead of 4
(docs/index-format.md, "Sizes").
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Sequence
from itertools import accumulate
from operator import le, mul, sub
from pathlib import Path

from regrag.errors import CorruptIndexError
from regrag.index.chunks import CheckedBytes

POSITIONS = "positions.bin"
WIDTHS = "position_widths.bin"
BLOCKS = "position_blocks.i64"
BLOCK_TERMS = 64  # terms per entry of position_blocks.i64
_WIDTH_LIMITS = ((1, 1 << 8), (2, 1 << 16), (3, 1 << 24), (4, 1 << 32))
_TYPECODES = {1: "B", 2: "H"}
SHORT_LIST = 8  # at most this many postings: encoded without arrays
NUMPY_MINIMUM = 256  # a term with fewer postings decodes as fast without numpy


def _four_byte_typecode() -> str:
    for typecode in ("I", "L"):
        if array(typecode).itemsize == 4:
            return typecode
    raise CorruptIndexError(f"{POSITIONS}: this platform has no 4-byte unsigned array type")


_TYPECODES[4] = _four_byte_typecode()


def width_of(largest_gap: int) -> int:
    """Bytes a gap takes when a term's largest gap is ``largest_gap``."""
    for width, limit in _WIDTH_LIMITS:
        if largest_gap < limit:
            return width
    raise ValueError(f"a gap of {largest_gap} does not fit in 4 bytes")


def _little(values: array) -> bytes:
    if sys.byteorder == "big" and values.itemsize > 1:
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def encode_term(positions: Sequence[int]) -> tuple[int, bytes]:
    """One term's ascending positions as (width, gap bytes). A short list
    (most terms have a posting or two) is packed with ``int.to_bytes``: the
    same little-endian bytes the array path writes."""
    if len(positions) <= SHORT_LIST:
        gaps = [positions[0], *map(sub, positions[1:], positions[:-1])] if positions else []
        width = width_of(max(gaps, default=0))
        return width, b"".join([gap.to_bytes(width, "little") for gap in gaps])
    gaps = array("i", positions)
    if len(gaps) > 1:
        gaps[1:] = array("i", map(sub, positions[1:], positions[:-1]))
    width = width_of(max(gaps, default=0))
    if width == 3:
        wide = _little(array(_TYPECODES[4], gaps))
        packed = bytearray(3 * len(gaps))
        for byte in range(3):
            packed[byte::3] = wide[byte::4]
        return 3, bytes(packed)
    return width, _little(array(_TYPECODES[width], gaps))


def decode_term(data: bytes | memoryview, width: int, count: int, path: Path) -> array:
    """The positions of ``count`` gaps of ``width`` bytes: an ``array("i")``.
    ``CorruptIndexError`` naming ``path`` if they do not fit int32. Where
    numpy is already imported (the numpy kernel), a long term's gaps are
    summed by ``numpy.cumsum`` in int64: integers, so the same numbers."""
    if width == 3:
        wide = bytearray(4 * count)
        for byte in range(3):
            wide[byte::4] = data[byte::3]
        data, width = wide, 4
    numpy = sys.modules.get("numpy") if count >= NUMPY_MINIMUM else None
    if numpy is not None:  # the same sums, vectorised (numpy only where something else imported it)
        totals = numpy.cumsum(numpy.frombuffer(data, dtype=f"<u{width}"), dtype=numpy.int64)
        if len(totals) != count or (count and totals[-1] > 2**31 - 1):  # gaps are unsigned: the last is the largest
            raise CorruptIndexError(f"{path}: passage position out of range")
        return array("i", totals.astype(numpy.int32).tobytes())
    gaps = array(_TYPECODES[width])
    gaps.frombytes(data)
    if sys.byteorder == "big" and width > 1:
        gaps.byteswap()
    try:
        return array("i", accumulate(gaps))
    except OverflowError:
        raise CorruptIndexError(f"{path}: passage position out of range") from None


class PositionWriter:
    """Collects terms' encoded positions in term order: the three files'
    contents, or (``write``) the gaps streamed to a file while the widths and
    block starts accumulate (what ``regrag.index.bounded_build`` uses)."""

    def __init__(self, write=None) -> None:  # type: ignore[no-untyped-def]
        self._parts: list[bytes] = []
        self._write = write if write is not None else self._parts.append
        self.widths = bytearray()
        self.blocks = array("q")
        self.size = 0

    def add(self, positions: Sequence[int]) -> None:
        if len(self.widths) % BLOCK_TERMS == 0:
            self.blocks.append(self.size)
        width, data = encode_term(positions)
        self.widths.append(width)
        self._write(data)
        self.size += len(data)

    def finish(self) -> tuple[bytes, bytes]:
        """``position_widths.bin`` and ``position_blocks.i64`` (the total last)."""
        blocks = array("q", self.blocks)
        blocks.append(self.size)
        return bytes(self.widths), _little(blocks)

    def positions_bytes(self) -> bytes:
        return b"".join(self._parts)


def encode_columns(columns: Iterable[Sequence[int]]) -> tuple[bytes, bytes, bytes]:
    """``positions.bin``, ``position_widths.bin`` and ``position_blocks.i64``
    for every term's positions, in term order."""
    writer = PositionWriter()
    for positions in columns:
        writer.add(positions)
    widths, blocks = writer.finish()
    return writer.positions_bytes(), widths, blocks


def read_blocks(data: bytes, path: Path) -> array:
    blocks = array("q")
    if blocks.itemsize != 8 or len(data) % 8:
        raise CorruptIndexError(f"{path}: size {len(data)} is not a whole number of items")
    blocks.frombytes(data)
    if sys.byteorder == "big":
        blocks.byteswap()
    return blocks


class PositionColumn:
    """Every term's positions, decoded a term at a time from ``positions.bin``
    (``checked``: its bytes, each chunk verified before it is read).
    ``starts``: each term's first posting and the posting count last."""

    def __init__(self, checked: CheckedBytes, widths: bytes, blocks: Sequence[int], starts: Sequence[int],
                 where: Path) -> None:
        terms = len(starts) - 1
        if len(widths) != terms or widths.translate(None, b"\x01\x02\x03\x04"):
            raise CorruptIndexError(f"{where / WIDTHS}: not one width of 1 to 4 bytes per term")
        if len(blocks) != -(-terms // BLOCK_TERMS) + 1 or blocks[0] != 0 or blocks[-1] != len(checked.data) \
                or not all(map(le, blocks, blocks[1:])):
            raise CorruptIndexError(f"{where / BLOCKS}: does not describe {POSITIONS}")
        self.checked = checked
        self.path = checked.path
        self._widths = widths
        self._blocks = blocks
        self._starts = starts

    def __len__(self) -> int:
        return self._starts[-1] if len(self._starts) else 0

    def term(self, number: int) -> array:
        """Term ``number``'s positions (bytes verified; range-check them)."""
        starts, widths = self._starts, self._widths
        block = number // BLOCK_TERMS
        first = block * BLOCK_TERMS
        begin = self._blocks[block] + sum(map(mul, widths[first:number],
                                              map(sub, starts[first + 1:number + 1], starts[first:number])))
        count = starts[number + 1] - starts[number]
        width = widths[number]
        end = begin + width * count
        if not 0 <= begin <= end <= self._blocks[block + 1]:
            raise CorruptIndexError(f"{self.path}: the gaps of term {number} lie outside its block")
        self.checked.check(begin, end)
        return decode_term(self.checked.data[begin:end], width, count, self.path)

    def all(self) -> array:
        """Every term's positions back to back (every byte verified), after
        checking that each block holds exactly its terms' gaps. Vectorised
        with numpy where it is installed (the same numbers)."""
        self.checked.check_all()
        try:
            import numpy
        except ImportError:
            return self._all_python()
        return self._all_numpy(numpy)

    def _all_numpy(self, numpy) -> array:  # type: ignore[no-untyped-def]
        widths = numpy.frombuffer(self._widths, dtype=numpy.uint8).astype(numpy.int64)
        counts = numpy.diff(numpy.asarray(memoryview(self._starts)).astype(numpy.int64))
        if len(counts) and counts.min() < 0:
            raise CorruptIndexError(f"{self.path}: does not hold the gaps of every term")
        sizes = widths * counts
        term_starts = numpy.concatenate(([0], numpy.cumsum(sizes)))
        if term_starts[-1] != len(self.checked.data) or not numpy.array_equal(
                term_starts[:-1][::BLOCK_TERMS], numpy.asarray(memoryview(self._blocks))[:-1].astype(numpy.int64)):
            raise CorruptIndexError(f"{self.path.parent / BLOCKS}: does not describe {POSITIONS}")
        data = numpy.frombuffer(self.checked.data, dtype=numpy.uint8)
        posting_width = numpy.repeat(widths, counts)
        # each posting's byte offset: its term's start plus width times its place in the term
        place = numpy.arange(len(posting_width), dtype=numpy.int64) - numpy.repeat(
            numpy.asarray(memoryview(self._starts)).astype(numpy.int64)[:-1], counts)
        at = numpy.repeat(term_starts[:-1], counts) + place * posting_width
        gaps = numpy.zeros(len(posting_width), dtype=numpy.int64)
        for byte in range(4):
            wide = posting_width > byte
            gaps[wide] |= data[at[wide] + byte].astype(numpy.int64) << (8 * byte)
        totals = numpy.cumsum(gaps)
        before = numpy.concatenate(([0], totals))[numpy.asarray(memoryview(self._starts)).astype(numpy.int64)[:-1]]
        positions = totals - numpy.repeat(before, counts)
        if len(positions) and positions.max() > 2**31 - 1:
            raise CorruptIndexError(f"{self.path}: passage position out of range")
        result = array("i")
        result.frombytes(positions.astype("<i4" if sys.byteorder == "little" else ">i4").tobytes())
        return result

    def _all_python(self) -> array:
        data, widths, starts, blocks = self.checked.data, self._widths, self._starts, self._blocks
        result = array("i")
        at = 0
        for number in range(len(widths)):
            if number % BLOCK_TERMS == 0 and blocks[number // BLOCK_TERMS] != at:
                raise CorruptIndexError(f"{self.path.parent / BLOCKS}: does not describe {POSITIONS}")
            width, count = widths[number], starts[number + 1] - starts[number]
            end = at + width * count
            if count < 0 or end > len(data):
                raise CorruptIndexError(f"{self.path}: does not hold the gaps of every term")
            result.extend(decode_term(data[at:end], width, count, self.path))
            at = end
        if at != len(data):
            raise CorruptIndexError(f"{self.path}: does not hold the gaps of every term")
        return result
