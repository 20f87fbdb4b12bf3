"""Title weighting (BM25F-style): ``body + title_weight · title``, for term
frequencies and for lengths, at indexing and in explanations alike.

``weighted_frequencies`` is the batch form indexing uses for a whole passage;
``weighted_count`` the scalar form. Both evaluate ``body + title_weight ·
title`` with the same operand types (int counts, a float weight), so both give
the same double.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from itertools import repeat
from operator import add, mul


def weighted_count(body: float, title: float, title_weight: float) -> float:
    """``body + title_weight · title``."""
    return body + title_weight * title


def weighted_frequencies(
    body: Mapping[str, int], title: Mapping[str, int], title_weight: float
) -> tuple[tuple[str, ...], array]:
    """A passage's terms (sorted) with a positive weighted frequency, and those
    frequencies, from its body and title term counts. Each frequency is
    ``body.get(t, 0) + title_weight * title.get(t, 0)`` (``body[t] +
    title_weight * 0`` without a title), evaluated in C by ``map`` over
    operator functions: the same IEEE operations."""
    if title:
        terms = sorted(body.keys() | title.keys())
        frequencies = array("d", map(add, map(body.get, terms, repeat(0)),
                                     map(mul, repeat(title_weight), map(title.get, terms, repeat(0)))))
    else:
        terms = sorted(body)
        frequencies = array("d", map(add, map(body.__getitem__, terms), repeat(title_weight * 0)))
    if frequencies and min(frequencies) <= 0:  # a title-only term under title weight 0 (or a count not positive)
        kept = [(term, frequency) for term, frequency in zip(terms, frequencies) if frequency > 0]
        return tuple(term for term, _f in kept), array("d", (frequency for _t, frequency in kept))
    return tuple(terms), frequencies
