"""TF-IDF cosine similarity: each formula written once, over arrays.

- term weight: ``(1 + ln tf) · idf`` for ``tf ≥ 1`` (sublinear TF) and
  ``tf · idf`` below 1, where a passage's ``tf`` is the same title-weighted
  count BM25 uses (below 1 only for a title-only term when the title weight
  is under 1);
- IDF: ``1 + ln((N + 1)/(n + 1))`` (smoothed, never zero, never negative);
- query weights use the query's own term counts the same way;
- score: dot product divided by the product of the two Euclidean norms.
Logarithms are exact (``exact_ln``), norms are ``sqrt(fsum(w²))``.

As in ``regrag.scoring.bm25``, the batch functions hold the expressions (what
indexing and ranking call over whole lists) and the scalar forms are the batch
of one; ``TfidfScorer`` is what indexing and ``explain`` both use. The weight
is written twice, side by side: over one term's postings (one IDF) and over
one passage's terms (an IDF each); a single form would cost a tuple per
posting, and tests/scoring/test_batch_formulas.py checks both give the same
doubles as the scalar.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import repeat
from operator import mul, truediv

from regrag.scoring import batch_numpy
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


def sublinear_table(frequencies: Iterable[float]) -> dict[float, float]:
    """``sublinear_tf`` of each distinct frequency (a lookup is cheaper than a call);
    built in ascending order, so not even the table's own order depends on a set."""
    return {frequency: sublinear_tf(frequency) for frequency in sorted(set(frequencies))}


def tfidf_weights(frequencies: Iterable[float], idf: float, sublinear: Mapping[float, float]) -> list[float] | array:
    """One term's weight in each of its postings, ``sublinear_tf(tf) · idf``;
    ``sublinear`` holds ``sublinear_tf`` of every frequency (``sublinear_table``)."""
    # short or untyped columns (``tfidf_weight``'s one-term tuple, for each query term) skip the module lookup
    long_enough = isinstance(frequencies, (array, memoryview)) and len(frequencies) >= batch_numpy.MIN_POSTINGS
    numpy = batch_numpy.loaded(frequencies) if long_enough else None
    if numpy is not None:  # the same bits (batch_numpy)
        return batch_numpy.tfidf_weights(numpy, frequencies, idf, sublinear)
    return list(map(mul, map(sublinear.__getitem__, frequencies), repeat(idf)))  # sublinear[f] * idf, in C


def tfidf_passage_weights(
    terms: Iterable[str], frequencies: Iterable[float], idfs: Mapping[str, float], sublinear: Mapping[float, float]
) -> list[float]:
    """One passage's weight for each of its terms: ``tfidf_weights``'s
    expression with each term's own IDF (``idfs`` by term), for the passage's norm."""
    return list(map(mul, map(sublinear.__getitem__, frequencies), map(idfs.__getitem__, terms)))  # sublinear[f] * idfs[t]


def tfidf_weight(term_frequency: float, idf: float) -> float:
    """One weight: ``tfidf_weights`` of one."""
    return tfidf_weights((term_frequency,), idf, {term_frequency: sublinear_tf(term_frequency)})[0]


def vector_norm(weights: Iterable[float]) -> float:
    """Euclidean norm, the squares summed exactly (``math.fsum``, order-free)."""
    weights = weights if isinstance(weights, (list, tuple)) else list(weights)
    return math.sqrt(math.fsum(map(mul, weights, weights)))  # w * w, in C


def cosines(dots: Iterable[float], query_norm: float, passage_norms: Iterable[float]) -> Iterable[float]:
    """Each ``dot / (query_norm · passage_norm)``, ``dots`` and the ``passage_norms``
    of their passages side by side (lazily, in C)."""
    return map(truediv, dots, map(mul, repeat(query_norm), passage_norms))


def cosine(dot: float, query_norm: float, passage_norm: float) -> float:
    """One cosine: ``cosines`` of one."""
    return next(iter(cosines((dot,), query_norm, (passage_norm,))))


@dataclass(frozen=True)
class TfidfScorer:
    """TF-IDF for one index (its title weight): the passage weights indexing
    stores and ``explain`` recomputes, by the same code."""

    title_weight: float

    def weights(self, frequencies: Iterable[float], idf: float, sublinear: Mapping[float, float]) -> list[float]:
        return tfidf_weights(frequencies, idf, sublinear)

    def passage_weights(
        self, terms: Iterable[str], frequencies: Iterable[float], idfs: Mapping[str, float],
        sublinear: Mapping[float, float],
    ) -> list[float]:
        return tfidf_passage_weights(terms, frequencies, idfs, sublinear)

    def weight(self, frequency: float, idf: float) -> float:
        return tfidf_weight(frequency, idf)

    def norm(self, weights: Iterable[float]) -> float:
        return vector_norm(weights)

    def cosine(self, dot: float, query_norm: float, passage_norm: float) -> float:
        return cosine(dot, query_norm, passage_norm)
