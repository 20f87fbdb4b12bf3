"""Postings of a loaded index, read in place from whole-index columns.

An index directory stores every term's postings back to back in four column
files (positions, frequencies, BM25 impacts, TF-IDF weights). Loading used
to cut those columns into one ``Postings`` object per term: at a million
passages that is about 150 million postings and 4 GB of arrays held in
memory whether or not a query ever needs them. ``PostingsTable`` instead
keeps the columns as they are, usually memory-mapped from the verified files
(docs/index-format.md, "Memory mapping"), and builds a term's ``Postings``
from zero-copy slices when a query first asks for it. Results are the same
bits: the slices hold the same IEEE numbers the arrays did.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Sequence

from regrag.errors import CorruptIndexError
from regrag.index.build import Postings

# Postings objects kept after first use (they also carry pruning's cached
# maximum impact). First in, first out; eviction never changes a result.
CACHE_SIZE = 4096


class PostingsTable(Mapping[str, Postings]):
    """Read-only mapping from term to ``Postings`` over whole-index columns.

    ``terms`` is the sorted vocabulary and ``document_frequencies`` each
    term's number of postings; the four columns hold all postings in term
    order. ``positions_file`` names the positions column in errors."""

    def __init__(
        self,
        terms: list[str],
        document_frequencies: Sequence[int],
        positions: Sequence[int],
        frequencies: Sequence[float],
        bm25_impacts: Sequence[float],
        tfidf_weights: Sequence[float],
        bm25_idf: Sequence[float],
        tfidf_idf: Sequence[float],
        passage_count: int,
        positions_file: Path,
    ) -> None:
        self._terms = terms
        self._numbers = {term: number for number, term in enumerate(terms)}
        starts = array("q", [0]) * (len(terms) + 1)
        total = 0
        for number, count in enumerate(document_frequencies):
            total += count
            starts[number + 1] = total
        self._starts = starts
        self._positions = positions
        self._frequencies = frequencies
        self._bm25_impacts = bm25_impacts
        self._tfidf_weights = tfidf_weights
        self._bm25_idf = bm25_idf
        self._tfidf_idf = tfidf_idf
        self._passage_count = passage_count
        self._positions_file = positions_file
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
        for number, term in enumerate(self._terms):
            self._check_range(term, self._positions[self._starts[number] : self._starts[number + 1]])

    def _check_range(self, term: str, positions: Sequence[int]) -> None:
        # Positions ascend within a term, so the ends bound the rest. Files
        # are hash-checked on open; this catches a consistently forged
        # generation before it could index outside the passages.
        if positions and (positions[0] < 0 or positions[-1] >= self._passage_count or positions[0] > positions[-1]):
            raise CorruptIndexError(f"{self._positions_file}: passage position out of range (term {term!r})")

    def _build(self, term: str, number: int) -> Postings:
        start, end = self._starts[number], self._starts[number + 1]
        positions = self._positions[start:end]
        self._check_range(term, positions)
        entry = Postings(
            positions,  # type: ignore[arg-type]
            self._frequencies[start:end],  # type: ignore[arg-type]
            self._bm25_impacts[start:end],  # type: ignore[arg-type]
            self._tfidf_weights[start:end],  # type: ignore[arg-type]
            self._bm25_idf[number],
            self._tfidf_idf[number],
        )
        with self._cache_lock:  # searches may run in several threads
            if len(self._cache) >= CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
            self._cache[term] = entry
        return entry
