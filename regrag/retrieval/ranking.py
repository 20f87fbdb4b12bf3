"""BM25 and TF-IDF rankings (exhaustive, or rank-safe pruned) over an ``InvertedIndex``.

Query terms are the distinct analyzed terms, taken in ascending code-point
order; each passage's score is accumulated in that order (``0.0 + c1 + c2 +
...``), which ``explain`` repeats to give the same float. Results are ordered
by score descending, then passage position (document id, passage number).
``rank`` is where the kernel is chosen (``regrag.retrieval.kernels``): the
numpy kernel (``regrag.scoring.vector_kernel``) repeats these operations in
this order over the same columns and returns the same bits.
"""

from __future__ import annotations

from itertools import repeat
from operator import getitem, mul

from regrag.index.build import InvertedIndex
from regrag.index.postings_cache import CachedPostings
from regrag.retrieval.query import AnalyzedQuery
from regrag.retrieval.kernels import resolve_kernel, vector_kernel
from regrag.scoring.dense_scores import dense_bm25_top, dense_tfidf_top, worth_dense
from regrag.scoring.pruning import pruned_bm25_top, pruned_tfidf_top
from regrag.scoring.topk import top_k
from regrag.scoring.tfidf import cosines, tfidf_weight, vector_norm


def _top(scores: dict[int, float], k: int, allowed: frozenset[int] | None) -> list[tuple[int, float]]:
    """The ``k`` best (position, score) pairs: score descending, then position."""
    if allowed is not None:
        scores = {p: score for p, score in scores.items() if p in allowed}
    return top_k(scores, k)


def bm25_scores(index: InvertedIndex, query: AnalyzedQuery) -> dict[int, float]:
    """Each matching passage's BM25 score, summed from ``0.0`` in term order
    (the first term's impacts are its passages' first partial sums, exactly)."""
    scores: dict[int, float] | None = None
    for term in query.terms:
        postings = index.postings.get(term)
        if postings is None:
            continue
        if scores is None:
            scores = dict(zip(postings.passages, postings.bm25_impacts))  # 0.0 + x == x
            continue
        get = scores.get
        for position, impact in zip(postings.passages, postings.bm25_impacts):
            scores[position] = get(position, 0.0) + impact
    return scores if scores is not None else {}


def tfidf_query_weights(index: InvertedIndex, query: AnalyzedQuery) -> list[tuple[str, float]]:
    """(term, query weight) for the query terms the index knows, in term order."""
    weights = []
    for term, count in zip(query.terms, query.counts):
        postings = index.postings.get(term)
        if postings is not None:
            weights.append((term, tfidf_weight(float(count), postings.tfidf_idf)))
    return weights


def tfidf_scores(
    index: InvertedIndex, query: AnalyzedQuery, weights: list[tuple[str, float]] | None = None,
    query_norm: float | None = None,
) -> dict[int, float]:
    """Each matching passage's TF-IDF cosine; ``weights`` (the query's
    ``tfidf_query_weights``) and their norm when the caller already has them."""
    if weights is None:
        weights = tfidf_query_weights(index, query)
    if not weights:
        return {}
    if query_norm is None:
        query_norm = vector_norm(w for _t, w in weights)
    dots: dict[int, float] | None = None
    for term, query_weight in weights:
        postings = index.postings[term]
        # q * w for every posting, computed in C (the same products as a loop)
        products = map(mul, repeat(query_weight), postings.tfidf_weights)
        if dots is None:
            dots = dict(zip(postings.passages, products))  # 0.0 + x == x
            continue
        get = dots.get
        for position, product in zip(postings.passages, products):
            dots[position] = get(position, 0.0) + product
    if dots is None:
        return {}
    return dict(zip(dots, cosines(dots.values(), query_norm, map(getitem, repeat(index.tfidf_norms), dots))))


