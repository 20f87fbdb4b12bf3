"""Answer confidence: how much of the question the best evidence covers, and
whether the two retrievers agree on it. Every input is recorded, so a user
can recompute the number by hand.

Definitions (docs/answers.md):
- *content terms*: the question's distinct analyzed terms, less question and
  function words (``QUESTION_WORDS``, analyzed with the question's own
  rules; for CJK, any bigram containing a character of ``QUESTION_CHARACTERS``;
  for Vietnamese, any syllable pair containing a question syllable);
- each content term weighs its BM25 IDF (a term the corpus lacks weighs the
  IDF of a term in no passage: the largest there is);
- *coverage*: the weight of the content terms found in the top passage (body
  or title) over the weight of all content terms, summed with ``math.fsum``;
- *agreement*: 1 when BM25 and TF-IDF both rank the top passage first, 0.5
  when both rank it in their top 3, else 0;
- *confidence* = coverage × (1 − AGREEMENT_WEIGHT + AGREEMENT_WEIGHT × agreement).
``ask`` refuses when the confidence is below ``REFUSAL_THRESHOLD``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from regrag.scoring.bm25 import bm25_idf

AGREEMENT_WEIGHT = 0.25
REFUSAL_THRESHOLD = 0.5

QUESTION_WORDS = {
    "en": (
        "what which who whom whose when where why how does do did can could would should may might must "
        "much many any some my i me you your we our us about please tell there here is are was were be been "
        "has have had get gets per"
    ),
    "vi": (
        "gì nào bao nhiêu không có là của và được cho những các với trong thì mà sao vậy hả ạ nhỉ khi đâu ai "
        "như thế hay hoặc này đó theo về bị đã đang sẽ một"
    ),
}
QUESTION_CHARACTERS = frozenset("的是了吗呢吧啊么什哪怎如何请问有在和与及或为对要会能可以该这那其之于被把给从到多少几个")


@dataclass(frozen=True)
class Confidence:
    """The confidence of an answer and everything it was computed from."""

    value: float
    coverage: float
    agreement: float
    content_terms: tuple[str, ...]
    covered_terms: tuple[str, ...]
    top_passage_id: str | None
    threshold: float
    refused: bool

    def to_dict(self) -> dict:
        return {
            "agreement": self.agreement,
            "content_terms": list(self.content_terms),
            "coverage": self.coverage,
            "covered_terms": list(self.covered_terms),
            "refused": self.refused,
            "threshold": self.threshold,
            "top_passage_id": self.top_passage_id,
            "value": self.value,
        }


def content_terms(analyzer, question: str, language: str) -> tuple[str, ...]:
    """The question's distinct terms that carry content, sorted."""
    terms = {term for term, _s, _e in analyzer.analyze(question, language)}
    rules = "vi" if language == "vi" else "en"
    stop = {term for term, _s, _e in analyzer.analyze(QUESTION_WORDS[rules], rules)}
    kept = []
    for term in sorted(terms):
        if term in stop:
            continue
        if any(character in QUESTION_CHARACTERS for character in term):
            continue
        if language == "vi" and " " in term and any(part in stop for part in term.split(" ")):
            continue
        kept.append(term)
    return tuple(kept)


def agreement_of(bm25_rank: int | None, tfidf_rank: int | None) -> float:
    if bm25_rank == 1 and tfidf_rank == 1:
        return 1.0
    if bm25_rank is not None and tfidf_rank is not None and bm25_rank <= 3 and tfidf_rank <= 3:
        return 0.5
    return 0.0


def confidence_value(coverage: float, agreement: float) -> float:
    return coverage * (1.0 - AGREEMENT_WEIGHT + AGREEMENT_WEIGHT * agreement)


def measure_confidence(
    index, question: str, hits, threshold: float = REFUSAL_THRESHOLD, filters=None, entities: bool = True
) -> Confidence:
    """Confidence of answering ``question`` from ``hits`` (the search results
    obtained with the same ``filters`` and ``entities`` setting)."""
    inverted = index.inverted
    analyzed = index.analyze_query(question)
    terms = content_terms(index.analyzer, question, analyzed.language)
    if not hits or not terms:
        return Confidence(0.0, 0.0, 0.0, terms, (), hits[0].passage_id if hits else None, threshold, True)
    top = hits[0]
    covered = tuple(sorted(m.term for m in top.matches if m.term in terms))
    count = inverted.passage_count

    def weight(term: str) -> float:
        postings = inverted.postings.get(term)
        return postings.bm25_idf if postings is not None else bm25_idf(count, 0)

    coverage = math.fsum(weight(t) for t in covered) / math.fsum(weight(t) for t in terms)
    ranks = {}
    for method in ("bm25", "tfidf"):
        ranking = index.ranking(question, k=3, method=method, filters=filters, entities=entities)
        ranks[method] = next((r for r, (_d, pid, _s) in enumerate(ranking, start=1) if pid == top.passage_id), None)
    agreement = agreement_of(ranks["bm25"], ranks["tfidf"])
    value = confidence_value(coverage, agreement)
    return Confidence(value, coverage, agreement, terms, covered, top.passage_id, threshold, value < threshold)
