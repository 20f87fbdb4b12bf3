"""Top-k selection equals a full sort in the total order, ties included."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from regrag.scoring.topk import top_k

# few distinct scores, so ties at the k-th place are common
scores = st.dictionaries(st.integers(min_value=0, max_value=500), st.sampled_from([0.5, 1.0, 1.25, 2.0, 3.5, 1e-300]), max_size=300)


@given(scores, st.integers(min_value=1, max_value=400))
def test_top_k_is_the_head_of_the_total_order(table, k):
    expected = sorted(table.items(), key=lambda item: (-item[1], item[0]))[:k]
    assert top_k(table, k) == expected


def test_ties_at_the_boundary_are_broken_by_position():
    assert top_k({9: 1.0, 3: 1.0, 5: 2.0, 1: 1.0}, 2) == [(5, 2.0), (1, 1.0)]
    assert top_k({}, 3) == []
