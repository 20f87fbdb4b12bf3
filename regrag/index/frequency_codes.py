"""Weighted term frequencies stored exactly and compactly: a table of the
index's distinct frequency values plus one small integer code per posting.

A weighted frequency is ``tf_body + w·tf_title`` (``regrag.scoring.fields``):
an index holds only a few hundred or thousand distinct values however many
postings it has. Formats ``regrag-index/2`` and ``/3`` store them once, ascending, in
``frequency_values.f64`` (IEEE binary64, so every value is the same bits),
and each posting's value as its place in that table in
``frequency_codes.bin``: one byte per posting when the table has at most 256
values, two up to 65,536, four beyond (little-endian). The code width follows
from the table's length, so nothing else has to record it
(docs/index-format.md).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Sequence

from regrag.errors import CorruptIndexError

VALUES = "frequency_values.f64"
CODES = "frequency_codes.bin"


def code_typecode(value_count: int) -> str:
    """The ``array`` typecode of the codes for a table of ``value_count`` values."""
    if value_count <= 1 << 8:
        return "B"
    if value_count <= 1 << 16:
        return "H"
    for typecode in ("I", "L"):
        if array(typecode).itemsize == 4:
            return typecode
    raise CorruptIndexError(f"{CODES}: this platform has no 4-byte unsigned array type")


def code_width(value_count: int) -> int:
    """Bytes per code for a table of ``value_count`` values (1, 2 or 4)."""
    return array(code_typecode(value_count)).itemsize


def frequency_table(columns: Iterable[Sequence[float]]) -> array:
    """The distinct values of every frequency column, ascending (no set
    order reaches the file)."""
    distinct: set[float] = set()
    for frequencies in columns:
        distinct.update(frequencies)
    return array("d", sorted(distinct))


def encode(columns: Iterable[Sequence[float]], table: array) -> array:
    """Each frequency of ``columns`` (in order) as its place in ``table``."""
    place = {value: number for number, value in enumerate(table)}
    codes = array(code_typecode(len(table)))
    for frequencies in columns:
        codes.extend(map(place.__getitem__, frequencies))
    return codes


def little_endian(values: array) -> bytes:
    """``values`` as little-endian bytes, whatever this platform's order."""
    if sys.byteorder == "big" and values.itemsize > 1:
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def table_problem(table: Sequence[float]) -> str | None:
    """Why ``table`` is not a table ``frequency_table`` writes, or None:
    finite, positive and strictly ascending."""
    previous = 0.0
    for value in table:
        if not (previous < value < float("inf")):
            return "not strictly ascending positive finite values"
        previous = value
    return None
