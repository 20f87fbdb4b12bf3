"""TF-IDF cosine similarity, one pure function per formula.

- term weight: ``(1 + ln tf) · idf`` for ``tf ≥ 1`` (sublinear TF) and
  ``tf · idf`` below 1, where a passage's ``tf`` is the same title-weighted
  count BM25 uses (below 1 only for a title-only term when the title weight
  is under 1);
- IDF: ``1 + ln((N + 1)/(n + 1))`` (smoothed, never zero, never negative);
- query weights use the query's own term counts the same way;
- score: dot product divided by the product of the two Euclidean norms.
Logarithms are exact (``exact_ln``), norms are ``sqrt(fsum(w²))``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Iterable

from regrag.scoring.exact import exact_ln


@lru_cache(maxsize=1 << 16)
def tfidf_idf(passage_count: int, document_frequency: int) -> float:
    """``1 + ln((N + 1)/(n + 1))``."""
    return 1.0 + exact_ln(Fraction(passage_count + 1, document_frequency + 1))


@lru_cache(maxsize=4096)
def sublinear_tf(term_frequency: float) -> float:
    """``1 + ln(tf)`` for ``tf ≥ 1``; ``tf`` itself below 1 (a title-only term
    with a title weight under 1), which keeps the weight positive, increasing
    and continuous at 1."""
    if term_frequency < 1.0:
        return term_frequency
    return 1.0 + exact_ln(Fraction(term_frequency))


def tfidf_weight(term_frequency: float, idf: float) -> float:
    return sublinear_tf(term_frequency) * idf


def vector_norm(weights: Iterable[float]) -> float:
    """Euclidean norm, the squares summed exactly (``math.fsum``, order-free)."""
    return math.sqrt(math.fsum(w * w for w in weights))


def cosine(dot: float, query_norm: float, passage_norm: float) -> float:
    return dot / (query_norm * passage_norm)
