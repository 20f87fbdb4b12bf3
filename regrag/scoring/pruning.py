"""Rank-safe pruning for BM25 and TF-IDF top-k (MaxScore, term at a time).

Both scores are sums of per-term contributions for a fixed passage: BM25's
precomputed impacts, and for TF-IDF cosine ``q_t * w_t,p / (|q| * |p|)`` (the
passage norm is fixed per passage, so the cosine is linear in the dot
product). Each term's contribution has an upper bound: its largest impact, or
``q_t / |q|`` times the largest ``w_t,p / |p|`` of its postings (both cached
on the postings on first use).

1. Discovery: query terms are taken by decreasing bound. Each term's
   postings are added to approximate partial sums, until at least ``k``
   passages have one and the ``k``-th best partial sum exceeds the sum of the
   bounds of the terms not yet taken (with a safety margin for rounding). No
   passage outside the candidates can then reach the top ``k``: its score is
   at most that sum, and the candidates' scores only grow.
2. The remaining terms' postings are added to the candidates only: by a scan
   of the list or a lookup (``bisect``) per candidate, whichever is cheaper.
   After each term the ``k``-th best partial sum is taken again (it only
   grows) and candidates whose partial sum plus every remaining bound falls
   below it are dropped.
3. Exact scores: for each remaining candidate, its contributions are looked
   up and summed from ``0.0`` in the canonical term order, then (TF-IDF)
   divided by ``|q| * |p|``: exactly what exhaustive scoring does, so the
   scores and the order are the same bits.

The margin: partial sums taken in another order (and TF-IDF contributions
divided term by term) differ from exact scores by a few units in the last
place; bounds are compared with a relative slack of 1e-9, far above any
rounding of a sum of tens of terms, so pruning may keep a few more candidates
than needed but never drops one that belongs.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from itertools import compress, repeat
from operator import mul, truediv
from typing import Callable, Iterable, Sequence

from regrag.scoring.topk import top_k

SLACK = 1e-9
# Pruning is tried when a query's lists hold at least MIN_POSTINGS postings
# and POSTINGS_PER_RESULT per requested result: below that, scanning every
# list costs less than pruning's bookkeeping. Measured on SciFact (300 test
# queries, about 4,400 postings a query, CPU time, best of 3, throwaway
# script): at 50 postings per result pruning ran at 1.22-1.27x the exhaustive
# rate for top-10 but 0.59-0.68x for top-100 (discovery rarely stops early
# there); at 200 per result top-10 still prunes (2,000 postings) and top-100
# does not. On the 100k-passage synthetic corpus lists are long enough for
# top-10 and top-100 to prune and gain (docs/performance.md).
MIN_POSTINGS = 0
POSTINGS_PER_RESULT = 200
# A remaining list is scanned instead of looked up per candidate when it holds
# fewer than this many postings per candidate (a lookup is a bisect, about
# eight times the cost of one posting scanned; measured on the 100k corpus).
SCAN_RATIO = 8
# The k-th best partial sum is taken again after each remaining term only while
# at most this many candidates are left (a full pass over more costs more than
# the candidates it would drop; correctness does not depend on it).
RAISE_LIMIT = 50_000


def max_impact(postings) -> float:
    """The largest BM25 impact of a term (cached on its postings)."""
    value = postings.max_bm25_impact
    if value is None:
        value = max(postings.bm25_impacts) if len(postings.bm25_impacts) else 0.0
        postings.max_bm25_impact = value
    return value


def max_normalised_weight(postings, norms: Sequence[float]) -> float:
    """The largest ``w_t,p / |p|`` of a term's postings (cached on its postings)."""
    value = postings.max_tfidf_ratio
    if value is None:
        positions = postings.passages
        value = max(map(truediv, postings.tfidf_weights, map(norms.__getitem__, positions))) if len(positions) else 0.0
        postings.max_tfidf_ratio = value
    return value


