"""Query analysis: a query's language, its distinct terms and their counts.

The terms are sorted (ascending code points): every ranking and explanation
takes them in that order, so a score is the same float wherever it is summed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from regrag.index.build import InvertedIndex


@dataclass(frozen=True)
class AnalyzedQuery:
    """A query's language, its distinct terms (sorted) and their counts."""

    text: str
    language: str
    terms: tuple[str, ...]
    counts: tuple[int, ...]


def analyze_query(index: InvertedIndex, text: str) -> AnalyzedQuery:
    language = index.analyzer.language_of(text)
    counts = Counter(term for term, _s, _e in index.analyzer.analyze(text, language))
    terms = tuple(sorted(counts))
    return AnalyzedQuery(text, language, terms, tuple(counts[t] for t in terms))
