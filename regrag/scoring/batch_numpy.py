"""The batch formulas of ``bm25`` and ``tfidf`` over numpy arrays, for long
posting lists in a process that has already imported numpy.

A term's impacts and weights are computed when a query first reads the term
(``regrag.index.postings_table``): for a frequent term that is tens of
thousands of Python operations, most of a new query's ranking time. numpy
applies the same IEEE-754 double operations (a multiply, a divide, an add:
each correctly rounded, no fused multiply-add across separate ufuncs) to the
same operands in the same order, so every element is the same bits as the
``map`` expression it replaces; tests/scoring/test_batch_numpy.py compares
them. numpy is never imported here: ``loaded()`` is None until something
else (the numpy kernel) has imported it, and then short lists still take the
plain path (converting them would cost more than it saves).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Mapping, Sequence
from types import ModuleType

MIN_POSTINGS = 256  # shorter lists: the map expressions are as fast


def loaded(*columns: object) -> ModuleType | None:
    """numpy, when this process has imported it and every column is a typed
    buffer (an ``array`` or a ``memoryview``); None otherwise."""
    numpy = sys.modules.get("numpy")
    if numpy is None or not all(isinstance(column, (array, memoryview)) for column in columns):
        return None
    return numpy


def bm25_impacts(numpy: ModuleType, idf: float, positions: Sequence[int], frequencies: Sequence[float],
                 length_norms: Sequence[float], k1_plus_one: float) -> array:
    """``idf * (frequency * k1_plus_one / (frequency + length_norms[position]))`` for each posting."""
    tf = numpy.asarray(frequencies, dtype=numpy.float64)
    norms = numpy.asarray(length_norms, dtype=numpy.float64)[numpy.asarray(positions)]
    return array("d", (idf * ((tf * k1_plus_one) / (tf + norms))).tobytes())


def tfidf_weights(numpy: ModuleType, frequencies: Sequence[float], idf: float,
                  sublinear: Mapping[float, float]) -> array:
    """``sublinear[frequency] * idf`` for each posting: each frequency found
    among the table's (few) keys by binary search, in C; a frequency the table
    lacks raises ``KeyError``, as the plain lookup does."""
    tf = numpy.asarray(frequencies, dtype=numpy.float64)
    keys = sorted(sublinear)
    sorted_keys = numpy.array(keys, dtype=numpy.float64)
    which = numpy.minimum(numpy.searchsorted(sorted_keys, tf), len(keys) - 1) if keys else None
    if which is None or not numpy.array_equal(sorted_keys[which], tf):
        missing = next(f for f in tf.tolist() if f not in sublinear)
        raise KeyError(missing)
    table = numpy.array([sublinear[key] for key in keys], dtype=numpy.float64)
    return array("d", (table[which] * idf).tobytes())
