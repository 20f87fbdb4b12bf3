"""Okapi BM25 with Lucene's IDF: each formula written once, over arrays.

Title weighting (BM25F-style, ``regrag.scoring.fields``) happens before these
formulas apply: the term frequency is ``tf_body + w·tf_title`` and the length
``len_body + w·len_title``, with the average over the same weighted lengths.

Each formula is one expression in a batch function (what indexing calls once
per term or once per index: no function call per posting); the scalar form
(what ``explain`` calls) is the batch of one, so both are the same IEEE
operations in the same order. ``BM25Scorer`` holds one index's parameters and
average length, as Lucene's ``BM25Similarity`` scorer and tantivy's
``Bm25Weight`` do, and is what both indexing and explanations use.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import repeat
from operator import add, mul, truediv

from regrag.scoring import batch_numpy
from regrag.scoring.exact import exact_ln


@lru_cache(maxsize=1 << 16)
def bm25_idf(passage_count: int, document_frequency: int) -> float:
    """Lucene's IDF ``ln(1 + (N − n + 0.5)/(n + 0.5))``, computed exactly as
    ``ln((N + 1)/(n + 0.5))`` (the same number) and correctly rounded."""
    return exact_ln(Fraction(2 * (passage_count + 1), 2 * document_frequency + 1))


def bm25_length_norms(lengths: Iterable[float], average_length: float, k1: float, b: float) -> array:
    """``k1·(1 − b + b·length/avgdl)`` for each length: the length part of the denominator."""
    return array("d", [k1 * (1.0 - b + b * length / average_length) for length in lengths])


def bm25_impacts(
    idf: float, positions: Iterable[int], frequencies: Iterable[float], length_norms: Sequence[float], k1: float
) -> list[float] | array:
    """Each posting's contribution ``idf · tf·(k1 + 1)/(tf + length_norm)``:
    one term's postings (passage ``positions`` and weighted ``frequencies``
    side by side), ``length_norms`` indexed by passage position."""
    k1_plus_one = k1 + 1.0
    # short or untyped columns skip the module lookup (about two microseconds a call)
    long_enough = isinstance(frequencies, (array, memoryview)) and len(frequencies) >= batch_numpy.MIN_POSTINGS
    numpy = batch_numpy.loaded(positions, frequencies, length_norms) if long_enough else None
    if numpy is not None:  # the same bits (batch_numpy)
        return batch_numpy.bm25_impacts(numpy, idf, positions, frequencies, length_norms, k1_plus_one)
    # idf * (frequency * k1_plus_one / (frequency + length_norms[position])), in
    # C (map over operator functions: the same IEEE operations in the same order)
    frequencies = frequencies if isinstance(frequencies, (list, tuple, array)) else list(frequencies)
    return list(map(mul, repeat(idf), map(
        truediv,
        map(mul, frequencies, repeat(k1_plus_one)),
        map(add, frequencies, map(length_norms.__getitem__, positions)),
    )))


def bm25_length_norm(length: float, average_length: float, k1: float, b: float) -> float:
    """One length's norm: ``bm25_length_norms`` of one."""
    return bm25_length_norms((length,), average_length, k1, b)[0]


def bm25_term_score(idf: float, term_frequency: float, length_norm: float, k1: float) -> float:
    """One term's contribution: ``bm25_impacts`` of one."""
    return bm25_impacts(idf, (0,), (term_frequency,), (length_norm,), k1)[0]


@dataclass(frozen=True)
class BM25Scorer:
    """BM25 for one index: its parameters and average weighted length. Indexing
    computes every length norm and impact with it; ``explain`` recomputes one
    passage's contributions with it (the same code, so the same bits)."""

    k1: float
    b: float
    title_weight: float
    average_length: float

    def length_norms(self, lengths: Iterable[float]) -> array:
        return bm25_length_norms(lengths, self.average_length, self.k1, self.b)

    def impacts(
        self, idf: float, positions: Iterable[int], frequencies: Iterable[float], length_norms: Sequence[float]
    ) -> list[float]:
        return bm25_impacts(idf, positions, frequencies, length_norms, self.k1)

    def impact(self, idf: float, frequency: float, length_norm: float) -> float:
        return bm25_term_score(idf, frequency, length_norm, self.k1)
