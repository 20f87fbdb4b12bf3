"""Postings of a loaded index, read in place from whole-index columns.

An index directory stores every term's postings back to back in two column
files: passage positions (per-term gaps, ``regrag.index.position_codes``)
and frequency codes (places in the table
of distinct weighted frequencies, ``regrag.index.frequency_codes``); the
vocabulary is one blob of UTF-8 terms in code-point order with an offsets
table (``regrag.index.term_table``). ``PostingsTable`` keeps all of them as
they are, usually memory-mapped (docs/index-format.md, "Memory mapping"),
finds a term by binary search, and builds its ``Postings`` when a query
first asks for it: its positions decoded, the frequencies looked up in the
table, the two IDFs (``bm25_idf``, ``tfidf_idf`` of the passage count and
the term's document frequency) and the BM25 impacts and TF-IDF weights,
each computed by the very function the build calls (``BM25Scorer.impacts``,
``TfidfScorer.weights``) on the same inputs, so they are the same bits the
build held (tests/index/test_lazy_scores.py compares every posting).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from operator import lt
from pathlib import Path
from typing import Sequence

from regrag.errors import CorruptIndexError
from regrag.index.build import Postings
from regrag.index.chunks import CheckedBytes
from regrag.index.position_codes import PositionColumn
from regrag.index.postings_cache import CachedPostings
from regrag.index.term_table import TermTable
from regrag.scoring import batch_numpy
from regrag.scoring.bm25 import BM25Scorer, bm25_idf
from regrag.scoring.tfidf import TfidfScorer, sublinear_tf, tfidf_idf

# Postings objects are kept after first use (they also carry pruning's cached
# maximum impact): postings_cache.py. First in, first out; eviction never changes a result.


class PostingsTable(CachedPostings):
    """Read-only mapping from term to ``Postings`` over whole-index columns.

    ``terms`` is the vocabulary and ``starts`` each term's first posting
    (and the posting count last); ``positions`` (decoded a term at a time)
    and ``codes`` hold all postings in term order, ``frequency_values`` the table the codes point
    into. ``length_norms`` (per passage) and the two scorers are the
    index's, as the build used them. ``checked`` (the two columns'
    ``CheckedBytes``) verifies the chunks a term's postings lie in before
    they are first read; the columns' paths name them in errors."""

    def __init__(
        self,
        terms: TermTable,
        starts: Sequence[int],
        positions: PositionColumn,
        codes: Sequence[int],
        frequency_values: Sequence[float],
        length_norms: Sequence[float],
        scorers: tuple[BM25Scorer, TfidfScorer],
        checked: tuple[CheckedBytes, CheckedBytes],
    ) -> None:
        self._terms = terms
        self._starts = starts
        self._positions = positions
        self._codes = codes
        self._values = list(frequency_values)  # small: a list indexes fastest
        self._numpy_values = None  # the same table as a numpy array, once numpy is used
        self._sublinear: dict[float, float] = {}  # sublinear_tf of the values met so far
        self._idfs: dict[int, tuple[float, float]] = {}  # the two IDFs by document frequency
        self._length_norms = length_norms
        self._bm25, self._tfidf = scorers
        self._passage_count = len(length_norms)
        self._checked = checked
        self._code_width = getattr(codes, "itemsize", 1)
        # one-byte codes: the bytes that are valid codes, so a range check is one bytes.translate
        self._valid_codes = bytes(range(min(len(self._values), 256)))
        super().__init__()

    @property
    def columns_path(self) -> Path:
        return self._checked[0].path

    @property
    def codes_path(self) -> Path:
        return self._checked[1].path

    def _made(self, term: str) -> Postings | None:
        number = self._terms.number(term)
        return None if number is None else self._build(term, number)

    def posting_count(self, term: str) -> int:
        """``term``'s posting count from the verified starts table, its
        postings neither decoded nor scored (so a one-shot search can choose
        its kernel before the first term is scored, and score it with numpy)."""
        entry = self._cache.get(term)
        if entry is not None:
            return len(entry.passages)
        number = self._terms.number(term)
        return 0 if number is None else self._starts[number + 1] - self._starts[number]

    def positions_and_frequencies(self) -> Iterator[tuple[str, Sequence[int], Sequence[float]]]:
        """Every term with its positions and frequencies, in term order, without
        computing scores (what an update carries over)."""
        for number, term in enumerate(self._terms):
            positions, codes = self._columns(term, number)
            yield term, positions, self._frequencies(codes)

    def positions(self, term: str) -> Sequence[int] | None:
        """A term's passage positions only (no scores computed), or None."""
        entry = self._cache.get(term)
        if entry is not None:
            return entry.passages
        number = self._terms.number(term)
        return None if number is None else self._columns(term, number)[0]

    def check_ranges(self) -> None:
        """``CorruptIndexError`` unless every term's positions lie within the
        passages and its codes within the table (what ``regrag verify``
        checks for every term; a query checks the terms it reads)."""
        for checked in self._checked:
            checked.check_all()
        starts = self._starts
        if not all(a < b for a, b in zip(starts, starts[1:])):
            raise CorruptIndexError(f"{self._terms.starts_file}: does not add up to the postings")
        for number, term in enumerate(self._terms):
            self._columns(term, number)

    def all_columns(self, ranges: bool = True) -> tuple[list[str], Sequence[int], Sequence[int], Sequence[int], list[float]]:
        """The whole table, every byte verified: the terms, posting starts,
        positions, frequency codes and the value table (what a segmented
        update's statistics pass reads). ``ranges``: also check that every
        position and code is in range (False: the caller checks them)."""
        for checked in self._checked:
            checked.check_all()
        starts, codes = self._starts, self._codes
        if not all(map(lt, starts, starts[1:])) or starts[0] != 0 or starts[-1] != len(codes):
            raise CorruptIndexError(f"{self._terms.starts_file}: does not add up to the postings")
        positions = self._positions.all()
        if not ranges:
            return self._terms.all_terms(), starts, positions, codes, self._values
        if len(positions) and (min(positions) < 0 or max(positions) >= self._passage_count):
            raise CorruptIndexError(f"{self._checked[0].path}: passage position out of range")
        if len(codes) and max(codes) >= len(self._values):
            raise CorruptIndexError(f"{self._checked[1].path}: frequency code out of range")
        return self._terms.all_terms(), starts, positions, codes, self._values

    def _columns(self, term: str, number: int) -> tuple[Sequence[int], Sequence[int]]:
        """A term's positions and codes, verified and range-checked."""
        start, end = self._starts[number], self._starts[number + 1]
        if not 0 <= start < end <= len(self._codes):
            raise CorruptIndexError(f"{self._terms.starts_file}: does not add up to the postings (term {term!r})")
        self._checked[1].check(self._code_width * start, self._code_width * end)  # no unverified byte is read
        positions = self._positions.term(number)  # (its bytes verified too)
        codes = self._codes[start:end]
        # Gaps are unsigned, so positions never descend and the ends bound the rest. This
        # catches a consistently forged generation before it could index
        # outside the passages or the value table.
        if positions[0] < 0 or positions[-1] >= self._passage_count or positions[0] > positions[-1]:
            raise CorruptIndexError(f"{self._checked[0].path}: passage position out of range (term {term!r})")
        if not self._codes_in_range(codes):
            raise CorruptIndexError(f"{self._checked[1].path}: frequency code out of range (term {term!r})")
        return positions, codes

    def _codes_in_range(self, codes: Sequence[int]) -> bool:
        if self._code_width == 1:  # every byte a valid code: nothing left once they are deleted
            return not bytes(codes).translate(None, self._valid_codes)
        numpy = batch_numpy.loaded(codes) if len(codes) >= batch_numpy.MIN_POSTINGS else None
        largest = int(numpy.asarray(codes).max()) if numpy is not None else max(codes)
        return largest < len(self._values)

    def _frequencies(self, codes: Sequence[int]) -> array:
        """The frequencies the codes stand for (a gather; numpy for long lists
        once it is imported: the same doubles, copied)."""
        numpy = batch_numpy.loaded(codes) if len(codes) >= batch_numpy.MIN_POSTINGS else None
        if numpy is None:
            return array("d", map(self._values.__getitem__, codes))
        if self._numpy_values is None:
            self._numpy_values = numpy.array(self._values, dtype=numpy.float64)
        return array("d", self._numpy_values[numpy.asarray(codes)].tobytes())

    def _distinct(self, codes: Sequence[int]) -> list[float]:
        """The distinct frequencies among ``codes``, ascending (the table is)."""
        numpy = batch_numpy.loaded(codes) if len(codes) >= batch_numpy.MIN_POSTINGS else None
        present = numpy.flatnonzero(numpy.bincount(numpy.asarray(codes))).tolist() if numpy is not None \
            else sorted(set(codes))
        return list(map(self._values.__getitem__, present))

    def columns(self, term: str) -> tuple[Sequence[int], array] | None:
        """A term's positions and frequencies, verified and range-checked, no
        scores computed (what a segmented view gathers), or None."""
        number = self._terms.number(term)
        if number is None:
            return None
        positions, codes = self._columns(term, number)
        return positions, self._frequencies(codes)

    def _build(self, term: str, number: int) -> Postings:
        positions, codes = self._columns(term, number)
        entry = scored_postings(positions, self._frequencies(codes), self._passage_count, self._length_norms,
                                self._bm25, self._tfidf, self._sublinear, distinct=self._distinct(codes),
                                idfs=self._idfs)
        return self._remember(term, entry)


