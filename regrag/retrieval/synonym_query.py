"""Query-time synonym expansion: an ``AnalyzedQuery`` rewritten by the rules
of a ``SynonymSet`` (``regrag.text.synonyms``), with a record of each step.

How (docs/synonyms.md):
1. every entry of every rule is analysed with the index's analyzer under
   the query's language (so ``penalties`` matches the entry ``penalty``);
2. an entry *matches* when its word terms (the analysed terms without a
   space) occur as a contiguous run of the query's word terms;
3. a matched entry adds every analysed term of the entries it stands for
   (an equivalence: the other entries; a one-way rule: its right side),
   each as one more distinct query term with count 1 — scored exactly as if
   the user had typed it once (BM25 sums each distinct term's impact; the
   TF-IDF query weight uses count 1); a term already in the query is left
   as it is;
4. a one-way rule (``a => b``) also removes the matched entry's terms, as
   Solr replaces them, unless another step adds or keeps them.
Rules are matched against the original query only (no chains), in the
file's order; the steps are sorted by line and entry, the terms by code
point, so the expansion is a pure function of the query, the rules and
the analyzer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from regrag.retrieval.query import AnalyzedQuery
from regrag.text.analyzer import Analyzer
from regrag.text.synonyms import SynonymSet


@dataclass(frozen=True)
class SynonymStep:
    """One matched entry: the rule's line, the entry, the terms it added
    (not already in the query) and the terms it removed (one-way rules)."""

    line: int
    matched: str
    added: tuple[str, ...]
    removed: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"added": list(self.added), "line": self.line, "matched": self.matched, "removed": list(self.removed)}


@dataclass(frozen=True)
class SynonymExpansion:
    """The set used (name, SHA-256, version) and the steps taken, as hits record it."""

    name: str
    sha256: str
    version: str
    steps: tuple[SynonymStep, ...]
    original_terms: tuple[str, ...]

    def to_dict(self) -> dict:
        found = {"name": self.name, "original_terms": list(self.original_terms), "sha256": self.sha256,
                 "steps": [step.to_dict() for step in self.steps]}
        if self.version:
            found["version"] = self.version
        return found


@lru_cache(maxsize=4096)
def _entry_terms(analyzer: Analyzer, entry: str, language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The entry's word terms in order, and all its distinct terms (sorted)."""
    terms = analyzer.analyze(entry, language)
    return tuple(t for t, _s, _e in terms if " " not in t), tuple(sorted({t for t, _s, _e in terms}))


def _occurs(run: tuple[str, ...], words: tuple[str, ...]) -> bool:
    width = len(run)
    return bool(width) and any(words[i:i + width] == run for i in range(len(words) - width + 1))


def expand_query(analyzer: Analyzer, analyzed: AnalyzedQuery, synonyms: SynonymSet | None) -> AnalyzedQuery:
    """``analyzed`` with the terms ``synonyms`` add (and remove), and the
    record of it in ``AnalyzedQuery.synonyms``; unchanged without ``synonyms``."""
    if synonyms is None:
        return analyzed
    language = analyzed.language
    words = tuple(t for t, _s, _e in sorted(analyzer.analyze(analyzed.text, language), key=lambda x: (x[1], x[2]))
                  if " " not in t)
    original = set(analyzed.terms)
    matched: list[tuple[int, str, tuple[str, ...], tuple[str, ...], bool]] = []
    for rule in synonyms.rules:
        for entry, others in rule.mappings():
            run, entry_terms = _entry_terms(analyzer, entry, language)
            if not _occurs(run, words):
                continue
            added = tuple(sorted({t for other in others for t in _entry_terms(analyzer, other, language)[1]}))
            matched.append((rule.line, entry, added, entry_terms, rule.one_way and entry not in rule.outputs))
    added_all = {t for _l, _e, added, _t, _w in matched for t in added}
    kept = {t for _l, _e, _a, terms, one_way in matched if not one_way for t in terms}
    removed_all = {t for _l, _e, _a, terms, one_way in matched if one_way for t in terms} - added_all - kept
    counts = {t: c for t, c in zip(analyzed.terms, analyzed.counts) if t not in removed_all}
    for term in added_all:
        counts.setdefault(term, 1)
    steps = tuple(sorted(
        (SynonymStep(line, entry, tuple(t for t in added if t not in original),
                     tuple(t for t in terms if t in removed_all and t in original) if one_way else ())
         for line, entry, added, terms, one_way in matched), key=lambda step: (step.line, step.matched)))
    terms = tuple(sorted(counts))
    expansion = SynonymExpansion(synonyms.name, synonyms.sha256, synonyms.version, steps, analyzed.terms)
    return AnalyzedQuery(analyzed.text, language, terms, tuple(counts[t] for t in terms), expansion)
