"""Which hit is the evidence passage: the top one, unless a lower hit holds
the question's numbers as well as everything the top one holds
(docs/answers.md, "The evidence passage"; session 33).

BM25 reads a date such as ``22/7/2026`` as three numbers, so the passage
reporting the session of 22 July can rank below one about another session
of 2026 that shares the question's other words. The confidence then counts
the date as missing and refuses, although the passage that answers is in
the hits. ``ask`` takes as its evidence the first hit (of its ``k``) that

- holds every content term of the question that the top hit holds,
- holds the question's numbers that the top hit lacks (as
  ``regrag.answer.confidence.missing_numbers`` reads them), and
- holds each date the question writes with slashes (``6/1/2026``,
  ``quý 3/2026``) as a date: written so in its text or section title
  (leading zeros ignored, a quarter kept apart from a month), or, for a
  day, as its document's ``date`` (day/month/year, the order of the
  project's Vietnamese and European corpora), so that a stray ``3`` and a
  ``2026`` do not make ``3/2026``, and a report dated in March does not
  answer for ``quý 3/2026``.

When the top hit holds the question's numbers but lacks a content term, the
evidence is the first lower hit (of the ``k``) holding every content term, if
one does (session 40: a passage holding all of the question beats one holding
part of it; a lower hit holding only more of it than the top was measured in
session 33 and dropped, it answered near misses).

Failing the rules above, a lower hit with the top hit's very score (a tie)
holding every content term the top hit holds and more is the evidence, the
one holding most (session 41): the search orders tied hits by document and
offset, which says nothing of the evidence.

Before all of those, for a question asking a limit one way
(``regrag.answer.bounds``: "最多能买多少钱", "the minimum partial prepayment")
whose answer has a type with spans, when no
sentence of the top hit states that limit beside a span of the type, the
evidence is the first lower hit holding the content terms the top hit holds (but
CJK bigrams only joining two words it holds, ``regrag.answer.cjk_junctions``) and
such a sentence ("单个投资者持有稳禧180的金额上限为人民币50,000,000元"; session 41),
a span in the unit or of the counter the question asks, if it asks one
(``座`` of "最多能给几座的车").

For a definition question, the evidence is instead the first hit whose
passage defines the asked term in quotes (``regrag.answer.definitions``:
'"Senior manager" means …' for "How does the VSMC define a senior
manager?"), else the top hit.

Nothing else moves: the answer's hits stay in search order, each with its
rank, and the confidence records the evidence passage and its rank.
"""

from __future__ import annotations

from typing import Sequence

from regrag.answer.answer_types import TYPED, typed_spans
from regrag.answer.bounds import asked_bound, states
from regrag.answer.cjk_junctions import bridged_bigrams
from regrag.answer.confidence import content_terms
from regrag.answer.evidence import evidence_characters, evidence_terms, named_in_question
from regrag.answer.units import asked_counter, asked_unit, span_counts, span_has_unit
from regrag.text.sentences import sentence_spans
from regrag.answer.specifics import missing_numbers
from regrag.answer.definitions import defines
from regrag.answer.question import read_question
from regrag.answer.date_groups import date_groups, holds_dates


def evidence_rank(index, question: str, terms: Sequence[str], hits: Sequence) -> int:
    """The position in ``hits`` (0 = the top hit) of the evidence passage for
    the question's content ``terms``, chosen as the module docstring says."""
    return evidence_choice(index, question, terms, hits)[0]


# why the evidence passage is a lower hit, as ``regrag ask`` says it: "(the higher ones …)"
NO_DEFINITION = "do not define the term asked"
NO_NUMBER = "lack a number of the question"
NO_TERM = "lack a term of the question"
NO_LIMIT = "do not state the limit asked"
NO_TIE = "tie with it and hold fewer terms of the question"