def scored_postings(positions: Sequence[int], frequencies: array, passage_count: int, length_norms: Sequence[float],
                    bm25_scorer: BM25Scorer, tfidf_scorer: TfidfScorer, sublinear: dict[float, float],
                    document_frequency: int | None = None, distinct: Sequence[float] | None = None,
                    idfs: dict[int, tuple[float, float]] | None = None) -> Postings:
    """A term's ``Postings`` from its positions and frequencies: the two IDFs
    of ``passage_count`` and its document frequency, and its impacts and
    weights, by the calls the build makes (the same bits). ``sublinear``
    caches ``sublinear_tf`` of the values met so far (filled here).
    ``document_frequency``: the global one where the positions are a part
    of the index (one shard's); default ``len(positions)``. ``distinct``:
    the distinct frequencies, ascending, when the caller knows them;
    ``idfs``: a cache of the IDFs by document frequency for this
    ``passage_count`` (filled here; each entry is a pure function of it)."""
    df = len(positions) if document_frequency is None else document_frequency
    known = idfs.get(df) if idfs is not None else None
    if known is None:
        known = bm25_idf(passage_count, df), tfidf_idf(passage_count, df)
        if idfs is not None:
            idfs[df] = known
    bm25, tfidf = known
    # each value's entry is computed alone (order cannot change it); ascending, as sublinear_table, so
    # not even the cache's own order depends on a set
    for value in sorted(set(frequencies)) if distinct is None else distinct:
        if value not in sublinear:
            sublinear[value] = sublinear_tf(value)  # what the build's sublinear_table holds for it
    return Postings(
        positions,  # type: ignore[arg-type]
        frequencies,
        array("d", bm25_scorer.impacts(bm25, positions, frequencies, length_norms)),
        array("d", tfidf_scorer.weights(frequencies, tfidf, sublinear)),
        bm25,
        tfidf,
    )
