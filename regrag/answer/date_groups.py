"""Dates a question writes with slashes (``22/7/2026``, ``quý 3/2026``) and
whether a passage holds them as dates (docs/answers.md, "The evidence
passage"). The analyzer reads ``22/7/2026`` as three numbers; these helpers
keep it one date, so a stray ``3`` and a ``2026`` apart do not make ``3/2026``;
``other_day`` finds a cited sentence that reports another day than the one asked;
``unwritten_quarters`` the quarters asked that the evidence's document never names.
"""

from __future__ import annotations

import re
from typing import Sequence

# a number group joined by slashes: a day/month/year date or a month/year period;
# a quarter may lead in Roman numerals, as Vietnamese reports write it ("quý III/2026")
_DATE_GROUP = re.compile(r"(?:(?<![\d/])\d{1,4}|(?<![\w/])(?:IV|I{1,3}))(?:/\d{1,4}){1,2}(?![\d/])")
_ROMAN = {"I": "1", "II": "2", "III": "3", "IV": "4"}
# the word that makes a month/year group a quarter: "quý 3/2026" is not "tháng 3/2026"
# (read on the few characters before the group only, so a long passage is not rescanned per date)
_QUARTER_BEFORE = re.compile(r"(?<!\w)(?:quý|quarter|Q)\s*$", re.IGNORECASE)
_BEFORE_WIDTH = 12


def date_groups(text: str) -> tuple[str, ...]:
    """The slash-joined number groups of ``text``, leading zeros dropped, in
    order of first appearance; a quarter (after ``quý``, ``Q``, ``quarter``,
    or in Roman numerals) is marked ``Q`` with its digit, so it never equals a
    month (``'ngày 06/01/2026, quý III/2026, tháng 3/2026'`` ->
    ``('6/1/2026', 'Q3/2026', '3/2026')``)."""
    found: list[str] = []
    for match in _DATE_GROUP.finditer(text):
        first = match.group().split("/", 1)[0]
        before = text[max(0, match.start() - _BEFORE_WIDTH):match.start()]
        quarter = first in _ROMAN or bool(_QUARTER_BEFORE.search(before))
        group = ("Q" if quarter else "") + _normal(match.group())
        if group not in found:
            found.append(group)
    return tuple(found)


def _normal(group: str) -> str:
    """``group`` with leading zeros dropped and a Roman numeral read as its digit."""
    return "/".join(_ROMAN.get(part) or part.lstrip("0") or "0" for part in group.split("/"))


def holds_dates(index, hit, groups: Sequence[str]) -> bool:
    """Whether the passage of ``hit`` holds each of ``groups`` as a date."""
    if not groups:
        return True
    document = index.document(hit.document_id)
    start, end = hit.passage_span
    written = set(date_groups(document.text[start:end])) | set(date_groups(hit.section_title))
    written |= _metadata_dates(document)
    return all(group in written for group in groups)


def _metadata_dates(document) -> set[str]:
    """A ``date: YYYY-MM-DD`` as the slash forms of that day: ``D/M/YYYY`` and
    ``D/M``. Not ``M/YYYY``: a report dated in March does not hold the month
    (nor the quarter) it is dated in, only the day."""
    value = dict(document.metadata).get("date", "")
    match = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", value.strip())
    if match is None:
        return set()
    year, month, day = match.groups()
    return {_normal(f"{day}/{month}/{year}"), _normal(f"{day}/{month}")}


def other_day(index, question: str, sentence, chosen, hits) -> tuple[str, ...]:
    """The question's slash dates (``22/7/2026``) that the evidence passage
    holds but the cited sentence's passage does not, when the sentence comes
    from a document other than the evidence's: it reports another day or
    period (``245 mã tăng giá`` of 6 January for a question on 22 July).
    ``regrag.answer.confidence`` counts them as conflicting numbers (docs/answers.md)."""
    groups = date_groups(question)
    if not groups or any(sentence.document_id == hit.document_id for hit in chosen):
        return ()
    holder = next((hit for hit in hits if hit.passage_id == sentence.passage_id), None)
    if holder is None or not holds_dates(index, chosen[0], groups):
        return ()
    return tuple(group for group in groups if not holds_dates(index, holder, (group,)))


def unwritten_quarters(index, question: str, hit) -> tuple[str, ...]:
    """The quarters the question writes with their year (``quý 2/2026``,
    ``Q3/2026``, ``quý III/2026``) that the document of ``hit`` (the evidence
    passage) writes nowhere with that year, as ``Q2/2026``. A quarterly
    report names its quarter with the year at least once; a report of
    another quarter that mentions "quý II" in passing does not. Months are
    not checked so: a report dated October writes "tháng 9" for September
    (session 33). ``regrag.answer.confidence`` counts them as missing numbers."""
    quarters = tuple(group for group in date_groups(question) if group.startswith("Q"))
    if not quarters:
        return ()
    document = index.document(hit.document_id)
    written = set(date_groups(document.text)) | set(date_groups(document.title))
    return tuple(group for group in quarters if group not in written)


def held_group_numbers(index, question: str, hit) -> frozenset[str]:
    """The numbers (leading zeros dropped) of each slash date of the question
    that the passage of ``hit`` holds as a date: ``3`` and ``2026`` of
    "quý 3/2026" when the passage writes ``quý III/2026``, though the
    analyzer reads ``iii``, not ``3``. They are not missing numbers."""
    held: set[str] = set()
    for group in date_groups(question):
        if holds_dates(index, hit, (group,)):
            held.update(part for part in group.lstrip("Q").split("/"))
    return frozenset(held)
