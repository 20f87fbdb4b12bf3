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
``rerank`` is ``search --method rerank`` (``regrag.dense.search``);
``bm25+dense`` is the ablation's pair (``regrag.eval.ablation``); ``coverage``
is measured beside them (``RuleFusion`` there).
"""

from __future__ import annotations

from typing import Callable, Sequence

from regrag.retrieval.fusion import RRF_K

RERANK_POOL = 20

Ranked = list[tuple[int, float]]


def reranked(dense: Ranked, lexical: Ranked, k: int) -> Ranked:
    """``rerank``: ``dense`` (position, score), best first, at least ``RERANK_POOL`` deep when the index
    has that many passages; ``lexical`` the BM25 ranking restricted to the first ``RERANK_POOL`` of them.
    Scores are BM25's for the pool's matches, 0.0 for the rest (their order is the dense list's)."""
    pool = dense[:RERANK_POOL]
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
