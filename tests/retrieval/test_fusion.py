"""Reciprocal Rank Fusion."""

from __future__ import annotations

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
