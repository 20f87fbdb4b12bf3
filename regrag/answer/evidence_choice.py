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

For a definition question, the evidence is instead the first hit whose
passage defines the asked term in quotes (``regrag.answer.definitions``:
'"Senior manager" means …' for "How does the VSMC define a senior
manager?"), else the top hit.

Nothing else moves: the answer's hits stay in search order, each with its
rank, and the confidence records the evidence passage and its rank.
"""

from __future__ import annotations

from typing import Sequence

from regrag.answer.evidence import evidence_terms, named_in_question
from regrag.answer.specifics import missing_numbers
from regrag.answer.definitions import defines
from regrag.answer.question import read_question
from regrag.answer.date_groups import date_groups, holds_dates


def evidence_rank(index, question: str, terms: Sequence[str], hits: Sequence) -> int:
    """The position in ``hits`` (0 = the top hit) of the evidence passage for
    the question's content ``terms``, chosen as the module docstring says."""
    if len(hits) < 2:
        return 0
    if read_question(question).expected_type == "definition":
        language = index.analyze_query(question).language
        _names, inside = named_in_question(index, question, language)
        asked = tuple(t for t in terms if t not in inside)
        for position, hit in enumerate(hits):
            start, end = hit.passage_span
            if defines(index, language, asked, index.document(hit.document_id).text[start:end]):
                return position
        return 0
    top = evidence_terms(index, hits[:1])
    lacking = missing_numbers(tuple(terms), top)
    if not lacking:
        return _covering_every_term(index, terms, hits, top)
    held = [term for term in terms if term in top]
    groups = date_groups(question)
    for position, hit in enumerate(hits[1:], start=1):
        found = evidence_terms(index, [hit])
        if (all(term in found for term in held) and not missing_numbers(tuple(terms), found)
                and holds_dates(index, hit, groups)):
            return position
    return 0


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
