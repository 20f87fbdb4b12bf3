"""Format regrag-index/3's compact encodings round-trip exactly: per-term
position gaps (regrag.index.position_codes) and the front-coded vocabulary
(regrag.index.term_table), with damage refused naming the file."""

from __future__ import annotations

from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from regrag.errors import CorruptIndexError
from regrag.index import position_codes
from regrag.index.chunks import CheckedBytes
from regrag.index.term_table import BLOCK_TERMS, TermCoder, TermTable, shared_prefix, term_blob

WHERE = Path("/generation")


def _column(columns: list[list[int]]) -> position_codes.PositionColumn:
    data, widths, blocks = position_codes.encode_columns(columns)
    starts = array("i", [0])
    for positions in columns:
        starts.append(starts[-1] + len(positions))
    checked = CheckedBytes(WHERE / position_codes.POSITIONS, memoryview(data), None)
    return position_codes.PositionColumn(checked, widths, position_codes.read_blocks(blocks, WHERE), starts, WHERE)


ascending = st.lists(st.integers(0, 2**31 - 1), min_size=1, max_size=40, unique=True).map(sorted)


@settings(max_examples=200, deadline=None)
@given(st.lists(ascending, max_size=150))
def test_positions_round_trip_term_by_term_and_whole(columns):
    column = _column(columns)
    for number, positions in enumerate(columns):
        decoded = column.term(number)
        assert isinstance(decoded, array) and decoded.typecode == "i" and list(decoded) == positions
    assert list(column.all()) == [p for positions in columns for p in positions]


@pytest.mark.parametrize(("largest", "width"), [(0, 1), (255, 1), (256, 2), (65_535, 2), (65_536, 3),
                                                 (2**24 - 1, 3), (2**24, 4), (2**31 - 1, 4)])
def test_a_term_takes_the_fewest_bytes_that_hold_its_largest_gap(largest, width):
    got, data = position_codes.encode_term([largest])
    assert got == width and len(data) == width
    if 5 + largest + 1 < 2**31:
        assert position_codes.encode_term([5, 5 + largest + 1])[0] == position_codes.width_of(largest + 1)
    assert list(_column([[largest]]).term(0)) == [largest]


def test_damaged_widths_blocks_and_overflow_are_refused():
    data, widths, blocks = position_codes.encode_columns([[1, 2], [3]])
    checked = CheckedBytes(WHERE / position_codes.POSITIONS, memoryview(data), None)
    starts = array("i", [0, 2, 3])
    with pytest.raises(CorruptIndexError, match="position_widths.bin"):
        position_codes.PositionColumn(checked, b"\x05\x01", position_codes.read_blocks(blocks, WHERE), starts, WHERE)
    with pytest.raises(CorruptIndexError, match="position_blocks.i64"):
        position_codes.PositionColumn(checked, widths, array("q", [0, len(data) + 1]), starts, WHERE)
    # gaps that sum past int32 (a forged file): refused, not an OverflowError
    huge = CheckedBytes(WHERE / position_codes.POSITIONS, memoryview(b"\xff\xff\xff\x7f" * 2), None)
    column = position_codes.PositionColumn(huge, b"\x04", array("q", [0, 8]), array("i", [0, 2]), WHERE)
    with pytest.raises(CorruptIndexError, match="positions.bin: passage position out of range"):
        column.term(0)


terms_strategy = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12),
                          max_size=4 * BLOCK_TERMS + 3, unique=True).map(lambda terms: sorted(
                              terms, key=lambda term: term.encode("utf-8")))


