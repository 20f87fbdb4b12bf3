"""Ways to combine the BM25 list with the dense list, each fixed by a stated rule (docs/dense.md, "Fusion rules").

None has a weight tuned on labelled data; each is a pure function of the
query, the index and the stored vectors:

- ``rerank`` (the published stock-news design): the ``RERANK_POOL`` (20)
  best passages by the dense score, ordered by their BM25 score among
  themselves (score descending, then index position); pool passages without
  a query term follow in dense order, then the dense list from rank 21 on.
- ``bm25+dense``: Reciprocal Rank Fusion (k = 60) of the two lists, weight 1
  each (``regrag.retrieval.fusion``).
- ``coverage``: RRF of the two lists, BM25's terms weighted ``1 + c`` and
  dense's 1, where ``c`` is the share of the query's distinct analysed terms
  that occur in the index (computed from the query and the index's term
  table, never from labels): the more of the query the index spells, the
  more the lexical list is trusted.

Ties are broken as everywhere: score descending, then index position. The
weighted sum adds each list's term in the fixed order BM25, dense.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from regrag.retrieval.fusion import RRF_K, reciprocal_rank_fusion

RERANK_POOL = 20
FUSION_RULES = ("rerank", "bm25+dense", "coverage")

Ranked = list[tuple[int, float]]


def reranked(dense: Ranked, bm25_among: Callable[[frozenset[int]], Ranked], k: int) -> Ranked:
    """``rerank``: ``dense`` (position, score), best first, at least ``RERANK_POOL`` deep when the index
    has that many passages; ``bm25_among(positions)`` the BM25 ranking restricted to ``positions``. Scores
    are BM25's for the pool's matches, 0.0 for the rest (their order is the dense list's)."""
    pool = dense[:RERANK_POOL]
    lexical = bm25_among(frozenset(p for p, _s in pool))
    matched = {p for p, _s in lexical}
    order = list(lexical) + [(p, 0.0) for p, _s in pool if p not in matched] + [(p, 0.0) for p, _s in dense[RERANK_POOL:]]
    return order[:k]


def query_coverage(terms: Sequence[str], indexed: Callable[[str], bool]) -> float:
    """The share of the query's distinct ``terms`` that ``indexed`` (0.0 for a query without terms)."""
    distinct = sorted(set(terms))
    return sum(1 for term in distinct if indexed(term)) / len(distinct) if distinct else 0.0


def weighted_rrf(rankings: Sequence[Sequence[int]], weights: Sequence[float], k: int = RRF_K) -> Ranked:
    """RRF with a weight per list: each item scores the sum, in list order, of ``weight / (k + rank)``;
    score descending, best single rank, then item ascending (the order of ``reciprocal_rank_fusion``)."""
    fused: dict[int, float] = {}
    best: dict[int, int] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
            if rank < best.get(item, rank + 1):
                best[item] = rank
    ordered = sorted((-score, best[item], item) for item, score in fused.items())
    return [(item, -negated) for negated, _rank, item in ordered]


def combined(rule: str, bm25: Ranked, dense: Ranked, k: int, *, bm25_among: Callable[[frozenset[int]], Ranked],
             coverage: Callable[[], float]) -> Ranked:
    """The top ``k`` (position, score) by ``rule`` (one of ``FUSION_RULES``) from the two lists."""
    if rule == "rerank":
        return reranked(dense, bm25_among, k)
    if rule == "bm25+dense":
        return [(p, s) for p, s, _best in reciprocal_rank_fusion([[p for p, _s in bm25], [p for p, _s in dense]])][:k]
    if rule == "coverage":
        return weighted_rrf([[p for p, _s in bm25], [p for p, _s in dense]], (1.0 + coverage(), 1.0))[:k]
    raise ValueError(f"unknown fusion rule {rule!r}")


def describe(rule: str) -> dict[str, Any]:
    """The rule's parameters as recorded in provenance and reports."""
    if rule == "rerank":
        return {"rule": rule, "pool": RERANK_POOL, "order": "bm25 score within the dense pool"}
    if rule == "bm25+dense":
        return {"rule": rule, "rrf_k": RRF_K, "weights": [1, 1]}
    return {"rule": rule, "rrf_k": RRF_K, "weights": ["1 + share of query terms indexed", 1]}
