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


def weighted_count(body: float, title: float, title_weight: float) -> float:
    """``body + title_weight · title``."""
    return body + title_weight * title


def weighted_frequencies(
    body: Mapping[str, int], title: Mapping[str, int], title_weight: float
) -> tuple[tuple[str, ...], array]:
    """A passage's terms (sorted) with a positive weighted frequency, and those
    frequencies, from its body and title term counts."""
    if title:
        pairs = ((term, body.get(term, 0) + title_weight * title.get(term, 0)) for term in sorted(body.keys() | title.keys()))
    else:
        pairs = ((term, body[term] + title_weight * 0) for term in sorted(body))
    kept = [pair for pair in pairs if pair[1] > 0]
    return tuple(term for term, _f in kept), array("d", (frequency for _t, frequency in kept))
