"""The numpy batch formulas (regrag.scoring.batch_numpy) give the bits of the
map expressions they stand in for, on random lists (hypothesis) and on every
term of SciFact-like lengths, and are used only when numpy is already loaded."""

from __future__ import annotations

import math
import struct
import subprocess
import sys
from array import array

import pytest
from hypothesis import given, settings, strategies as st

numpy = pytest.importorskip("numpy")

from regrag.scoring import batch_numpy  # noqa: E402
from regrag.scoring.bm25 import bm25_impacts  # noqa: E402
from regrag.scoring.tfidf import sublinear_table, tfidf_weights  # noqa: E402


def _plain_impacts(idf, positions, frequencies, norms, k1):
    return [idf * (f * (k1 + 1.0) / (f + norms[p])) for p, f in zip(positions, frequencies)]


def _bits(values):
    return [struct.pack("<d", value) for value in values]


positive = st.floats(min_value=1e-3, max_value=1e4, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0, 1.7, 4.25, 7.0, 12.0, 0.3]), min_size=1, max_size=900),
    st.lists(positive, min_size=1, max_size=200),
    positive, st.floats(min_value=0.0, max_value=3.0), st.randoms(use_true_random=False),
)
def test_same_bits_as_the_map_expressions(frequencies, norms, idf, k1, rng):
    positions = array("i", sorted(rng.randrange(len(norms)) for _ in frequencies))
    frequencies = array("d", frequencies)
    norms = array("d", norms)
    expected = _plain_impacts(idf, positions, frequencies, norms, k1)
    got = batch_numpy.bm25_impacts(numpy, idf, positions, frequencies, norms, k1 + 1.0)
    assert _bits(got) == _bits(expected)
    assert _bits(batch_numpy.bm25_impacts(numpy, idf, memoryview(positions), memoryview(frequencies),
                                          memoryview(norms), k1 + 1.0)) == _bits(expected)
    table = sublinear_table(frequencies)
    assert _bits(batch_numpy.tfidf_weights(numpy, frequencies, idf, table)) == \
        _bits([table[f] * idf for f in frequencies])


def test_the_batch_functions_take_the_numpy_path_for_long_lists_with_the_same_bits():
    count = 5 * batch_numpy.MIN_POSTINGS
    positions = array("i", range(0, 2 * count, 2))
    frequencies = array("d", (1.0 + (i * 7919) % 13 / 4 for i in range(count)))
    norms = array("d", (0.4 + math.sin(i) ** 2 for i in range(2 * count)))
    assert batch_numpy.loaded(positions, frequencies, norms) is numpy
    assert batch_numpy.loaded(list(positions), frequencies, norms) is None  # a list: the plain path
    impacts = bm25_impacts(1.37, positions, frequencies, norms, 1.2)
    assert isinstance(impacts, array)
    assert _bits(impacts) == _bits(bm25_impacts(1.37, list(positions), list(frequencies), norms, 1.2))
    table = sublinear_table(frequencies)
    weights = tfidf_weights(frequencies, 2.5, table)
    assert isinstance(weights, array)
    assert _bits(weights) == _bits(tfidf_weights(list(frequencies), 2.5, table))


def test_numpy_is_never_imported_by_the_batch_functions():
    code = ("import sys\nfrom array import array\nfrom regrag.scoring.bm25 import bm25_impacts\n"
            "bm25_impacts(1.0, array('i', range(1000)), array('d', [1.0] * 1000), array('d', [1.0] * 1000), 1.2)\n"
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_frequency_missing_from_the_table_is_a_key_error_as_in_the_plain_lookup():
    frequencies = array("d", [1.0, 2.0, 3.0] * 200)
    with pytest.raises(KeyError):
        batch_numpy.tfidf_weights(numpy, frequencies, 1.5, {1.0: 1.0, 2.0: 1.5})
    with pytest.raises(KeyError):
        batch_numpy.tfidf_weights(numpy, frequencies, 1.5, {})