class _Term:
    """One query term as pruning sees it: its postings, its contribution's
    upper bound, and how to read its contributions."""

    __slots__ = ("name", "positions", "bound", "contributions", "contribution_at", "exact_values", "exact_at")

    def __init__(
        self,
        name: str,
        positions: Sequence[int],
        bound: float,
        contributions: Callable[[], Iterable[float]],
        contribution_at: Callable[[int, int], float],
        exact_values: Callable[[], Iterable[float]],
        exact_at: Callable[[int], float],
    ) -> None:
        self.name = name
        self.positions = positions
        self.bound = bound
        self.contributions = contributions  # one per posting, in posting order
        self.contribution_at = contribution_at  # (index in the list, position) -> contribution
        # what exhaustive scoring adds for each posting (impact, or q_t * w_t,p)
        self.exact_values = exact_values
        self.exact_at = exact_at


def _bm25_term(term: str, postings) -> _Term:
    """BM25: a posting contributes its precomputed impact, exactly."""
    impacts: Sequence[float] = postings.bm25_impacts

    def all_impacts() -> Iterable[float]:
        return impacts

    def impact_at(at: int, _position: int) -> float:
        return impacts[at]

    return _Term(term, postings.passages, max_impact(postings), all_impacts, impact_at, all_impacts, impacts.__getitem__)


def _tfidf_term(term: str, scale: float, query_weight: float, postings, norms: Sequence[float]) -> _Term:
    """TF-IDF cosine: a posting contributes about ``w * scale / |p|`` (scale
    = ``q_t / |q|``); exhaustive scoring adds ``q_t * w`` to the dot product."""
    weights: Sequence[float] = postings.tfidf_weights
    positions: Sequence[int] = postings.passages

    def contributions() -> Iterable[float]:
        # computed in C: w * scale / |p| for every posting
        return map(truediv, map(mul, weights, repeat(scale)), map(norms.__getitem__, positions))

    def contribution_at(at: int, position: int) -> float:
        return weights[at] * scale / norms[position]

    def products() -> Iterable[float]:
        return map(mul, repeat(query_weight), weights)

    def product_at(at: int) -> float:
        return query_weight * weights[at]

    bound = scale * max_normalised_weight(postings, norms)
    return _Term(term, positions, bound, contributions, contribution_at, products, product_at)


def _worth_pruning(lists: list[Sequence[int]], k: int, min_postings: int | None) -> bool:
    """Three terms or more, and ``min_postings`` postings (default: the larger
    of MIN_POSTINGS and POSTINGS_PER_RESULT per requested result)."""
    if min_postings is None:
        min_postings = max(MIN_POSTINGS, POSTINGS_PER_RESULT * k)
    return len(lists) >= 3 and sum(map(len, lists)) >= min_postings


def pruned_bm25_top(
    index, terms: tuple[str, ...], k: int, min_postings: int | None = None, scan_ratio: float = SCAN_RATIO
) -> list[tuple[int, float]] | None:
    """The exhaustive BM25 top ``k`` (position, score), or None when pruning
    would not save work (fewer than three terms, or short lists)."""
    present = [(term, index.postings[term]) for term in terms if term in index.postings]
    if not _worth_pruning([postings.passages for _t, postings in present], k, min_postings):
        return None
    plan = [_bm25_term(term, postings) for term, postings in present]
    candidates = _candidates(plan, k, scan_ratio)
    # exact scores: summed in canonical term order exactly as bm25_scores does
    return _best(_exact_sums(sorted(plan, key=lambda term: term.name), candidates, scan_ratio), k)


def pruned_tfidf_top(
    index,
    weights: list[tuple[str, float]],
    query_norm: float,
    k: int,
    min_postings: int | None = None,
    scan_ratio: float = SCAN_RATIO,
) -> list[tuple[int, float]] | None:
    """The exhaustive TF-IDF cosine top ``k`` (position, score) for the query
    ``weights`` (term, query weight; in ``tfidf_scores``' order) and the
    query's norm, or None when pruning would not save work."""
    present = [(term, weight, index.postings[term]) for term, weight in weights]
    if not _worth_pruning([postings.passages for _t, _w, postings in present], k, min_postings):
        return None
    norms = index.tfidf_norms
    plan = [_tfidf_term(term, query_weight / query_norm, query_weight, postings, norms) for term, query_weight, postings in present]
    candidates = _candidates(plan, k, scan_ratio)
    # exact scores: dot products summed in the query's term order from 0.0,
    # then divided by |q| * |p|, exactly as tfidf_scores does
    dots = _exact_sums(plan, candidates, scan_ratio)
    return _best({position: dot / (query_norm * norms[position]) for position, dot in dots.items()}, k)


