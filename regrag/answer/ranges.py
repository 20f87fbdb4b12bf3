"""Numbers inside a stated range: "repaid in the 8th month after drawdown" is
answered by "applies if the loan is repaid within the first 12 months after
drawdown" (session 41). The question's ``8th`` is then not a missing number:
the evidence states a range of the same unit holding it.

A question's number of a unit (``8th month``, ``8 months``, ``第8个月``, ``8个月``)
is *held* by a text writing ``within (the first) M <unit>s``, ``in the first M
<unit>s`` or ``M个<unit>内/以内`` with the number at most M, in months, days,
weeks or years. A pure function of the two texts.
"""

from __future__ import annotations

import re

_UNITS_EN = {"day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
             "year": "year", "years": "year"}
_UNITS_ZH = {"天": "day", "日": "day", "周": "week", "月": "month", "年": "year"}
_ASKED = (
    re.compile(r"(?<![\w.,])(\d+(?:st|nd|rd|th)?)\s+(days?|weeks?|months?|years?)\b", re.IGNORECASE),
    re.compile(r"第?(\d+)个?(天|日|周|月|年)"),
)
_STATED = (
    re.compile(r"\b(?:within|in)\s+(?:the\s+)?(?:first\s+)?(\d+)\s+(days?|weeks?|months?|years?)\b", re.IGNORECASE),
    re.compile(r"(\d+)个?(天|日|周|月|年)(?:以内|之内|内)"),
)


def _unit(word: str) -> str:
    return _UNITS_EN.get(word.casefold()) or _UNITS_ZH[word]


def ranged_numbers(question: str, texts: list[str]) -> tuple[str, ...]:
    """The numbers of ``question`` (as it writes them: ``8th``) that one of
    ``texts`` holds in a stated range of the same unit, in question order."""
    ranges = [(int(match.group(1)), _unit(match.group(2)))
              for text in texts for pattern in _STATED for match in pattern.finditer(text)]
    held: list[str] = []
    for pattern in _ASKED:
        for match in pattern.finditer(question):
            word, unit = match.group(1), _unit(match.group(2))
            number = int(re.match(r"\d+", word).group())
            if any(unit == stated and 0 < number <= limit for limit, stated in ranges) and word not in held:
                held.append(word)
    return tuple(held)