def rank(
    index: InvertedIndex, query: AnalyzedQuery, method: str, k: int, allowed: frozenset[int] | None,
    exhaustive: bool = False, kernel: str | None = None,
) -> list[tuple[int, float]]:
    """Top ``k`` (passage position, score) of one retriever, in total order.
    Without filters both retrievers use rank-safe pruning
    (``regrag.scoring.pruning``) unless ``exhaustive``; the result is the
    same either way, bit for bit, and the same whichever ``kernel`` ranks
    (``python`` or ``numpy``; None: ``REGRAG_KERNEL`` or the default).
    A sharded index is ranked shard by shard (``regrag.retrieval.shard_ranking``)."""
    if getattr(index, "shard_views", None) is not None:
        from regrag.retrieval.shard_ranking import sharded_rank

        return sharded_rank(index, query, method, k, allowed, exhaustive, kernel, rank)
    columns = _numpy_columns(index, query, method, k, allowed, kernel)
    if columns is not None:
        return list(zip(*columns))
    weights = tfidf_query_weights(index, query) if method != "bm25" else None
    norm = vector_norm(w for _t, w in weights) if weights else None
    if allowed is None and not exhaustive and len(query.terms) >= 3:  # pruning needs three terms
        if weights is None:
            pruned = pruned_bm25_top(index, query.terms, k)
        else:
            pruned = pruned_tfidf_top(index, weights, norm, k) if len(weights) >= 3 else None
        if pruned is not None:
            return pruned
    if worth_dense(_posting_count(index, query), index.passage_count):
        return _dense_rank(index, query, k, allowed, weights, norm)
    scores = bm25_scores(index, query) if weights is None else tfidf_scores(index, query, weights, norm)
    return _top(scores, k, allowed)


def rank_columns(
    index: InvertedIndex, query: AnalyzedQuery, method: str, k: int, allowed: frozenset[int] | None,
    exhaustive: bool = False, kernel: str | None = None,
) -> tuple[list[int], list[float]]:
    """``rank`` as two lists, the positions and their scores: the same
    results, for callers that want neither pairs nor provenance (``Index.ranking``);
    the numpy kernel hands its two result arrays' lists over as they are."""
    if getattr(index, "shard_views", None) is None:
        columns = _numpy_columns(index, query, method, k, allowed, kernel)
        if columns is not None:
            return columns
        kernel = "python"  # as just resolved: rank need not resolve it again
    ranked = rank(index, query, method, k, allowed, exhaustive, kernel)
    return [position for position, _score in ranked], [score for _position, score in ranked]


def _numpy_columns(
    index: InvertedIndex, query: AnalyzedQuery, method: str, k: int, allowed: frozenset[int] | None,
    kernel: str | None,
) -> tuple[list[int], list[float]] | None:
    """The numpy kernel's (positions, scores) of one unsharded index, or None when the
    Python kernel ranks (``resolve_kernel``): where ``rank`` and ``rank_columns`` choose."""
    if resolve_kernel(kernel, lambda: _posting_count(index, query)) != "numpy":
        return None
    weights = tfidf_query_weights(index, query) if method != "bm25" else None
    norm = vector_norm(w for _t, w in weights) if weights else None
    return _vector_rank_columns(index, query, k, allowed, weights, norm)


def _dense_rank(
    index: InvertedIndex, query: AnalyzedQuery, k: int, allowed: frozenset[int] | None,
    weights: list[tuple[str, float]] | None, norm: float | None,
) -> list[tuple[int, float]]:
    """``rank``'s exhaustive sums in a dense accumulator (``regrag.scoring.dense_scores``: the same bits)."""
    postings = index.postings
    if weights is None:
        found = [p for p in map(postings.get, query.terms) if p is not None]
        return dense_bm25_top(found, index.passage_count, k, allowed)
    if not weights:
        return []
    return dense_tfidf_top([(postings[term], weight) for term, weight in weights], norm, index.tfidf_norms,
                           index.passage_count, k, allowed)


def _posting_count(index: InvertedIndex, query: AnalyzedQuery) -> int:
    """How many postings ranking ``query`` reads (its terms' lists, as either kernel fetches them);
    a loaded index counts them without scoring a term."""
    postings = index.postings
    if isinstance(postings, CachedPostings):
        return sum(map(postings.posting_count, query.terms))
    return sum(len(p.passages) for p in map(postings.get, query.terms) if p is not None)


def _vector_rank_columns(
    index: InvertedIndex, query: AnalyzedQuery, k: int, allowed: frozenset[int] | None,
    weights: list[tuple[str, float]] | None, norm: float | None,
) -> tuple[list[int], list[float]]:
    """``rank`` by the numpy kernel (exhaustive), from the same columns in the same term order,
    as two lists (positions, scores)."""
    kernel = vector_kernel()
    postings = index.postings
    if weights is None:
        found = [p for p in map(postings.get, query.terms) if p is not None]
        return kernel.bm25_top_columns([kernel.columns(p, "bm25_impacts") for p in found], index.passage_count, k,
                                       allowed)
    if not weights:
        return [], []
    columns = [(*kernel.columns(postings[term], "tfidf_weights"), weight) for term, weight in weights]
    return kernel.tfidf_top_columns(columns, norm, index.tfidf_norms, index.passage_count, k, allowed)