def _best(scores: dict[int, float], k: int) -> list[tuple[int, float]]:
    return top_k(scores, k)


def _candidates(plan: list[_Term], k: int, scan_ratio: float) -> list[int]:
    """Steps 1 and 2: the passages that may belong to the top ``k``. When
    discovery scans every list, the partial sums are complete (up to rounding)
    and the candidates are the passages within the slack of the k-th best."""
    by_bound = sorted(plan, key=lambda term: (-term.bound, term.name))
    bounds = [term.bound for term in by_bound]
    remaining = [math.fsum(bounds[i:]) for i in range(len(bounds) + 1)]
    partial: dict[int, float] = {}
    taken = 0
    for taken, term in enumerate(by_bound):
        # stop once k partial sums exceed every unseen passage's bound (counted in C)
        bar = remaining[taken] * (1.0 + SLACK)
        if len(partial) >= k and sum(map(bar.__lt__, partial.values())) >= k:
            break
        get = partial.get
        for position, value in zip(term.positions, term.contributions()):
            partial[position] = get(position, 0.0) + value
    else:
        taken = len(by_bound)  # every list scanned: the partial sums are complete
        bar = -math.inf
    if len(partial) >= k:
        # at a stop, at least k partial sums exceed the bar, so the k-th best is among those (kept in C)
        values = partial.values()
        above: Iterable[float] = list(compress(values, map(bar.__lt__, values))) if bar > -math.inf else values
        threshold = heapq.nlargest(k, above)[-1]
        cut = _cut(threshold, remaining[taken])
        candidates = list(compress(partial.keys(), map(cut.__le__, partial.values())))
    else:
        threshold = -math.inf
        candidates = list(partial)
    for index_in_order in range(taken, len(by_bound)):
        term = by_bound[index_in_order]
        positions = term.positions
        count = len(positions)
        if len(candidates) * scan_ratio > count:
            # many candidates: one pass over the list costs less than a
            # lookup per candidate (dropped passages may gain too: harmless)
            get = partial.get
            for position, value in zip(positions, term.contributions()):
                found = get(position)
                if found is not None:
                    partial[position] = found + value
        else:
            contribution_at = term.contribution_at
            for position in candidates:
                at = bisect_left(positions, position)
                if at < count and positions[at] == position:
                    partial[position] += contribution_at(at, position)
        # the candidates' partial sums only grew: the k-th best is a higher bar
        if k <= len(candidates) <= RAISE_LIMIT:
            threshold = max(threshold, heapq.nlargest(k, map(partial.__getitem__, candidates))[-1])
        candidates = _survivors(candidates, partial, remaining[index_in_order + 1], threshold)
    return candidates


def _cut(threshold: float, bound: float) -> float:
    """The smallest partial sum that, with ``bound`` still to come, may reach
    ``threshold``: ``(partial + bound) * (1 + SLACK) >= threshold``, solved for
    the partial sum with the slack applied twice over (conservative)."""
    cut = threshold / (1.0 + SLACK) - bound
    return cut - (abs(cut) * SLACK + bound * SLACK)


def _survivors(candidates: list[int], partial: dict[int, float], bound: float, threshold: float) -> list[int]:
    """The candidates whose partial sum plus ``bound`` (what the terms not yet
    added can still give) may reach ``threshold`` (compared in C)."""
    if threshold == -math.inf:
        return candidates
    cut = _cut(threshold, bound)
    return list(compress(candidates, map(cut.__le__, map(partial.__getitem__, candidates))))


def _exact_sums(terms: list[_Term], candidates: list[int], scan_ratio: float) -> dict[int, float]:
    """Step 3: each candidate's sum of exact values, added from ``0.0`` in the
    order of ``terms`` (term by term, so every candidate's additions happen in
    that order, whether a list is scanned or looked up)."""
    sums: dict[int, float] = {}
    get = sums.get
    wanted = set(candidates)
    for term in terms:
        positions = term.positions
        count = len(positions)
        if len(candidates) * scan_ratio > count:
            for position, value in zip(positions, term.exact_values()):
                if position in wanted:
                    sums[position] = get(position, 0.0) + value
        else:
            exact_at = term.exact_at
            for position in candidates:
                at = bisect_left(positions, position)
                if at < count and positions[at] == position:
                    sums[position] = get(position, 0.0) + exact_at(at)
    return sums
