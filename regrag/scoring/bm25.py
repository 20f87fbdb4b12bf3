"""Okapi BM25 with Lucene's IDF, one pure function per formula.

Title weighting (BM25F-style) happens before these functions are called: the
``term_frequency`` given is ``tf_body + w·tf_title`` and the ``length`` is
``len_body + w·len_title``, with the average over the same weighted lengths.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from regrag.scoring.exact import exact_ln


@lru_cache(maxsize=1 << 16)
def bm25_idf(passage_count: int, document_frequency: int) -> float:
    """Lucene's IDF ``ln(1 + (N − n + 0.5)/(n + 0.5))``, computed exactly as
    ``ln((N + 1)/(n + 0.5))`` (the same number) and correctly rounded."""
    return exact_ln(Fraction(2 * (passage_count + 1), 2 * document_frequency + 1))


def bm25_length_norm(length: float, average_length: float, k1: float, b: float) -> float:
    """``k1·(1 − b + b·length/avgdl)``: the length part of the denominator."""
    return k1 * (1.0 - b + b * length / average_length)


def bm25_term_score(idf: float, term_frequency: float, length_norm: float, k1: float) -> float:
    """One term's contribution ``idf · tf·(k1 + 1)/(tf + length_norm)``."""
    return idf * (term_frequency * (k1 + 1.0) / (term_frequency + length_norm))
