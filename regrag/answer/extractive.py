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
from dataclasses import dataclass, replace

from regrag.audit.canonical import JsonRecord, canonical_json, record_dict
from regrag.answer.abbreviations import abbreviated, spelled_out
from regrag.answer.answer_types import has_type
from regrag.answer.confidence import Confidence, content_terms, measure_confidence
from regrag.answer.evidence_choice import evidence_rank
from regrag.answer.rules_version import ANSWER_RULES
from regrag.answer.sentence_pool import order_pool
from regrag.answer.short_answer import ShortAnswer, short_answer
from regrag.answer.table_rows import row_context
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
    # the shortest span of the expected type, cited to its characters (None when refused)
    short_answer: ShortAnswer | None = None

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
        """Every field, whether it was found, its text, and the answer rules
        that made it (``regrag.answer.rules_version``)."""
        return record_dict(self, answer_rules=ANSWER_RULES, found=self.found, text=self.text)

    def to_json(self) -> str:
        return canonical_json(self.to_dict())


def answer_question(searcher: Searcher, question: str, options: AskOptions | None = None) -> Answer:
    """Answer ``question`` from ``searcher`` (an ``regrag.Index``) by extraction.

    Below ``options.threshold`` confidence the answer is refused: no sentences,
    but the hits (the closest passages) and the confidence record are kept."""
    options = options if options is not None else AskOptions()
    found = searcher.search(question, options=options.search)
    if not found:
        return Answer(question, (), tuple(found), searcher.index_id, measure_confidence(searcher, question, found, options))
    # the evidence passage leads (regrag.answer.evidence_choice): the top hit, unless a
    # lower one also holds the question's numbers; the answer keeps the search order
    language = searcher.analyze_query(question).language
    position = evidence_rank(searcher, question, content_terms(searcher.analyzer, question, language), found)
    hits = [found[position], *found[:position], *found[position + 1:]]
    reading = measure_confidence(searcher, question, hits, options)
    terms = frozenset(reading.content_terms) | synonym_terms(searcher, question, reading)
    kind = reading.expected_type
    spelled = spelled_out(searcher.analyzer, question, language, terms)
    chosen = select_sentences(searcher, question, hits, options.max_sentences, expected_type=kind, terms=terms,
                              table_rows=True, abbreviations=spelled)
    # The short answer comes from the evidence passage (the top hit) when it can:
    # its sentences first, then the answer's; the sentence holding it leads the answer.
    own = select_sentences(searcher, question, hits[:1], len(chosen) + 8, 1, expected_type=kind, terms=terms,
                           table_rows=True, abbreviations=spelled)
    rest = [s for s in chosen if s not in own]
    pool = order_pool(searcher, question, reading, own + rest, options.search.synonyms)
    short = short_answer(searcher, question, kind, pool, terms)
    if short is None or pool[short.sentence].passage_id != hits[0].passage_id:
        # rather than answer from another passage (session 41; another document before), the evidence
        # passage's sentences below the support cut that hold a span of the expected type are tried first
        below = [s for s in select_sentences(searcher, question, hits[:1], len(chosen) + 8, 1, expected_type=kind,
                                             terms=terms, table_rows=True, abbreviations=spelled, keep_typed=True)
                 if s not in own]
        wider = order_pool(searcher, question, reading, own + below + rest, options.search.synonyms) if below else []
        found_below = short_answer(searcher, question, kind, wider, terms) if wider else None
        if found_below is not None and wider[found_below.sentence].passage_id == hits[0].passage_id:
            pool, short = wider, found_below
    holder = pool[short.sentence] if short is not None else None
    confidence = measure_confidence(searcher, question, hits, options, holder) if holder is not None else reading
    if confidence.refused:
        return Answer(question, (), tuple(found), searcher.index_id, confidence)
    # The supporting sentences are chosen as issue 3 chose them (every query
    # term's IDF, no type order), so the answer holds every sentence it held
    # then; the sentence holding the short answer leads, added when it is not
    # one of them (so an answer has at most max_sentences + 1 sentences).
    support = select_sentences(searcher, question, found, options.max_sentences)
    if holder is not None:
        support = [holder, *(s for s in support if s.text != holder.text)]
        short = replace(short, sentence=0)
    return Answer(question, tuple(support), tuple(found), searcher.index_id, confidence, short)


