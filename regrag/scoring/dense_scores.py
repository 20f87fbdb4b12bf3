"""Exhaustive BM25 and TF-IDF sums in a dense accumulator: a list of floats
indexed by passage position instead of a dictionary.

The additions are the dictionary path's (``regrag.retrieval.ranking``): each
passage's sum starts at ``0.0`` and every term, in the canonical term order,
adds its contribution with one ``+``. The dictionary stores a passage's first
contribution ``x`` itself where the list computes ``0.0 + x``; the two are the
same double for every ``x`` but ``-0.0``, and no contribution is ever zero or
negative: a BM25 impact is ``idf · tf·(k1 + 1)/(tf + norm)`` with ``idf =
ln((N + 1)/(n + 0.5)) > 0`` (``n ≤ N``), ``tf ≥ 0.001`` (a body count ≥ 1 or
the title weight, at least 0.001, times a title count ≥ 1), ``k1 ≥ 0`` and a
norm ≥ 0 (``regrag.index.parameters``' limits), far above the smallest
double; a TF-IDF product is ``q · w`` with ``q, w ≥ 0.001`` (an IDF ≥ 1 times
a sublinear count ≥ 0.001). So a sum is positive exactly where some term
touched the passage, and "touched" needs no second structure: the candidates
are the positions whose sum is above 0.0, as the dictionary's keys are.

A list subscript add (``sums[p] += x``) is cheaper than a dictionary's
``get``-then-store, about 1.5× on SciFact's queries; the price is a pass over
all ``passage_count`` sums to select the top k, so ``worth_dense`` picks this
path only when a query's postings are at least ``DENSE_SHARE`` of the passages.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import ge, getitem, gt, mul
from typing import Sequence

from regrag.scoring.tfidf import cosines
from regrag.scoring.topk import kth_largest_bar, top_k

# Dense sums pay when a query's postings number at least this share of the passages.
DENSE_SHARE = 0.25


def worth_dense(posting_count: int, passage_count: int) -> bool:
    """Whether summing ``posting_count`` postings densely beats a dictionary."""
    return posting_count >= DENSE_SHARE * passage_count


def dense_sums(columns: Sequence[tuple[Sequence[int], Sequence[float]]], passage_count: int) -> list[float]:
    """Each passage's sum of the columns' (positions, values), added from 0.0 in column order."""
    sums = [0.0] * passage_count
    for positions, values in columns:
        for position, value in zip(positions, values):
            sums[position] += value
    return sums


def touched(sums: list[float]) -> list[int]:
    """The positions whose sum is above 0.0 (every touched passage: see the module's note), ascending."""
    return list(compress(range(len(sums)), map(gt, sums, repeat(0.0))))


def dense_top(sums: list[float], k: int, allowed: frozenset[int] | None) -> list[tuple[int, float]]:
    """The ``k`` best (position, score) of the touched positions (those of
    ``allowed`` when given): score descending, then position. As
    ``regrag.scoring.topk.top_k``: every position at or above a bar no higher
    than the k-th best is kept, sorted by position, then stably by score."""
    if allowed is not None:
        keys = sorted(position for position in allowed if sums[position] > 0.0)
    else:
        bar = kth_largest_bar(sums, k) if len(sums) >= k else 0.0
        test = (ge, bar) if bar > 0.0 else (gt, 0.0)
        keys = list(compress(range(len(sums)), map(test[0], sums, repeat(test[1]))))
    keys.sort(key=sums.__getitem__, reverse=True)
    return [(position, sums[position]) for position in keys[:k]]


def dense_bm25_top(postings: Sequence, passage_count: int, k: int,
                   allowed: frozenset[int] | None) -> list[tuple[int, float]]:
    """BM25 top ``k`` from the query terms' postings (canonical term order)."""
    sums = dense_sums([(entry.passages, entry.bm25_impacts) for entry in postings], passage_count)
    return dense_top(sums, k, allowed)


def dense_tfidf_top(postings_and_weights: Sequence[tuple[object, float]], query_norm: float,
                    norms: Sequence[float], passage_count: int, k: int,
                    allowed: frozenset[int] | None) -> list[tuple[int, float]]:
    """TF-IDF cosine top ``k`` from (postings, query weight) in term order: the
    dot products ``q · w`` summed densely, then ``dot / (|q| · |p|)`` for each
    touched passage, as ``regrag.retrieval.ranking.tfidf_scores`` divides them."""
    dots = dense_sums([(entry.passages, map(mul, repeat(weight), entry.tfidf_weights))
                       for entry, weight in postings_and_weights], passage_count)
    positions = touched(dots)
    if allowed is not None:
        positions = [position for position in positions if position in allowed]
    scores = dict(zip(positions, cosines(map(dots.__getitem__, positions), query_norm,
                                         map(getitem, repeat(norms), positions))))
    return top_k(scores, k)
