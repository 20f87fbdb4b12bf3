"""Reciprocal Rank Fusion."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.retrieval.fusion import reciprocal_rank_fusion, rrf_contribution


def test_contribution():
    assert rrf_contribution(1) == 1 / 61
    assert rrf_contribution(10, k=0) == 0.1


def test_fusion_scores_and_order():
    fused = reciprocal_rank_fusion([[3, 1, 2], [1, 4]])
    scores = {item: score for item, score, _best in fused}
    assert scores[1] == 1 / 62 + 1 / 61
    assert scores[3] == 1 / 61
    assert scores[4] == 1 / 62
    assert scores[2] == 1 / 63
    assert [item for item, _s, _b in fused] == [1, 3, 4, 2]


def test_equal_scores_and_best_ranks_fall_back_to_item_order():
    fused = reciprocal_rank_fusion([[9, 8], [8, 9]])
    assert [(item, best) for item, _s, best in fused] == [(8, 1), (9, 1)]
    assert fused[0][1] == fused[1][1]


def test_best_rank_breaks_ties_before_item():
    # With k = 0: "a" ranks 2 and 2 (1/2 + 1/2 = 1.0); "y" and "z" rank 1 once (1.0).
    fused = reciprocal_rank_fusion([["y", "a"], ["z", "a"]], k=0)
    assert [(item, score, best) for item, score, best in fused] == [("y", 1.0, 1), ("z", 1.0, 1), ("a", 1.0, 2)]


def _fusion_by_loop(rankings, k=60):
    """The definition, item by item (what ``reciprocal_rank_fusion`` computed before lists of
    distinct items took a faster path): the same doubles and order are expected."""
    fused, best = {}, {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + rrf_contribution(rank, k)
            best[item] = min(best.get(item, rank), rank)
    return sorted(((item, score, best[item]) for item, score in fused.items()), key=lambda t: (-t[1], t[2], t[0]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, 40), max_size=60), max_size=4), st.sampled_from([0, 1, 60]))
def test_fusion_equals_the_item_by_item_definition(raw, k):
    distinct = [list(dict.fromkeys(ranking)) for ranking in raw]  # the retrievers' lists: distinct items
    for rankings in (distinct, raw):  # and lists with repeats, which take the item-by-item path
        got = reciprocal_rank_fusion(rankings, k)
        want = _fusion_by_loop(rankings, k)
        assert [(i, s.hex(), b) for i, s, b in got] == [(i, s.hex(), b) for i, s, b in want]