@settings(max_examples=200, deadline=None)
@given(terms_strategy, st.lists(st.text(max_size=12), max_size=5))
def test_front_coded_vocabulary_round_trips_and_finds_every_term(terms, others):
    blob, blocks = term_blob(terms)
    table = TermTable(CheckedBytes(WHERE / "terms.bin", memoryview(blob), None), blocks, WHERE / "p", len(terms))
    assert len(table) == len(terms) and list(table) == terms == table.all_terms()
    assert [table[number] for number in range(len(terms))] == terms
    assert [table.number(term) for term in terms] == list(range(len(terms)))
    for other in others:
        assert table.number(other) == (terms.index(other) if other in terms else None)
    # about half the bytes of the terms back to back when neighbours share prefixes
    assert len(blob) <= sum(len(term.encode("utf-8")) + 2 for term in terms)


def test_shared_prefixes_are_stored_once():
    terms = [f"thị trường {n:04d}" for n in range(100)]
    blob, blocks = term_blob(terms)
    assert len(blocks) == -(-100 // BLOCK_TERMS) + 1
    assert len(blob) < sum(len(term.encode("utf-8")) for term in terms) / 3


def test_a_damaged_vocabulary_is_refused_naming_the_file():
    terms = [f"term{n}" for n in range(40)]
    blob, blocks = term_blob(terms)
    checked = CheckedBytes(WHERE / "terms.bin", memoryview(blob), None)
    with pytest.raises(CorruptIndexError, match="term_blocks.i32"):
        TermTable(checked, blocks[:-1], WHERE / "p", len(terms))
    broken = bytearray(blob)
    broken[blocks[1] + 1 + len("term16")] = 0x7F  # the next term shares 127 bytes with "term16": impossible
    table = TermTable(CheckedBytes(WHERE / "terms.bin", memoryview(bytes(broken)), None), blocks, WHERE / "p",
                      len(terms))
    with pytest.raises(CorruptIndexError, match="terms.bin: block 1"):
        table.all_terms()


def test_terms_longer_than_a_one_byte_count_take_the_general_reader():
    terms = sorted(["a" * 200 + str(n) for n in range(40)] + ["b" * 130, "c", "cd" * 100, "é" * 70])
    blob, blocks = term_blob(terms)
    table = TermTable(CheckedBytes(WHERE / "terms.bin", memoryview(blob), None), blocks, WHERE / "p", len(terms))
    assert table.all_terms() == terms == list(table)
    assert [table.number(term) for term in terms] == list(range(len(terms)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=140), max_size=3 * BLOCK_TERMS + 5,
                unique=True).map(lambda terms: sorted(terms, key=lambda term: term.encode("utf-8"))))
def test_the_one_loop_vocabulary_writer_gives_the_streaming_coders_bytes(terms):
    # the bounded build streams terms through TermCoder, the in-memory and segmented saves call term_blob:
    # the same vocabulary must give the same terms.bin and block offsets either way (long terms included)
    coder = TermCoder()
    streamed = b"".join(coder.add(term.encode("utf-8")) for term in terms)
    assert term_blob(terms) == (streamed, coder.finish())


@given(st.binary(max_size=12), st.binary(max_size=12))
def test_shared_prefix_counts_the_leading_bytes_in_common(first, second):
    expected = 0
    while expected < min(len(first), len(second)) and first[expected] == second[expected]:
        expected += 1
    assert shared_prefix(first, second) == expected == shared_prefix(second, first)
    assert shared_prefix(first, first) == len(first)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2**31 - 1), max_size=position_codes.SHORT_LIST + 3, unique=True).map(sorted))
def test_short_and_long_lists_encode_to_the_same_gap_bytes(positions):
    # a list of at most SHORT_LIST postings is packed with int.to_bytes, a longer one through arrays:
    # both must write what the array path writes, for every width
    from operator import sub

    gaps = [positions[0], *map(sub, positions[1:], positions[:-1])] if positions else []
    width = position_codes.width_of(max(gaps, default=0))
    expected = b"".join(gap.to_bytes(width, "little") for gap in gaps)
    assert position_codes.encode_term(positions) == (width, expected)
    assert position_codes.encode_term(array("i", positions)) == (width, expected)
    if positions:
        assert list(position_codes.decode_term(expected, width, len(positions), WHERE)) == positions
