"""Extractive answers: the best-supported sentences of the top passages, cited.

How a sentence is chosen (docs/answers.md):
1. search (``hybrid`` by default) for the top ``k`` passages;
2. split the top three passages into sentences (``regrag.text.sentences``);
3. a sentence's support is the sum of the BM25 IDFs of the distinct query
   terms it contains (``math.fsum``, so order-free);
4. keep up to ``max_sentences`` sentences whose support is at least half the
   best one's, ordered by support, then hit rank, then position.
Each answer sentence is a verbatim slice ``document.text[start:end]`` of the
cited document, so numbers, dates and tickers are never altered or cut.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from regrag.audit.canonical import JsonRecord, canonical_json, record_dict
from regrag.answer.confidence import Confidence, measure_confidence
from regrag.answer.options import AskOptions
from regrag.answer.searcher import Searcher
from regrag.provenance import Hit
from regrag.text.sentences import sentence_spans

EVIDENCE_PASSAGES = 3
SUPPORT_RATIO = 0.5


@dataclass(frozen=True)
class AnswerSentence(JsonRecord):
    """One sentence of an answer and exactly where it came from."""

    text: str
    document_id: str
    passage_id: str
    section_title: str
    span: tuple[int, int]
    matched_terms: tuple[str, ...]
    support: float
    hit_rank: int


@dataclass(frozen=True)
class Answer:
    """An extractive answer: cited sentences plus the hits behind them."""

    question: str
    sentences: tuple[AnswerSentence, ...]
    hits: tuple[Hit, ...]
    index_id: str
    confidence: Confidence

    @property
    def found(self) -> bool:
        """True when the answer has sentences: some evidence matched and confidence reached the threshold."""
        return bool(self.sentences)

    @property
    def refused(self) -> bool:
        return self.confidence.refused

    @property
    def text(self) -> str:
        return " ".join(sentence.text for sentence in self.sentences)

    def to_dict(self) -> dict:
        """Every field, and whether it was found and its text."""
        return record_dict(self, found=self.found, text=self.text)

    def to_json(self) -> str:
        return canonical_json(self.to_dict())


def answer_question(searcher: Searcher, question: str, options: AskOptions | None = None) -> Answer:
    """Answer ``question`` from ``searcher`` (an ``regrag.Index``) by extraction.

    Below ``options.threshold`` confidence the answer is refused: no sentences,
    but the hits (the closest passages) and the confidence record are kept."""
    options = options if options is not None else AskOptions()
    hits = searcher.search(question, options=options.search)
    confidence = measure_confidence(searcher, question, hits, options)
    if confidence.refused:
        return Answer(question, (), tuple(hits), searcher.index_id, confidence)
    chosen = select_sentences(searcher, question, hits, options.max_sentences)
    return Answer(question, tuple(chosen), tuple(hits), searcher.index_id, confidence)


def select_sentences(searcher: Searcher, question: str, hits, max_sentences: int = 3,
                     evidence_passages: int = EVIDENCE_PASSAGES) -> list[AnswerSentence]:
    """The best-supported sentences of the first ``evidence_passages`` hits
    (steps 2–4 above); shared with the stock-news pipeline's extractive generator."""
    query_terms = set(searcher.analyze_query(question).terms)
    candidates: list[AnswerSentence] = []
    for hit in hits[:evidence_passages]:
        document = searcher.document(hit.document_id)
        start, end = hit.passage_span
        body_terms, _title_terms = searcher.passage_terms(searcher.position_of(hit.passage_id))
        # the query's occurrences in the passage, by start: each sentence looks up its own
        # (bisect), so the work is linear in the passage, not sentences x terms
        occurrences = sorted((s, e, term) for term, s, e in body_terms if term in query_terms)
        occurrence_starts = [s for s, _e, _term in occurrences]
        for sentence_start, sentence_end in sentence_spans(document.text, start, end):
            first = bisect.bisect_left(occurrence_starts, sentence_start)
            last = bisect.bisect_left(occurrence_starts, sentence_end, first)
            matched = sorted({term for _s, e, term in occurrences[first:last] if e <= sentence_end})
            if not matched:
                continue
            sentence = document.text[sentence_start:sentence_end]
            support = math.fsum(searcher.term_idf(term) for term in matched)  # matched terms are indexed
            candidates.append(
                AnswerSentence(
                    sentence, hit.document_id, hit.passage_id, hit.section_title,
                    (sentence_start, sentence_end), tuple(matched), support, hit.rank,
                )
            )
    candidates.sort(key=lambda c: (-c.support, c.hit_rank, c.span[0]))
    chosen: list[AnswerSentence] = []
    seen_texts: set[str] = set()
    for candidate in candidates:
        if len(chosen) >= max_sentences or candidate.support < SUPPORT_RATIO * candidates[0].support:
            break
        if candidate.text in seen_texts:
            continue
        seen_texts.add(candidate.text)
        chosen.append(candidate)
    return chosen
