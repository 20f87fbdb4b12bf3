"""Rank-safe pruning for BM25 and TF-IDF top-k (MaxScore, term at a time).

Both scores are sums of per-term contributions for a fixed passage: BM25's
precomputed impacts, and for TF-IDF cosine ``q_t * w_t,p / (|q| * |p|)`` (the
passage norm is fixed per passage, so the cosine is linear in the dot
product). Each term's contribution has an upper bound: its largest impact, or
``q_t / |q|`` times the largest ``w_t,p / |p|`` of its postings (both cached
on the postings on first use).

Partial sums hold what exhaustive scoring adds per posting (the impact, or
``q_t * w_t,p``), so a posting costs pruning what it costs exhaustive
scoring; TF-IDF partial dot products are divided by ``|q| * |p|`` only where
they are compared with bounds (a stopping test, a cut), in C.

1. Discovery: query terms are taken by decreasing bound. Each term's
   postings are added to approximate partial sums, until at least ``k``
   passages have one and the ``k``-th best partial sum exceeds the sum of the
   bounds of the terms not yet taken (with a safety margin for rounding). No
   passage outside the candidates can then reach the top ``k``: its score is
   at most that sum, and the candidates' scores only grow.
2. The remaining terms' postings are added to the candidates only: by a scan
   of the list or a lookup (``bisect``) per candidate, whichever is cheaper.
   The ``k``-th best partial sum is taken again now and then (it only grows)
   and candidates whose partial sum plus every remaining bound falls below it
   are dropped.
3. Exact scores: for each remaining candidate, its contributions are looked
   up and summed from ``0.0`` in the canonical term order, then (TF-IDF)
   divided by ``|q| * |p|``: exactly what exhaustive scoring does, so the
   scores and the order are the same bits.

How much of this is done, and whether it is tried at all, is decided by a
cost model (``regrag.scoring.pruning_cost``) so that pruning never costs much
more than exhaustive scoring; it decides only how the exact top k is found.

The margin: partial sums taken in another order (and divided by the norms at
another point) differ from exact scores by a few units in the last place;
bounds are compared with a relative slack of 1e-9, far above any rounding of
a sum of up to ``MAX_TERMS`` terms, so pruning may keep a few more candidates
than needed but never drops one that belongs.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from itertools import compress, repeat
from operator import ge, getitem, mul, truediv
from typing import Callable, Iterable, Sequence

from regrag.scoring.pruning_cost import (
    FILTER_COST, MAX_TERMS, PASS_COST_BM25, PASS_COST_TFIDF, TEST_COST, exact_cost, stopping_savings, suffix_bounds,
    worth_pruning, worth_pruning_bounded,
)
from regrag.scoring.tfidf import cosines
from regrag.scoring.topk import kth_largest, top_k

SLACK = 1e-9
# A remaining list is scanned instead of looked up per candidate when it holds
# fewer than this many postings per candidate (a lookup is a bisect, about
# eight times the cost of one posting scanned; measured on the 100k corpus).
# The cost model (regrag.scoring.pruning_cost) counts a lookup as this many units.
SCAN_RATIO = 8
# Share of the work done on the remaining lists that may be spent on raising
# the bar and dropping candidates between them (correctness does not depend on it).
FILTER_SHARE = 0.1

# (positions, partial sums) -> the partial sums in the bounds' units
View = Callable[[Iterable[int], Iterable[float]], Iterable[float]]


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
        value = max(map(truediv, postings.tfidf_weights, map(getitem, repeat(norms), positions))) if len(positions) else 0.0
        postings.max_tfidf_ratio = value
    return value


class _Term:
    """One query term as pruning sees it: its postings, its contribution's
    upper bound (in the view's units), and what exhaustive scoring adds for
    each posting (the impact, or ``q_t * w_t,p``)."""

    __slots__ = ("name", "positions", "bound", "values", "value_at")

    def __init__(self, name: str, positions: Sequence[int], bound: float,
                 values: Callable[[], Iterable[float]], value_at: Callable[[int], float]) -> None:
        self.name = name
        self.positions = positions
        self.bound = bound
        self.values = values  # one per posting, in posting order
        self.value_at = value_at  # index in the list -> value


def _bm25_term(term: str, postings) -> _Term:
    impacts: Sequence[float] = postings.bm25_impacts
    return _Term(term, postings.passages, max_impact(postings), lambda: impacts, impacts.__getitem__)


def _tfidf_term(term: str, query_weight: float, query_norm: float, postings, norms: Sequence[float]) -> _Term:
    weights: Sequence[float] = postings.tfidf_weights

    def products() -> Iterable[float]:
        return map(mul, repeat(query_weight), weights)  # in C, as tfidf_scores does

    def product_at(at: int) -> float:
        return query_weight * weights[at]

    bound = query_weight / query_norm * max_normalised_weight(postings, norms)
    return _Term(term, postings.passages, bound, products, product_at)


def _identity_view(_positions: Iterable[int], values: Iterable[float]) -> Iterable[float]:
    return values


def _cosine_view(query_norm: float, norms: Sequence[float]) -> View:
    """Partial dot products as partial cosines: ``dot / (|q| * |p|)``, in C."""
    def view(positions: Iterable[int], dots: Iterable[float]) -> Iterable[float]:
        return cosines(dots, query_norm, map(getitem, repeat(norms), positions))
    return view


def pruned_bm25_top(
    index, terms: tuple[str, ...], k: int, min_postings: int | None = None, scan_ratio: float = SCAN_RATIO
) -> list[tuple[int, float]] | None:
    """The exhaustive BM25 top ``k`` (position, score), or None when pruning
    would not save work (the cost model says so, before or during pruning).
    ``min_postings`` (for tests) replaces the cost model by a plain gate:
    three terms or more and at least that many postings."""
    if len(terms) < 3:
        return None
    entries = list(map(index.postings.get, terms))
    if not _worth_trying([len(entry.passages) for entry in entries if entry is not None], k, min_postings, scan_ratio):
        return None
    plan = [_bm25_term(term, entry) for term, entry in zip(terms, entries) if entry is not None]
    candidates = _candidates(plan, _identity_view, k, scan_ratio, min_postings is not None, len(index.passages))
    if candidates is None:
        return None
    # exact scores: summed in canonical term order exactly as bm25_scores does
    return top_k(_exact_sums(sorted(plan, key=lambda term: term.name), candidates, scan_ratio), k)


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
    if len(weights) < 3:
        return None
    entries = [index.postings[term] for term, _w in weights]
    if not _worth_trying([len(entry.passages) for entry in entries], k, min_postings, scan_ratio):
        return None
    norms = index.tfidf_norms
    plan = [_tfidf_term(term, weight, query_norm, entry, norms) for (term, weight), entry in zip(weights, entries)]
    candidates = _candidates(plan, _cosine_view(query_norm, norms), k, scan_ratio, min_postings is not None,
                             len(index.passages))
    if candidates is None:
        return None
    # exact scores: dot products summed in the query's term order from 0.0,
    # then divided by |q| * |p|, exactly as tfidf_scores does
    dots = _exact_sums(plan, candidates, scan_ratio)
    return top_k(dict(zip(dots, cosines(dots.values(), query_norm, map(getitem, repeat(norms), dots)))), k)


def _worth_trying(counts: list[int], k: int, min_postings: int | None, scan_ratio: float) -> bool:
    """The cost model's first check (``worth_pruning``), made on the list
    lengths before anything is built. ``min_postings`` (for tests) replaces
    it by a plain gate: three terms or more and that many postings."""
    if min_postings is not None:
        return len(counts) >= 3 and sum(counts) >= min_postings
    return worth_pruning(counts, k, scan_ratio)


def _candidates(plan: list[_Term], view: View, k: int, scan_ratio: float, forced: bool,
                passages: int) -> list[int] | None:
    """Steps 1 and 2: the passages that may belong to the top ``k``, or None
    when the cost model gives up (never when ``forced``). When discovery
    scans every list, the partial sums are complete (up to rounding) and the
    candidates are the passages within the slack of the k-th best."""
    if len(plan) > MAX_TERMS:
        return None
    by_bound = sorted(plan, key=lambda term: (-term.bound, term.name))
    counts = [len(term.positions) for term in by_bound]
    remaining = suffix_bounds([term.bound for term in by_bound])
    pass_cost = PASS_COST_BM25 if view is _identity_view else PASS_COST_TFIDF
    if not forced and not worth_pruning_bounded(counts, remaining, k, scan_ratio, pass_cost, passages):
        return None
    partial, taken, threshold, values = _discover(by_bound, view, counts, remaining, k, scan_ratio, forced)
    if threshold > -math.inf:
        cut = _cut(threshold, remaining[taken])
        candidates = list(compress(partial.keys(), map(ge, values, repeat(cut))))
    else:
        candidates = list(partial)
    if taken < len(by_bound):
        candidates = _add_remaining(by_bound, view, taken, remaining, partial, candidates, threshold, k, scan_ratio)
    if not forced and exact_cost(counts, len(candidates), scan_ratio) > sum(counts):
        return None  # summing the survivors exactly would cost more than scoring every posting
    return candidates


def _discover(
    by_bound: list[_Term], view: View, counts: list[int], remaining: list[float], k: int, scan_ratio: float,
    forced: bool,
) -> tuple[dict[int, float], int, float, list[float]]:
    """Step 1: partial sums of the lists taken by decreasing bound, until the
    k-th best partial sum exceeds the bound of every list not taken.
    Returns the partial sums, the number of lists taken, the k-th best
    partial sum (-inf when fewer than k passages were seen) and the partial
    sums in the bounds' units (in the dictionary's order).

    The stopping test costs a pass over the partial sums, so it is run only
    when it can succeed: the k-th best partial sum is at most the k-th best
    at the last test (0.0 before any) plus the bounds of the lists added
    since, and the test is skipped while that is below the bar. Unless
    ``forced``, it is also skipped when stopping could not save what the test
    costs. Skipping a test never changes the result, only when discovery stops."""
    savings = stopping_savings(counts, k, scan_ratio)
    partial: dict[int, float] = {}
    last_kth = 0.0  # every contribution is >= 0
    gained = 0.0
    for taken, term in enumerate(by_bound):
        bar = remaining[taken] * (1.0 + SLACK)
        if (len(partial) >= k and (last_kth + gained) * (1.0 + 1e-6) > bar
                and (forced or TEST_COST * len(partial) <= savings[taken])):
            values = list(view(partial.keys(), partial.values()))
            kth = kth_largest(values, k)
            if kth > bar:
                # at least k partial sums exceed every unseen passage's bound
                return partial, taken, kth, values
            last_kth, gained = kth, 0.0
        if taken == 0:
            partial = dict(zip(term.positions, term.values()))  # in C, as exhaustive scoring does (0.0 + x == x)
        else:
            get = partial.get
            for position, value in zip(term.positions, term.values()):
                partial[position] = get(position, 0.0) + value
        gained += term.bound
    # every list scanned: the partial sums are complete
    values = list(view(partial.keys(), partial.values()))
    return partial, len(by_bound), kth_largest(values, k) if len(values) >= k else -math.inf, values


def _add_remaining(
    by_bound: list[_Term], view: View, taken: int, remaining: list[float], partial: dict[int, float],
    candidates: list[int], threshold: float, k: int, scan_ratio: float,
) -> list[int]:
    """Step 2: the lists not taken, added to the candidates only: by a scan
    of the list or a lookup per candidate, whichever is cheaper. The k-th
    best candidate is a bar that only rises; candidates that cannot reach it
    with the bounds still to come are dropped when that costs less than a
    share of the work it may save (always before a list that is looked up,
    and after the last list)."""
    budget = 0.0
    members: set[int] | None = None
    last_bound = remaining[taken]  # the bound still to come at the last cut
    for index_in_order in range(taken, len(by_bound)):
        term = by_bound[index_in_order]
        positions = term.positions
        count = len(positions)
        lookup = len(candidates) * scan_ratio <= count
        # worth it before a lookup, when the bound to come has halved since
        # the last cut (the cut has moved up) and the filter costs less than
        # the list, or within the budget
        if index_in_order > taken and (
                lookup or budget >= FILTER_COST * len(candidates)
                or (2 * remaining[index_in_order] <= last_bound and FILTER_COST * len(candidates) <= count)):
            before = len(candidates)
            threshold, candidates = _filter(candidates, view, partial, remaining[index_in_order], threshold, k)
            budget, last_bound = 0.0, remaining[index_in_order]
            if len(candidates) != before:
                members = None
                lookup = len(candidates) * scan_ratio <= count
        if lookup:
            value_at = term.value_at
            for position in candidates:
                at = bisect_left(positions, position)
                if at < count and positions[at] == position:
                    partial[position] += value_at(at)
            budget += FILTER_SHARE * len(candidates) * scan_ratio
        elif 2 * len(candidates) <= len(partial):
            if members is None:
                members = set(candidates)
            # one pass over the list; only candidates reach the loop (membership tested in C)
            for position, value in compress(zip(positions, term.values()), map(members.__contains__, positions)):
                partial[position] += value
            budget += FILTER_SHARE * count
        else:
            # most passages seen are candidates: one pass (dropped passages gain too: harmless)
            get = partial.get
            for position, value in zip(positions, term.values()):
                found = get(position)
                if found is not None:
                    partial[position] = found + value
            budget += FILTER_SHARE * count
    return _filter(candidates, view, partial, 0.0, threshold, k)[1]


def _filter(candidates: list[int], view: View, partial: dict[int, float], bound: float, threshold: float,
            k: int) -> tuple[float, list[int]]:
    """The k-th best candidate's partial sum as the new bar (it only rises),
    and the candidates that, with ``bound`` still to come, may reach it
    (compared in C)."""
    values: Iterable[float] = view(candidates, map(partial.__getitem__, candidates))
    if len(candidates) >= k:
        values = list(values)
        threshold = max(threshold, kth_largest(values, k))
    if threshold == -math.inf:
        return threshold, candidates
    cut = _cut(threshold, bound)
    return threshold, list(compress(candidates, map(ge, values, repeat(cut))))


def _cut(threshold: float, bound: float) -> float:
    """The smallest partial sum that, with ``bound`` still to come, may reach
    ``threshold``: ``(partial + bound) * (1 + SLACK) >= threshold``, solved for
    the partial sum with the slack applied twice over (conservative)."""
    cut = threshold / (1.0 + SLACK) - bound
    return cut - (abs(cut) * SLACK + bound * SLACK)


def _exact_sums(terms: list[_Term], candidates: list[int], scan_ratio: float) -> dict[int, float]:
    """Step 3: each candidate's sum of exact values, added from ``0.0`` in the
    order of ``terms`` (term by term, so every candidate's additions happen in
    that order, whether a list is scanned or looked up)."""
    sums: dict[int, float] = {}
    get = sums.get
    wanted: set[int] | None = None
    for term in terms:
        positions = term.positions
        count = len(positions)
        if len(candidates) * scan_ratio > count:
            if wanted is None:
                wanted = set(candidates)
            # only the candidates' postings reach the loop (membership tested in C)
            for position, value in compress(zip(positions, term.values()), map(wanted.__contains__, positions)):
                sums[position] = get(position, 0.0) + value
        else:
            value_at = term.value_at
            for position in candidates:
                at = bisect_left(positions, position)
                if at < count and positions[at] == position:
                    sums[position] = get(position, 0.0) + value_at(at)
    return sums
