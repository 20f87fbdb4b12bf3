"""Ranking metrics following trec_eval's definitions (as used by Pyserini for BEIR).

Every metric takes ``ranking``, an *already ordered* sequence of document ids
(best first), and ``qrels``, the judgments of one query (document id ->
integer relevance).  The metrics never sort: ordering the hits is the caller's
job, and it must be deterministic.  To reproduce trec_eval exactly, order hits
the way trec_eval does (score descending, ties broken by document id
descending, compared as strings) -- :func:`trec_eval_order` does that.

Conventions shared by all metrics:

* A document is *relevant* when its judged relevance is > 0 (trec_eval's
  default ``-l 1``).  Unjudged documents and relevance <= 0 count as
  non-relevant and give no gain.
* Duplicate ids in a ranking: only the first occurrence counts; later
  occurrences are dropped and the documents after them move up one rank (so
  the ranking is the list of its distinct ids in order of first appearance).
  trec_eval itself refuses a run with duplicates.
* Cutoff ``k`` counts distinct documents and must be >= 1.  When the ranking
  is shorter than ``k`` the missing positions count as non-relevant.

Mapping to trec_eval measures:

=============  =======================================================
``ndcg@10``    ``ndcg_cut.10``
``recall@100`` ``recall.100``
``mrr@10``     ``recip_rank`` on the top 10 (``-M 10 -m recip_rank``)
``hit@1``      ``success.1``
``hit@3``      ``success.3``
``map``        ``map`` (over the whole ranking, cut at the run depth)
=============  =======================================================
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence

from regrag.validation import is_int

__all__ = [
    "METRIC_NAMES",
    "evaluate",
    "average_precision",
    "hit_at_k",
    "mean",
    "ndcg_at_k",
    "recall_at_k",
    "reciprocal_rank_at_k",
    "trec_eval_order",
]

#: Metric names reported by :func:`evaluate`, in report order.
METRIC_NAMES: tuple[str, ...] = ("ndcg@10", "recall@100", "mrr@10", "hit@1", "hit@3", "map")


def _check_k(k: int) -> None:
    if not is_int(k) or k < 1:
        raise ValueError(f"cutoff must be an integer >= 1, got {k!r}")


def _check_ranking(ranking: Sequence[str]) -> None:
    # A bare string is a Sequence[str] too, and would be read one character
    # per document: almost certainly a caller bug.
    if isinstance(ranking, (str, bytes)):
        raise TypeError("ranking must be a sequence of document ids, not a string")


def _distinct(ranking: Iterable[str], k: int) -> Iterator[str]:
    """Yield the first ``k`` distinct ids of ``ranking``, in order."""
    seen: set[str] = set()
    for doc_id in ranking:
        if len(seen) >= k:
            return
        if doc_id in seen:
            continue
        seen.add(doc_id)
        yield doc_id


def _num_relevant(qrels: Mapping[str, int]) -> int:
    return sum(1 for rel in qrels.values() if rel > 0)


def ndcg_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """nDCG at cutoff ``k`` (trec_eval ``ndcg_cut.k``).

    DCG = sum over the top ``k`` of ``rel / log2(rank + 1)`` (1-based rank,
    gain = judged relevance, graded; relevance <= 0 gives no gain).  The ideal
    DCG uses all judged relevances > 0 of the query sorted descending, also
    cut at ``k``.  Returns 0.0 when the query has no relevant judgment.
    """
    _check_k(k)
    _check_ranking(ranking)
    gains = sorted((rel for rel in qrels.values() if rel > 0), reverse=True)
    if not gains:
        return 0.0
    # Summed in rank order, like trec_eval.
    dcg = 0.0
    for i, doc_id in enumerate(_distinct(ranking, k)):
        rel = qrels.get(doc_id, 0)
        if rel > 0:
            dcg += rel / math.log2(i + 2)
    ideal = 0.0
    for i, rel in enumerate(gains[:k]):
        ideal += rel / math.log2(i + 2)
    return dcg / ideal


def recall_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """Recall at cutoff ``k`` (trec_eval ``recall.k``).

    Fraction of the query's relevant documents (relevance > 0) found in the
    top ``k``.  Returns 0.0 when the query has no relevant judgment.
    """
    _check_k(k)
    _check_ranking(ranking)
    num_rel = _num_relevant(qrels)
    if num_rel == 0:
        return 0.0
    found = sum(1 for doc_id in _distinct(ranking, k) if qrels.get(doc_id, 0) > 0)
    return found / num_rel


def reciprocal_rank_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant document within the top ``k``.

    ``1 / rank`` (1-based) of the first document with relevance > 0, or 0.0
    when none is in the top ``k``.  trec_eval ``recip_rank`` on a run cut at
    ``k`` (``-M k``); MRR@10 uses ``k=10``.
    """
    _check_k(k)
    _check_ranking(ranking)
    for i, doc_id in enumerate(_distinct(ranking, k)):
        if qrels.get(doc_id, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def hit_at_k(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """1.0 if a relevant document (relevance > 0) is in the top ``k``, else 0.0.

    trec_eval ``success.k``.
    """
    _check_k(k)
    _check_ranking(ranking)
    for doc_id in _distinct(ranking, k):
        if qrels.get(doc_id, 0) > 0:
            return 1.0
    return 0.0


def average_precision(ranking: Sequence[str], qrels: Mapping[str, int]) -> float:
    """Average precision (trec_eval ``map`` for one query).

    The sum, over the relevant documents retrieved, of the precision at their
    rank, divided by the number of relevant documents (relevance > 0), so a
    relevant document never retrieved contributes 0. Summed in rank order.
    Returns 0.0 when the query has no relevant judgment.
    """
    _check_ranking(ranking)
    num_rel = _num_relevant(qrels)
    if num_rel == 0:
        return 0.0
    found = 0
    total = 0.0
    for i, doc_id in enumerate(_distinct(ranking, len(ranking) or 1)):
        if qrels.get(doc_id, 0) > 0:
            found += 1
            total += found / (i + 1)
    return total / num_rel


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean using ``math.fsum`` (exactly rounded, so independent of
    the order of ``values``).  Returns 0.0 for an empty sequence."""
    if not values:
        return 0.0
    return math.fsum(values) / len(values)


def trec_eval_order(scored: Iterable[tuple[str, float]]) -> list[str]:
    """Order ``(doc_id, score)`` pairs the way trec_eval ranks a run.

    trec_eval ignores the rank column of a run file and sorts each query's
    hits by score descending, breaking ties by document id *descending*
    (byte-wise ``strcmp``; for UTF-8 this is the same as Python's code-point
    string order).  Scores must not be NaN.
    """
    pairs = list(scored)
    for doc_id, score in pairs:
        if isinstance(score, float) and math.isnan(score):
            raise ValueError(f"score of document {doc_id!r} is NaN")
    pairs.sort(key=lambda pair: (pair[1], pair[0]), reverse=True)
    return [doc_id for doc_id, _ in pairs]


def evaluate(
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    depth: int = 1000,
) -> dict:
    """Evaluate a run against qrels with ``ndcg@10``, ``recall@100``, ``mrr@10``
    and ``hit@1``.

    ``run`` maps a query id to its *already ordered* ranking of document ids
    (see the module docstring); each ranking is first reduced to its distinct
    ids and truncated to ``depth`` documents (trec_eval ``-M depth``).

    The evaluated queries are all queries of ``qrels`` with at least one
    relevant document (relevance > 0).  A query absent from ``run`` scores 0
    on every metric and still counts in the means (like trec_eval ``-c``).
    Run queries absent from ``qrels`` are ignored.

    Returns a dict::

        {
          "means": {metric: float, ...},             # in METRIC_NAMES order
          "per_query": {qid: {metric: float, ...}},  # sorted by query id
          "num_queries": int,                        # queries averaged over
          "num_missing": int,                        # of which absent from run
        }

    Means are 0.0 when no query is evaluated.
    """
    _check_k(depth)
    per_query: dict[str, dict[str, float]] = {}
    num_missing = 0
    for qid in sorted(qrels):
        judged = qrels[qid]
        if _num_relevant(judged) == 0:
            continue
        if qid in run:
            ranking = list(_distinct(_checked(run[qid]), depth))
        else:
            ranking = []
            num_missing += 1
        per_query[qid] = {
            "ndcg@10": ndcg_at_k(ranking, judged, 10),
            "recall@100": recall_at_k(ranking, judged, 100),
            "mrr@10": reciprocal_rank_at_k(ranking, judged, 10),
            "hit@1": hit_at_k(ranking, judged, 1),
            "hit@3": hit_at_k(ranking, judged, 3),
            "map": average_precision(ranking, judged),
        }
    means = {name: mean([values[name] for values in per_query.values()]) for name in METRIC_NAMES}
    return {
        "means": means,
        "per_query": per_query,
        "num_queries": len(per_query),
        "num_missing": num_missing,
    }


def _checked(ranking: Sequence[str]) -> Sequence[str]:
    _check_ranking(ranking)
    return ranking
