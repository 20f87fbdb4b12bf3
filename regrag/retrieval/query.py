"""Query analysis: a query's language, its distinct terms and their counts.

The terms are sorted (ascending code points): every ranking and explanation
takes them in that order, so a score is the same float wherever it is summed.
They are counted by ``Analyzer.term_counts``, the same multiset as
``Analyzer.analyze`` gives (tests/text/test_term_counts.py checks it) without
offsets and with each whitespace-separated piece's terms cached (bounded,
keyed on the language and the piece alone): a query needs no offsets, and its
words recur across queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from regrag.index.build import InvertedIndex

if TYPE_CHECKING:
    from regrag.retrieval.synonym_query import SynonymExpansion


@dataclass(frozen=True)
class AnalyzedQuery:
    """A query's language, its distinct terms (sorted) and their counts."""

    text: str
    language: str
    terms: tuple[str, ...]
    counts: tuple[int, ...]
    synonyms: "SynonymExpansion | None" = None  # the expansion step, when synonyms were applied (docs/synonyms.md)


def analyze_query(index: InvertedIndex, text: str) -> AnalyzedQuery:
    language = index.analyzer.language_of(text)
    counts = index.analyzer.term_counts(text, language)
    terms = tuple(sorted(counts))
    return AnalyzedQuery(text, language, terms, tuple(counts[t] for t in terms))
