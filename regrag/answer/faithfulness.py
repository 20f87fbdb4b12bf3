"""Faithfulness: is every figure in an answer in the passages it cites?

A *figure* is a date (``19/3/2026``, ``2026-03-19``, ``2/2026``, ``19/3``),
a percentage (``1,25%``), a number (``1.285,6``, ``3,450``, ``12``) or a
ticker (2–5 capitals and digits with at least one capital: ``HPG``,
``VN30``). Each figure of the answer is looked up among the figures of the
passages the answer cites *in the same sentence* (``[1]``, ``[2, 3]``; a
marker right after a sentence's end, as in ``… 38,5%. [1]``, belongs to that
sentence); a sentence without a citation marker is checked against every
passage the answer cites anywhere. A figure is supported when the same figure occurs in
one of those passages (numbers and percentages verbatim, so ``1.285,6``
does not match ``1285.6``; dates by their day, month and year values; a
number also matches a part of a date or a percentage's number). The result lists, for every figure, where it
was found, and flags the ones that were not: those found only in a passage
that was shown but not cited, and those found nowhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from regrag.audit.canonical import JsonRecord
from regrag.text.sentences import sentence_spans

# Each alternative is linear: digits and separators never overlap, so no backtracking blow-up.
_FIGURE = re.compile(
    r"(?P<iso>(?<![\d.,/])\d{4}-\d{1,2}-\d{1,2}(?![\d/-]))"
    r"|(?P<date>(?<![\d.,/])\d{1,2}/\d{1,2}(?:/\d{2,4})?(?![\d/]))"
    r"|(?P<period>(?<![\d.,/])\d{1,2}/\d{4}(?![\d/]))"
    r"|(?P<number>(?<![\d])\d+(?:[.,]\d+)*(?:\s?%)?)"
    r"|(?P<ticker>(?<![\w])(?=[A-Z0-9]*[A-Z])[A-Z][A-Z0-9]{1,4}(?![\w]))"
)
_CITATION = re.compile(r"\[(\d{1,6}(?:\s*[,;]\s*\d{1,6})*)\]")  # longer numbers are text, not markers


@dataclass(frozen=True)
class Figure(JsonRecord):
    """One figure as written, where, and the keys it can be matched by."""

    text: str
    kind: str  # date | percentage | number | ticker
    start: int
    end: int
    key: str


def _date_key(day: int | None, month: int | None, year: int | None) -> str:
    return "date:" + "/".join("" if part is None else str(part) for part in (day, month, year))


def extract_figures(text: str) -> list[Figure]:
    """Every figure in ``text``, in order of position."""
    figures: list[Figure] = []
    for match in _FIGURE.finditer(text):
        kind = match.lastgroup
        surface = match.group()
        start, end = match.span()
        if kind == "iso":
            year, month, day = (int(part) for part in surface.split("-"))
            figures.append(Figure(surface, "date", start, end, _date_key(day, month, year)))
        elif kind == "date":
            parts = [int(part) for part in surface.split("/")]
            day_year = parts[2] if len(parts) == 3 else None
            figures.append(Figure(surface, "date", start, end, _date_key(parts[0], parts[1], day_year)))
        elif kind == "period":
            month, year = (int(part) for part in surface.split("/"))
            figures.append(Figure(surface, "date", start, end, _date_key(None, month, year)))
        elif kind == "number":
            if surface.endswith("%"):
                figures.append(Figure(surface, "percentage", start, end, "percent:" + surface.rstrip("%").rstrip()))
            else:
                figures.append(Figure(surface, "number", start, end, "number:" + surface))
        else:
            figures.append(Figure(surface, "ticker", start, end, "ticker:" + surface))
    return figures


def evidence_keys(text: str) -> set[str]:
    """Keys under which ``text``'s figures can be found: each figure's own key,
    and for numbers also the parts of its dates and percentages."""
    keys: set[str] = set()
    for figure in extract_figures(text):
        keys.add(figure.key)
        value = figure.key.split(":", 1)[1]
        if figure.kind == "date":
            day, month, year = value.split("/")
            keys.update(f"number:{part}" for part in (day, month, year) if part)
            keys.update(f"number:{part:0>2}" for part in (day, month) if part)
            if month and year:
                keys.add(_date_key(None, int(month), int(year)))
            if day and month:
                keys.add(_date_key(int(day), int(month), None))
        elif figure.kind == "percentage":
            keys.add("number:" + value)
    return keys


@dataclass(frozen=True)
class FigureCheck:
    """One figure of the answer and where it was found."""

    figure: Figure
    cited: tuple[int, ...]  # the passage numbers it was checked against
    found_in: tuple[int, ...]  # cited passages holding it
    found_uncited: tuple[int, ...]  # passages shown to the generator but not cited, holding it

    @property
    def supported(self) -> bool:
        return bool(self.found_in)

    def to_dict(self) -> dict:
        return {
            "checked_against": list(self.cited),
            "figure": self.figure.to_dict(),
            "found_in": list(self.found_in),
            "found_only_in_uncited": list(self.found_uncited) if not self.found_in else [],
            "supported": self.supported,
        }


@dataclass(frozen=True)
class FaithfulnessReport:
    """Every figure of an answer checked against its citations."""

    checks: tuple[FigureCheck, ...]
    citations: tuple[int, ...]  # every passage number the answer cites
    unknown_citations: tuple[int, ...]  # markers naming no passage

    @property
    def unsupported(self) -> tuple[FigureCheck, ...]:
        return tuple(check for check in self.checks if not check.supported)

    @property
    def faithful(self) -> bool:
        return not self.unsupported and not self.unknown_citations

    def to_dict(self) -> dict:
        return {
            "citations": list(self.citations),
            "faithful": self.faithful,
            "figures": [check.to_dict() for check in self.checks],
            "unknown_citations": list(self.unknown_citations),
            "unsupported": [check.figure.text for check in self.unsupported],
        }


def citations_in(text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """``(start, end, passage numbers)`` of each citation marker."""
    found = []
    for match in _CITATION.finditer(text):
        numbers = tuple(int(part) for part in re.split(r"\s*[,;]\s*", match.group(1)))
        found.append((match.start(), match.end(), numbers))
    return found


def check_answer(answer: str, passages: Sequence[str]) -> FaithfulnessReport:
    """Check ``answer`` against ``passages`` (numbered from 1, as in the prompt)."""
    known = range(1, len(passages) + 1)
    # A bracketed number that names no passage but is quoted from one (a
    # footnote such as "thế kỷ [21]") is source text, not a citation.
    markers = [
        (s, e, numbers) for s, e, numbers in citations_in(answer)
        if all(n in known for n in numbers) or not any(answer[s:e] in text for text in passages)
    ]
    cited_anywhere = sorted({n for _s, _e, numbers in markers for n in numbers})
    unknown = tuple(n for n in cited_anywhere if n not in known)
    cited_valid = tuple(n for n in cited_anywhere if n in known)
    keys = [evidence_keys(text) for text in passages]
    marker_spans = [(s, e) for s, e, _n in markers]
    sentences = list(_sentences(answer))
    owned: list[set[int]] = [set() for _ in sentences]
    for start, end, numbers in markers:
        at = next((i for i, (s, e) in enumerate(sentences) if s <= start < e), len(sentences) - 1)
        if at > 0 and not answer[sentences[at][0] : start].strip():
            at -= 1  # "… 38,5%. [1]": a marker opening a sentence closes the previous one
        owned[at].update(n for n in numbers if n in known)
    checks: list[FigureCheck] = []
    for (sentence_start, sentence_end), own in zip(sentences, owned):
        scope = sorted(own) or list(cited_valid)
        for figure in extract_figures(answer[sentence_start:sentence_end]):
            start, end = figure.start + sentence_start, figure.end + sentence_start
            if any(s <= start and end <= e for s, e in marker_spans):
                continue  # the digits of a citation marker
            placed = Figure(figure.text, figure.kind, start, end, figure.key)
            found = tuple(n for n in scope if figure.key in keys[n - 1])
            elsewhere = tuple(n for n in known if n not in scope and figure.key in keys[n - 1])
            checks.append(FigureCheck(placed, tuple(scope), found, elsewhere))
    return FaithfulnessReport(tuple(checks), cited_valid, unknown)


def _sentences(text: str) -> Iterable[tuple[int, int]]:
    spans = list(sentence_spans(text, 0, len(text)))
    return spans or [(0, len(text))]