def synonym_terms(searcher: Searcher, question: str, confidence: Confidence) -> frozenset[str]:
    """The analysed terms of the evidence words of the lexicon steps taken (``kept~keep``: ``keep``)."""
    language = searcher.analyze_query(question).language
    return frozenset(term for step in confidence.synonyms
                     for term, _s, _e in searcher.analyzer.analyze(step.split("~", 1)[1], language) if " " not in term)


def select_sentences(searcher: Searcher, question: str, hits, max_sentences: int = 3,
                     evidence_passages: int = EVIDENCE_PASSAGES, expected_type: str | None = None,
                     terms: frozenset[str] | None = None, table_rows: bool = False,
                     abbreviations: dict[str, tuple[frozenset[str], str]] | None = None,
                     keep_typed: bool = False) -> list[AnswerSentence]:
    """The best-supported sentences of the first ``evidence_passages`` hits
    (steps 2–4 above); shared with the stock-news pipeline's extractive
    generator. ``ask`` passes the question's content ``terms`` (no
    scaffolding; lexicon equivalents added) and its ``expected_type``:
    among the sentences above the support cut, those holding a span of that
    type come first. With ``table_rows``, a table row's support also counts
    the query terms of its header line or CSV record
    (``regrag.answer.table_rows``): the row is still cited verbatim. With
    ``abbreviations`` (``regrag.answer.abbreviations.spelled_out``), a word
    in capitals counts as the question's words it abbreviates (``LCR``)."""
    query_terms = set(terms) if terms is not None else set(searcher.analyze_query(question).terms)
    candidates: list[AnswerSentence] = []
    for hit in hits[:evidence_passages]:
        document = searcher.document(hit.document_id)
        start, end = hit.passage_span
        body_terms, _title_terms = searcher.passage_terms(searcher.position_of(hit.passage_id))
        # the query's occurrences in the passage, by start: each sentence looks up its own
        # (bisect), so the work is linear in the passage, not sentences x terms
        occurrences = sorted([(s, e, term) for term, s, e in body_terms if term in query_terms]
                             + [(s, e, term) for s, e, term in abbreviated(document.text, start, end, abbreviations or {})
                                if term in query_terms and searcher.term_idf(term) is not None])
        occurrence_starts = [s for s, _e, _term in occurrences]

        def terms_within(low: int, high: int) -> set[str]:
            first = bisect.bisect_left(occurrence_starts, low)
            last = bisect.bisect_left(occurrence_starts, high, first)
            return {term for _s, e, term in occurrences[first:last] if e <= high}

        for sentence_start, sentence_end in sentence_spans(document.text, start, end):
            found = terms_within(sentence_start, sentence_end)
            context = row_context(document.text, sentence_start, sentence_end, start, end) if table_rows else None
            if found and context is not None:  # a table row: its header's or record's words count for it
                found |= terms_within(*context)
                if context[0] <= sentence_start and sentence_end <= context[1]:
                    sentence_start, sentence_end = context  # a CSV record is cited whole
            matched = sorted(found)
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
    if expected_type is not None and candidates:
        cut = SUPPORT_RATIO * candidates[0].support
        below = ([c for c in candidates if c.support < cut and has_type(c.text, expected_type)]
                 if keep_typed and expected_type != "party" else [])
        candidates = [c for c in candidates if c.support >= cut]
        candidates.sort(key=lambda c: (not has_type(c.text, expected_type), -c.support, c.hit_rank, c.span[0]))
        candidates += below  # already by support
    chosen: list[AnswerSentence] = []
    seen_texts: set[str] = set()
    for candidate in candidates:
        if len(chosen) >= max_sentences or (expected_type is None and candidate.support < SUPPORT_RATIO * candidates[0].support):
            break
        if candidate.text in seen_texts:
            continue
        seen_texts.add(candidate.text)
        chosen.append(candidate)
    return chosen
