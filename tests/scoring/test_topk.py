"""Top-k selection equals a full sort in the total order, ties included."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from regrag.scoring.topk import kth_largest, kth_largest_bar, top_k

# few distinct scores, so ties at the k-th place are common
scores = st.dictionaries(st.integers(min_value=0, max_value=500), st.sampled_from([0.5, 1.0, 1.25, 2.0, 3.5, 1e-300]), max_size=300)


@given(scores, st.integers(min_value=1, max_value=400))
def test_top_k_is_the_head_of_the_total_order(table, k):
    expected = sorted(table.items(), key=lambda item: (-item[1], item[0]))[:k]
    assert top_k(table, k) == expected


def test_ties_at_the_boundary_are_broken_by_position():
    assert top_k({9: 1.0, 3: 1.0, 5: 2.0, 1: 1.0}, 2) == [(5, 2.0), (1, 1.0)]
    assert top_k({}, 3) == []


values = st.lists(st.one_of(st.sampled_from([0.5, 1.0, 2.0]), st.floats(min_value=0.0, max_value=1e6)), min_size=1, max_size=2000)


@given(values, st.integers(min_value=1, max_value=2000))
def test_the_bar_is_never_above_the_kth_best_and_kth_largest_is_exact(found, k):
    k = min(k, len(found))
    exact = sorted(found)[-k]
    assert kth_largest_bar(found, k) <= exact
    assert kth_largest(found, k) == exact


@pytest.mark.parametrize("seed", range(12))
def test_top_k_of_many_scores_takes_the_sampled_path_and_equals_a_full_sort(seed):
    generator = random.Random(seed)
    size = generator.randint(200, 3000)
    pool = [generator.uniform(0.0, 50.0) for _ in range(generator.choice((3, 50, size)))]  # many ties or none
    table = {position: generator.choice(pool) for position in generator.sample(range(10 * size), size)}
    for k in (1, 2, 7, 10, 30, 100, size // 3, size):
        expected = sorted(table.items(), key=lambda item: (-item[1], item[0]))[:k]
        assert top_k(table, k) == expected
