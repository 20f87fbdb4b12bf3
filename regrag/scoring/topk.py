"""Top-k selection in regrag's total order: score descending, then position
(the passage's place in (document id, passage number) order) ascending.

Finding the k-th best of n scores is the costly step when n is much larger
than k. A *bar* no higher than the k-th best is enough to select: every
passage scoring at least the bar is kept, so the top k and every tie at the
boundary are among them. The k-th best of a stride sample of the scores is
such a bar (a subset's k-th best is never above the whole set's); it is found
by sorting the sample only (in C), and about ``sqrt(n·k)`` scores pass it.
Comparisons run in C through ``operator`` functions (``map(ge, values,
repeat(bar))``), about twice as fast as a bound method such as ``bar.__le__``,
which CPython calls through a slot wrapper with an argument tuple.
"""

from __future__ import annotations

import math
from itertools import compress, repeat
from operator import ge
from typing import Mapping, Sequence


def kth_largest_bar(values: Sequence[float], k: int) -> float:
    """A value no greater than the ``k``-th largest of ``values`` (at least
    ``k`` of them): the ``k``-th largest of every ``step``-th value, ``step``
    about ``sqrt(n/k)`` (exactly the ``k``-th largest when ``n < 4k``)."""
    step = math.isqrt(len(values) // k)
    return sorted(values[::step] if step > 1 else values)[-k]


def kth_largest(values: Sequence[float], k: int) -> float:
    """The ``k``-th largest of at least ``k`` values, exactly (compared in C)."""
    bar = kth_largest_bar(values, k)
    if len(values) < 4 * k:
        return bar  # the whole list was sorted
    return sorted(compress(values, map(ge, values, repeat(bar))))[-k]


def top_k(scores: Mapping[int, float], k: int) -> list[tuple[int, float]]:
    """The ``k`` best (position, score) pairs of ``scores``.

    Every position scoring at least a bar no higher than the k-th best
    (``kth_largest_bar``) is kept, so ties at the boundary are all present;
    the survivors are sorted by position, then stably by score descending:
    exactly score descending, position ascending."""
    if len(scores) > k:
        values = list(scores.values())
        bar = kth_largest_bar(values, k)
        keys = sorted(compress(scores.keys(), map(ge, values, repeat(bar))))  # score >= bar, in C
    else:
        keys = sorted(scores)
    keys.sort(key=scores.__getitem__, reverse=True)
    return [(position, scores[position]) for position in keys[:k]]
