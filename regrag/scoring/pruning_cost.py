"""The cost model that keeps rank-safe pruning from costing more than
exhaustive scoring (``regrag.scoring.pruning``).

Costs are counted in *units*: one unit is one posting added to the score
dictionary by exhaustive scoring's loop (about 0.1-0.3 µs on the machines
measured), so exhaustive scoring of a query costs about its number of
postings. The other operations, measured against that loop on SciFact and the
100k-passage synthetic corpus (``bench/pruning_sweep.py``; CPU time, best of
three):

- ``TEST_COST``: finding the k-th best of the partial sums (``heapq.nlargest``
  over the dictionary's values when measured; ``topk.kth_largest`` since, which
  is cheaper, so the constant errs on the safe side), per partial sum;
- ``MEMBER_COST``: skipping a posting whose passage is not a candidate (a set
  membership test run in C by ``itertools.compress``), per posting;
- ``FILTER_COST``: raising the k-th best bar and dropping the candidates that
  cannot reach it, per candidate;
- ``PASS_COST_BM25`` / ``PASS_COST_TFIDF``: one pass over the partial sums
  in the bounds' units (TF-IDF divides each by ``|q| * |p|``), per partial sum;
- a lookup (``bisect`` plus the addition) costs ``scan_ratio`` units, the
  ratio pruning already uses to choose between scanning a list and looking
  its candidates up (``SCAN_RATIO``).

Pruning's work beyond exhaustive scoring is then bounded in three places:

1. before any work, ``worth_pruning``: pruning is tried only when what it may
   save (the postings of every list but the first, minus what adding them to
   ``k`` candidates costs) exceeds what it must spend whatever happens
   (summing the ``k`` best candidates exactly, once more, in canonical
   order), and that spending is at most ``MAX_EXTRA`` of the exhaustive work;
   then, once the bounds are known (``worth_pruning_bounded``), only the
   lists after the point where the bounds taken outweigh those left can be
   saved, and ``PASSES`` passes over the partial sums are counted against it;
2. during discovery, a stopping test (the cost of which grows with the number
   of partial sums, not with the work saved) is run only when it could
   succeed (the last k-th best plus the bounds added since exceeds the bar)
   and only when stopping there could save more than the test costs;
3. before the exact sums, pruning gives up (and the caller scores
   exhaustively) when summing the surviving candidates would cost more than
   scoring every posting afresh.

None of this changes a result: pruning returns exactly the exhaustive top k
or nothing, and the cost model only decides how much work is done to get it.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Sequence

TEST_COST = 0.15
# A pass over the partial sums in the bounds' units (a stopping test, a cut,
# a filter): BM25 compares them as they are, TF-IDF divides each by the norms.
PASS_COST_BM25 = 0.35
PASS_COST_TFIDF = 0.7
PASSES = 6
MEMBER_COST = 0.3
FILTER_COST = 0.3
# Pruning's unavoidable extra work (the exact sums of k candidates) may be at
# most this share of the exhaustive work, so that a query on which pruning
# saves nothing costs at most about 1 + MAX_EXTRA times exhaustive scoring.
MAX_EXTRA = 0.05
# Bookkeeping that does not grow with the postings (sorting the terms by
# bound, the suffix sums, the final selection), in units.
FIXED_COST = 200.0
# Pruning is not tried beyond this many terms: the rounding slack (1e-9,
# relative) must stay far above the rounding of sums of that many terms.
MAX_TERMS = 100_000


def suffix_bounds(bounds: Sequence[float]) -> list[float]:
    """``result[i]`` >= the exact sum of ``bounds[i:]`` (``result[n]`` = 0.0),
    in linear time: summed from the end in floating point, then enlarged by
    the worst relative rounding of ``n`` additions of non-negative numbers
    (``(n + 2) * 2**-52``), so each is an upper bound, never an underestimate."""
    factor = 1.0 + (len(bounds) + 2) * 2.0**-52
    sums = list(accumulate(reversed(bounds)))
    sums.reverse()
    return [value * factor for value in sums] + [0.0]


def worth_pruning(counts: Sequence[int], k: int, scan_ratio: float) -> bool:
    """Whether pruning may pay for a query whose lists hold ``counts``
    postings: step 1 above. It needs only the list lengths, so it is made
    before any bound is looked at."""
    if len(counts) < 3 or len(counts) > MAX_TERMS:
        return False
    total = sum(counts)
    if MAX_EXTRA * total < FIXED_COST + len(counts) * k * min(1.0, scan_ratio):
        return False  # the extra work below is at least that much: decided without a pass over counts
    lookup = k * scan_ratio
    # the k best candidates are summed exactly once more, list by list
    costs = [min(count * MEMBER_COST + k, lookup) for count in counts]
    extra = sum(costs) + FIXED_COST
    if extra > MAX_EXTRA * total:
        return False
    # at best discovery stops after its first list (which one is not known
    # yet: the one that saves least is left out) and k candidates remain
    saved = [count - cost for count, cost in zip(counts, costs)]
    return sum(saved) - min(saved) > extra


def worth_pruning_bounded(counts_by_bound: Sequence[int], remaining: Sequence[float], k: int, scan_ratio: float,
                          pass_cost: float, passages: int) -> bool:
    """The second check, once the bounds are known (``remaining[i]``: the sum
    of the bounds of lists ``i`` and later, in bound order): discovery cannot
    stop before the lists taken outweigh those left (the k-th best partial
    sum is at most the sum of the bounds taken), so only the lists after that
    point can be saved, and by then there may be as many partial sums as
    postings taken (at most ``passages``); stopping tests, the cut and the
    first filters pass over them (``PASSES`` passes of ``pass_cost`` units,
    as counted on SciFact's frequent-term queries)."""
    total = remaining[0]
    first = next((i for i in range(1, len(counts_by_bound) + 1) if total - remaining[i] >= remaining[i]),
                 len(counts_by_bound))
    lookup = k * scan_ratio
    gain = sum(count - min(count * MEMBER_COST + k, lookup) for count in counts_by_bound[first:])
    extra = sum(min(count * MEMBER_COST + k, lookup) for count in counts_by_bound) + FIXED_COST
    return gain > extra + PASSES * pass_cost * min(passages, sum(counts_by_bound[:first]))


def exact_cost(counts: Sequence[int], candidates: int, scan_ratio: float) -> float:
    """What summing ``candidates`` passages exactly over lists of ``counts``
    postings costs (each list scanned or looked up, whichever is cheaper)."""
    lookup = candidates * scan_ratio
    return sum(min(count * MEMBER_COST + candidates, lookup) for count in counts) + FILTER_COST * candidates


def stopping_savings(counts_by_bound: Sequence[int], k: int, scan_ratio: float) -> list[float]:
    """``result[i]``: at most what stopping discovery before list ``i`` saves
    (each later list then costs at least adding it to ``k`` candidates)."""
    lookup = k * scan_ratio
    saved = [count - min(count * MEMBER_COST + k, lookup) for count in counts_by_bound]
    sums = list(accumulate(reversed(saved)))
    sums.reverse()
    return sums + [0.0]
