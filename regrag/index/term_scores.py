"""Every term's BM25 impacts and TF-IDF weights, one batch call per
distinct document frequency rather than one per term.

A term's scores depend on its postings and on its IDFs, which depend only
on its document frequency (the corpus's passage count being fixed). So the
terms of one document frequency ``df`` are scored together: their postings
joined (each term exactly ``df`` of them), one ``BM25Scorer.impacts`` and
one ``TfidfScorer.weights`` call over the whole group (the same expression
on the same operands for each posting, so the same doubles), then cut back
into ``df``-long arrays. A vocabulary of 400,000 terms (Vietnamese, with
syllable pairs) then costs a few thousand calls instead of 800,000;
tests/index/test_term_scores.py holds it equal to the per-term calls.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from itertools import groupby, repeat
from operator import setitem

from regrag.scoring.bm25 import BM25Scorer
from regrag.scoring.tfidf import TfidfScorer


def term_scores(
    positions: Sequence[array],
    frequencies: Sequence[array],
    bm25_idfs: Mapping[int, float],
    tfidf_idfs: Mapping[int, float],
    bm25: BM25Scorer,
    tfidf: TfidfScorer,
    length_norms: Sequence[float],
    sublinear: Mapping[float, float],
) -> tuple[list[array], list[array]]:
    """Per term (``positions[i]``: its ascending passage positions, an
    ``array('i')``; ``frequencies[i]``: its weighted frequencies, an
    ``array('d')``), its impacts and its weights (``array('d')`` each);
    ``bm25_idfs`` and ``tfidf_idfs`` by document frequency."""
    count = len(positions)
    sizes = list(map(len, positions))
    impacts: list = [None] * count
    weights: list = [None] * count
    for size, group in groupby(sorted(range(count), key=sizes.__getitem__), key=sizes.__getitem__):
        members = list(group)
        if not size:  # a term without postings (never built; kept total)
            any(map(setitem, repeat(impacts), members, map(array, repeat("d"))))
            any(map(setitem, repeat(weights), members, map(array, repeat("d"))))
            continue
        joined_positions = array("i")
        joined_frequencies = array("d")
        any(map(joined_positions.extend, map(positions.__getitem__, members)))  # extend returns None: all run
        any(map(joined_frequencies.extend, map(frequencies.__getitem__, members)))
        total = len(joined_frequencies)
        cuts = list(map(slice, range(0, total, size), range(size, total + size, size)))
        group_impacts = array("d", bm25.impacts(bm25_idfs[size], joined_positions, joined_frequencies, length_norms))
        any(map(setitem, repeat(impacts), members, map(group_impacts.__getitem__, cuts)))
        del group_impacts
        group_weights = array("d", tfidf.weights(joined_frequencies, tfidf_idfs[size], sublinear))
        any(map(setitem, repeat(weights), members, map(group_weights.__getitem__, cuts)))
    return impacts, weights