def evidence_choice(index, question: str, terms: Sequence[str], hits: Sequence) -> tuple[int, str]:
    """The evidence passage's position in ``hits`` and why the higher ones
    are not it (one of the reasons above; "" for the top hit)."""
    if len(hits) < 2:
        return 0, ""
    if read_question(question).expected_type == "definition":
        language = index.analyze_query(question).language
        _names, inside = named_in_question(index, question, language)
        asked = tuple(t for t in terms if t not in inside)
        for position, hit in enumerate(hits):
            start, end = hit.passage_span
            if defines(index, language, asked, index.document(hit.document_id).text[start:end]):
                return position, NO_DEFINITION if position else ""
        return 0, ""
    top = evidence_terms(index, hits[:1])
    lacking = missing_numbers(tuple(terms), top)
    bounded = _stating_the_bound(index, question, terms, hits, top)
    if bounded is not None:
        return bounded, NO_LIMIT
    if not lacking:
        position = _covering_every_term(index, terms, hits, top)
        if position:
            return position, NO_TERM
        position = _tied_holding_more(index, terms, hits, top)
        return position, NO_TIE if position else ""
    held = [term for term in terms if term in top]
    groups = date_groups(question)
    for position, hit in enumerate(hits[1:], start=1):
        found = evidence_terms(index, [hit])
        if (all(term in found for term in held) and not missing_numbers(tuple(terms), found)
                and holds_dates(index, hit, groups)):
            return position, NO_NUMBER
    position = _tied_holding_more(index, terms, hits, top)
    return position, NO_TIE if position else ""


def evidence_reason(index, question: str, hits: Sequence) -> str:
    """Why the evidence passage is a lower hit of ``hits`` (search order), chosen again from them
    ("were not chosen" when no rule of this module chose it)."""
    terms = content_terms(index.analyzer, question, index.analyze_query(question).language)
    return evidence_choice(index, question, terms, list(hits))[1] or "were not chosen"


def _tied_holding_more(index, terms: Sequence[str], hits: Sequence, top: set[str]) -> int:
    """The position of the first lower hit with the top hit's very score that
    holds every content term the top hit holds and more (session 41), else 0:
    between tied hits the search's order is by document and offset, which
    says nothing of the evidence."""
    held = {term for term in terms if term in top}
    best, position = len(held), 0
    for place, hit in enumerate(hits[1:], start=1):
        if hit.score != hits[0].score:
            break
        found = {term for term in terms if term in evidence_terms(index, [hit])}
        if held < found and len(found) > best:
            best, position = len(found), place
    return position


def _covering_every_term(index, terms: Sequence[str], hits: Sequence, top: set[str]) -> int:
    """The position of the first lower hit holding every content term when
    the top hit lacks one (session 40), else 0 (the top hit)."""
    if all(term in top for term in terms):
        return 0
    for position, hit in enumerate(hits[1:], start=1):
        found = evidence_terms(index, [hit])
        if all(term in found for term in terms):
            return position
    return 0


def _stating_the_bound(index, question: str, terms: Sequence[str], hits: Sequence, top: set[str]) -> int | None:
    """For a question asking a limit of a typed answer ("最多能买多少钱"),
    when no sentence of the top hit states that limit beside a span of the
    type, the position of the first lower hit holding the content terms the
    top hit holds and such a sentence (session 41); else None."""
    side, _spans = asked_bound(question)
    kind = read_question(question).expected_type
    if side is None or kind not in TYPED:
        return None
    wanted = (asked_unit(question) if kind == "duration" else None,
              asked_counter(question) if kind in ("count", "figure") else None)
    if _states_typed(index, hits[0], side, kind, wanted):
        return None
    held = [term for term in terms if term in top]
    tokens = index.analyzer.analyze(question, index.analyze_query(question).language)
    for position, hit in enumerate(hits[1:], start=1):
        if not _states_typed(index, hit, side, kind, wanted):
            continue
        found = evidence_terms(index, [hit])
        lacking = {term for term in held if term not in found}
        # a CJK bigram only joining two words it holds (车投 of 的车投保) is not lacking
        if not lacking or lacking <= bridged_bigrams(tokens, frozenset(terms), found, evidence_characters(index, [hit])):
            return position
    return None


def _states_typed(index, hit, side: str, kind: str, wanted: tuple[str | None, str | None]) -> bool:
    """Whether a sentence of the hit's passage states the limit (``side``) and
    holds a span of ``kind`` (in the unit, of the counter, ``wanted``, if any)."""
    start, end = hit.passage_span
    text = index.document(hit.document_id).text
    unit, counter = wanted
    for s, e in sentence_spans(text, start, end):
        sentence = text[s:e]
        if states(sentence, side) and any(span_has_unit(sentence[a:b], unit) and span_counts(sentence, a, b, counter)
                                          for a, b in typed_spans(sentence, kind)):
            return True
    return False
