"""Each passage's term counts as term ids of its range: the indexing hot path.

``analysis.passage_term_counts`` (what ``explain`` recounts with) gives a
passage's terms as strings; a range's analysis needs them as ids into its
vocabulary (``analysis.RangeAnalysis``). ``IdCounter`` gives the same
counts keyed by those ids directly, from the ``ASCII_CHUNK`` matches of
ASCII text (``analyzer.counts_by_chunk``): each distinct chunk is analysed
once per range (``analyzer.chunk_terms``) and cached as a code, so a
passage costs one regular-expression scan, one dictionary look-up a chunk
and one ``Counter``, all in C. Other text (non-ASCII, or rules with
syllable pairs) goes through ``Analyzer.term_counts`` and is renumbered.
tests/index/test_id_counts.py holds the two equal.

A chunk's code is the id of its one term, ``NO_TERM`` for a chunk with
none (a stopword), or ``-2 - k`` for the ``k``-th chunk with several (rare:
``a.b``), whose ids are in ``several[k]``.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Callable

from regrag.text.analyzer import ASCII_CHUNK, Analyzer, chunk_terms, counts_by_chunk

NO_TERM = -1
_find_chunks = ASCII_CHUNK.findall


class IdCounter:
    """Term counts by id for one range: ``get_id(term)`` gives a term its id
    (the range's vocabulary); the chunk codes are cached per language."""

    def __init__(self, analyzer: Analyzer, get_id: Callable[[str], int]) -> None:
        self._analyzer = analyzer
        self._get_id = get_id
        self._codes: dict[str, dict[str, int]] = {}
        self._several: list[tuple[int, ...]] = []

    def counts(self, text: str, language: str) -> Counter[int]:
        """How often each term of ``text`` occurs, by id: the multiset of
        ``Analyzer.term_counts(text, language)`` with each term's id."""
        if not counts_by_chunk(text, language):
            get_id = self._get_id
            return Counter({get_id(term): n for term, n in self._analyzer.term_counts(text, language).items()})
        codes = self._codes.get(language)
        if codes is None:
            codes = self._codes[language] = {}
        chunks = _find_chunks(text)
        found = list(map(codes.get, chunks))
        if None in found:  # code the chunks not seen yet (their places picked in C)
            for number in itertools.compress(itertools.count(), map(operator.is_, found, itertools.repeat(None))):
                chunk = chunks[number]
                code = codes.get(chunk)  # an earlier repeat in this text
                if code is None:
                    code = codes[chunk] = self._code(chunk_terms(chunk, language))
                found[number] = code
        counts = Counter(found)
        counts.pop(NO_TERM, None)
        if counts and min(counts) < NO_TERM:
            for code in [code for code in counts if code < NO_TERM]:
                times = counts.pop(code)
                for term_id in self._several[NO_TERM - 1 - code]:
                    counts[term_id] += times
        return counts

    def _code(self, terms: tuple[str, ...]) -> int:
        if len(terms) == 1:
            return self._get_id(terms[0])
        if not terms:
            return NO_TERM
        self._several.append(tuple(map(self._get_id, terms)))
        return NO_TERM - len(self._several)
