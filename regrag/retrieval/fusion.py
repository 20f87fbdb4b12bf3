"""Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, 2009).

``fused(d) = Σ 1/(k + rank_i(d))`` over the input lists that contain ``d``,
with 1-based ranks and ``k = 60``. The terms are added in the order the lists
are given (for ``hybrid``: BM25, then TF-IDF), so the sum is reproducible.
Ties are broken by the fused score, then the best single rank, then the
caller's tie key (document id, then passage number).
"""

from __future__ import annotations

from functools import lru_cache
from operator import neg
from typing import Hashable, Sequence

RRF_K = 60


def rrf_contribution(rank: int, k: int = RRF_K) -> float:
    """``1/(k + rank)`` for a 1-based rank."""
    return 1.0 / (k + rank)


@lru_cache(maxsize=64)
def contribution_table(longest: int, k: int = RRF_K) -> tuple[float, ...]:
    """``rrf_contribution`` of ranks 1 to ``longest`` (index 0 unused: 0.0),
    computed once per depth (bounded cache; the values depend on nothing else)."""
    return (0.0, *(rrf_contribution(rank, k) for rank in range(1, longest + 1)))


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Hashable]], k: int = RRF_K
) -> list[tuple[Hashable, float, int]]:
    """Fuse ranked lists of items whose natural order is the tie order.

    Returns ``(item, fused score, best single rank)`` sorted by fused score
    descending, best rank ascending, then item ascending.
    """
    longest = max((len(ranking) for ranking in rankings), default=0)
    contribution = contribution_table(longest, k)
    fused: dict[Hashable, float] = {}
    best_rank: dict[Hashable, int] = {}
    for ranking in rankings:
        get_score, get_rank = fused.get, best_rank.get
        for rank, item in enumerate(ranking, start=1):
            fused[item] = get_score(item, 0.0) + contribution[rank]
            if rank < get_rank(item, rank + 1):
                best_rank[item] = rank
    # (−score, best rank, item) tuples sort in C to the same order as the key function would
    ordered = sorted(zip(map(neg, fused.values()), map(best_rank.__getitem__, fused), fused))
    return [(item, -negated, rank) for negated, rank, item in ordered]
