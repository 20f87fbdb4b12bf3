"""Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, 2009).

``fused(d) = Σ 1/(k + rank_i(d))`` over the input lists that contain ``d``,
with 1-based ranks and ``k = 60``. The terms are added in the order the lists
are given (for ``hybrid``: BM25, then TF-IDF), so the sum is reproducible.
Ties are broken by the fused score, then the best single rank, then the
caller's tie key (document id, then passage number).
"""

from __future__ import annotations

from typing import Hashable, Sequence

RRF_K = 60


def rrf_contribution(rank: int, k: int = RRF_K) -> float:
    """``1/(k + rank)`` for a 1-based rank."""
    return 1.0 / (k + rank)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Hashable]], k: int = RRF_K
) -> list[tuple[Hashable, float, int]]:
    """Fuse ranked lists of items whose natural order is the tie order.

    Returns ``(item, fused score, best single rank)`` sorted by fused score
    descending, best rank ascending, then item ascending.
    """
    fused: dict[Hashable, float] = {}
    best_rank: dict[Hashable, int] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + rrf_contribution(rank, k)
            if rank < best_rank.get(item, rank + 1):
                best_rank[item] = rank
    ordered = sorted(fused, key=lambda item: (-fused[item], best_rank[item], item))
    return [(item, fused[item], best_rank[item]) for item in ordered]
