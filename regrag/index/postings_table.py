"""Postings of a loaded index, read in place from whole-index columns.

An index directory stores every term's postings back to back in two column
files: passage positions (int32) and frequency codes (places in the table
of distinct weighted frequencies, ``regrag.index.frequency_codes``).
``PostingsTable`` keeps the columns as they are, usually memory-mapped
(docs/index-format.md, "Memory mapping"), and builds a term's ``Postings``
when a query first asks for it: zero-copy positions, the frequencies looked
up in the table, and the BM25 impacts and TF-IDF weights computed by the
very batch functions the build calls (``BM25Scorer.impacts``,
``TfidfScorer.weights``) on the same inputs (positions, frequencies, the
stored length norms and IDFs), so they are the same bits the build held
(tests/index/test_lazy_scores.py compares every posting).
"""

from __future__ import annotations

import threading
from array import array
from itertools import accumulate
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Sequence

from regrag.errors import CorruptIndexError
from regrag.index.build import Postings
from regrag.index.chunks import CheckedBytes
from regrag.scoring.bm25 import BM25Scorer
from regrag.scoring.tfidf import TfidfScorer, sublinear_tf

# Postings objects kept after first use (they also carry pruning's cached
# maximum impact). First in, first out; eviction never changes a result.
CACHE_SIZE = 4096


class PostingsTable(Mapping[str, Postings]):
    """Read-only mapping from term to ``Postings`` over whole-index columns.

    ``terms`` is the sorted vocabulary and ``document_frequencies`` each
    term's number of postings; ``positions`` and ``codes`` hold all postings
    in term order, ``frequency_values`` the table the codes point into.
    ``length_norms`` (per passage) and the two scorers are the index's, as
    the build used them. ``positions_file`` and ``codes_file`` name the
    columns in errors; ``checked`` (the two files' ``CheckedBytes``) verifies
    the chunks a term's postings lie in before they are first read."""

    def __init__(
        self,
        terms: list[str],
        document_frequencies: Sequence[int],
        positions: Sequence[int],
        codes: Sequence[int],
        frequency_values: Sequence[float],
        bm25_idf: Sequence[float],
        tfidf_idf: Sequence[float],
        length_norms: Sequence[float],
        scorers: tuple[BM25Scorer, TfidfScorer],
        positions_file: Path,
        codes_file: Path,
        checked: tuple[CheckedBytes, CheckedBytes] | None = None,
    ) -> None:
        self._terms = terms
        self._numbers = {term: number for number, term in enumerate(terms)}
        starts = array("q", [0])
        starts.extend(accumulate(document_frequencies))
        self._starts = starts
        self._positions = positions
        self._codes = codes
        self._values = list(frequency_values)  # small: a list indexes fastest
        self._sublinear: dict[float, float] = {}  # sublinear_tf of the values met so far
        self._bm25_idf = bm25_idf
        self._tfidf_idf = tfidf_idf
        self._length_norms = length_norms
        self._bm25, self._tfidf = scorers
        self._passage_count = len(length_norms)
        self._positions_file = positions_file
        self._codes_file = codes_file
        self._checked = checked
        self._code_width = getattr(codes, "itemsize", 1)
        self._cache: dict[str, Postings] = {}
        self._cache_lock = threading.Lock()

    def __getitem__(self, term: str) -> Postings:
        entry = self._cache.get(term)
        if entry is None:
            entry = self._build(term, self._numbers[term])
        return entry

    def get(self, term: str, default: Postings | None = None) -> Postings | None:  # type: ignore[override]
        entry = self._cache.get(term)
        if entry is not None:
            return entry
        number = self._numbers.get(term)
        return default if number is None else self._build(term, number)

    def __contains__(self, term: object) -> bool:
        return term in self._numbers

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def __len__(self) -> int:
        return len(self._terms)

    def check_ranges(self) -> None:
        """``CorruptIndexError`` unless every term's positions lie within the
        passages (what ``regrag verify`` checks for every term; a query checks
        the terms it reads)."""
        if self._checked is not None:
            for checked in self._checked:
                checked.check_all()
        for number, term in enumerate(self._terms):
            start, end = self._starts[number], self._starts[number + 1]
            self._check_range(term, self._positions[start:end], self._codes[start:end])

    def _check_range(self, term: str, positions: Sequence[int], codes: Sequence[int]) -> None:
        # Positions ascend within a term, so the ends bound the rest. Files
        # are hash-checked; this catches a consistently forged generation
        # before it could index outside the passages or the value table.
        if positions and (positions[0] < 0 or positions[-1] >= self._passage_count or positions[0] > positions[-1]):
            raise CorruptIndexError(f"{self._positions_file}: passage position out of range (term {term!r})")
        if codes and max(codes) >= len(self._values):
            raise CorruptIndexError(f"{self._codes_file}: frequency code out of range (term {term!r})")

    def _build(self, term: str, number: int) -> Postings:
        start, end = self._starts[number], self._starts[number + 1]
        if self._checked is not None:  # no unverified byte is read
            self._checked[0].check(4 * start, 4 * end)
            self._checked[1].check(self._code_width * start, self._code_width * end)
        positions = self._positions[start:end]
        codes = self._codes[start:end]
        self._check_range(term, positions, codes)
        frequencies = array("d", map(self._values.__getitem__, codes))
        bm25_idf, tfidf_idf = self._bm25_idf[number], self._tfidf_idf[number]
        sublinear = self._sublinear
        for value in set(frequencies).difference(sublinear):
            sublinear[value] = sublinear_tf(value)  # what the build's sublinear_table holds for it
        entry = Postings(
            positions,  # type: ignore[arg-type]
            frequencies,
            array("d", self._bm25.impacts(bm25_idf, positions, frequencies, self._length_norms)),
            array("d", self._tfidf.weights(frequencies, tfidf_idf, sublinear)),
            bm25_idf,
            tfidf_idf,
        )
        with self._cache_lock:  # searches may run in several threads
            if len(self._cache) >= CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
            self._cache[term] = entry
        return entry
