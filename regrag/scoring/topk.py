"""Top-k selection in regrag's total order: score descending, then position
(the passage's place in (document id, passage number) order) ascending."""

from __future__ import annotations

import heapq
from itertools import compress
from typing import Mapping


def top_k(scores: Mapping[int, float], k: int) -> list[tuple[int, float]]:
    """The ``k`` best (position, score) pairs of ``scores``.

    The k-th best score is found among the bare floats (compared in C, faster
    than tuples); every position scoring at least that much is kept (so ties
    at the boundary are all present), sorted by position, then stably by
    score descending: exactly score descending, position ascending."""
    if len(scores) > k:
        values = scores.values()
        kth = heapq.nlargest(k, values)[-1] if len(scores) > 4 * k else sorted(values)[-k]
        keys = sorted(compress(scores.keys(), map(kth.__le__, scores.values())))  # score >= kth, in C
    else:
        keys = sorted(scores)
    keys.sort(key=scores.__getitem__, reverse=True)
    return [(position, scores[position]) for position in keys[:k]]
