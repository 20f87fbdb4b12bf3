"""Rank-safe pruning for BM25 top-k (MaxScore, term at a time).

1. Discovery: query terms are taken by decreasing maximum impact. Each
   term's postings are added to approximate partial sums, until at least
   ``k`` passages have one and the ``k``-th best partial sum exceeds the sum
   of the maximum impacts of the terms not yet taken (with a safety margin
   for rounding). No passage outside the candidates can then reach the top
   ``k``: its score is at most that sum, and the candidates' scores only grow.
   The remaining terms' postings are not scanned; candidates whose partial
   sum plus every remaining maximum falls below the ``k``-th best partial sum
   are dropped as the terms are looked up.
2. Exact scores: for each remaining candidate, its impacts are looked up
   (``bisect`` in the sorted postings) and summed from ``0.0`` in the
   canonical term order, which is exactly what exhaustive scoring does, so
   the scores and the order are the same bits.

The margin: partial sums taken in another order differ from exact ones by a
few units in the last place; bounds are compared with a relative slack of
1e-9, far above any rounding of a sum of tens of terms, so pruning may keep
a few more candidates than needed but never drops one that belongs.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from operator import neg

SLACK = 1e-9
# Pruning is tried when a query's lists hold at least MIN_POSTINGS postings
# and POSTINGS_PER_RESULT per requested result: below that, scanning every
# list costs less than pruning's bookkeeping. Measured on SciFact (300 test
# queries, about 4,400 postings a query, CPU time, best of 3): top-10 1,463 q/s
# exhaustive, 1,853 pruned with no minimum, 1,438 with a 20,000 minimum; top-1000
# 680 exhaustive, and 220 pruned at 3 postings per result (so 50 stays).
MIN_POSTINGS = 0
POSTINGS_PER_RESULT = 50
# A remaining list is scanned instead of looked up per candidate when it holds
# fewer than this many postings per candidate (a lookup is a bisect, about
# eight times the cost of one posting scanned; measured on the 100k corpus).
SCAN_RATIO = 8


def max_impact(postings) -> float:
    """The largest BM25 impact of a term (cached on its postings)."""
    value = postings.max_bm25_impact
    if value is None:
        value = max(postings.bm25_impacts) if len(postings.bm25_impacts) else 0.0
        postings.max_bm25_impact = value
    return value


def pruned_bm25_top(
    index, terms: tuple[str, ...], k: int, min_postings: int = MIN_POSTINGS, scan_ratio: float = SCAN_RATIO
) -> list[tuple[int, float]] | None:
    """The exhaustive top ``k`` (position, score), or None when pruning would
    not save work (few terms or postings, or the threshold is never reached)."""
    present = [(term, index.postings[term]) for term in terms if term in index.postings]
    if len(present) < 3:
        return None
    if sum(len(postings.passages) for _term, postings in present) < max(min_postings, POSTINGS_PER_RESULT * k):
        return None
    by_bound = sorted(present, key=lambda item: (-max_impact(item[1]), item[0]))
    bounds = [max_impact(postings) for _term, postings in by_bound]
    remaining = [math.fsum(bounds[i:]) for i in range(len(bounds) + 1)]
    partial: dict[int, float] = {}
    taken = 0
    for taken, (_term, postings) in enumerate(by_bound):
        if len(partial) >= k:
            threshold = heapq.nlargest(k, partial.values())[-1]
            if threshold > remaining[taken] * (1.0 + SLACK):
                break
        get = partial.get
        for position, impact in zip(postings.passages, postings.bm25_impacts):
            partial[position] = get(position, 0.0) + impact
    else:
        return None  # every list was scanned: exhaustive scoring costs no more
    threshold = heapq.nlargest(k, partial.values())[-1]
    candidates = list(partial)
    for index_in_order in range(taken, len(by_bound)):
        postings = by_bound[index_in_order][1]
        positions, impacts = postings.passages, postings.bm25_impacts
        count = len(positions)
        if len(candidates) * scan_ratio > count:
            # many candidates: one pass over the list costs less than a
            # lookup per candidate (dropped passages may gain too: harmless)
            get = partial.get
            for position, impact in zip(positions, impacts):
                value = get(position)
                if value is not None:
                    partial[position] = value + impact
        else:
            for position in candidates:
                at = bisect_left(positions, position)
                if at < count and positions[at] == position:
                    partial[position] += impacts[at]
        # the candidates' partial sums only grew: the k-th best is a higher bar
        if len(candidates) >= k:
            threshold = max(threshold, heapq.nlargest(k, map(partial.__getitem__, candidates))[-1])
        after = remaining[index_in_order + 1]
        candidates = [p for p in candidates if (partial[p] + after) * (1.0 + SLACK) >= threshold]
    # exact scores, summed in canonical term order exactly as bm25_scores does
    canonical = sorted(present)
    scores: dict[int, float] = {}
    for position in candidates:
        total = None
        for _term, postings in canonical:
            positions = postings.passages
            at = bisect_left(positions, position)
            if at < len(positions) and positions[at] == position:
                impact = postings.bm25_impacts[at]
                total = impact if total is None else total + impact
        scores[position] = total if total is not None else 0.0
    best = heapq.nsmallest(k, zip(map(neg, scores.values()), scores))
    return [(position, -negated) for negated, position in best]
