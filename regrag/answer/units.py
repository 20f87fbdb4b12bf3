"""The unit a duration question asks for, and whether a span has it.

"How many years …", "bao nhiêu năm …", "几年 …" ask for years: a span of
``10 business days`` is a duration, but not an answer to them. ``asked_unit``
reads the unit from the question (English, Vietnamese, Chinese; None when it
names none, as in "how long"); ``span_has_unit`` checks a typed span's text.
Used by ``ask`` for the expected type's support and for the short answer;
likewise ``asks_year`` ("năm nào", "哪一年", "what year") and ``year_of``,
which cut a date answering a year question to its year.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
UNITS: dict[str, tuple[str, str, str]] = {
    # unit: (English, Vietnamese, Chinese)
    "year": (r"years?", r"năm", r"年"),
    "month": (r"months?", r"tháng", r"个?月"),
    "week": (r"weeks?", r"tuần", r"个?(?:周|星期)"),
    "day": (r"(?:calendar\s+|business\s+|working\s+)?days?", r"ngày", r"(?:个)?(?:工作日|天|日)"),
    "hour": (r"hours?", r"giờ|tiếng", r"(?:个)?小时"),
    "minute": (r"minutes?", r"phút", r"分钟"),
}
_ASKED = tuple(
    (unit, re.compile(rf"\bhow\s+many\s+(?:more\s+)?(?:{en})\b|\b(?:bao\s+nhiêu|mấy)\s+(?:{vi})(?![\w])|(?:几|多少)(?:{zh})", _I))
    for unit, (en, vi, zh) in UNITS.items()
)
_IN_SPAN = {unit: re.compile(rf"\b(?:{en})\b|(?:{vi})(?![\w])|(?:{zh})", _I) for unit, (en, vi, zh) in UNITS.items()}


_YEAR_ASKED = re.compile(r"\b(?:what|which|in\s+what)\s+year\b|(?<![\w])năm\s+nào(?![\w])|哪一?年|什么年份|哪个年份", _I)
_YEAR_IN_DATE = re.compile(r"(?<![\w])(?i:năm)\s\d{3,4}(?!\d)|(?<!\d)\d{4}\s?年|(?<![\d/.,:-])(?:1[5-9]|20)\d{2}(?![\d/.,:-])")


def asks_year(question: str) -> bool:
    """Whether the question asks which year ("năm nào", "哪一年", "what year")."""
    return bool(_YEAR_ASKED.search(question))


def year_of(text: str) -> tuple[int, int] | None:
    """The ``[start, end)`` of the year in a date (``năm 2010`` of ``ngày 25
    tháng 2 năm 2010``, ``2010年`` of ``2010年2月25日``), None without one."""
    match = _YEAR_IN_DATE.search(text)
    return match.span() if match else None


def asked_unit(question: str) -> str | None:
    """The first unit the question asks a number of (table order), or None."""
    found = [(match.start(), unit) for unit, pattern in _ASKED for match in [pattern.search(question)] if match]
    return min(found)[1] if found else None


def span_has_unit(text: str, unit: str | None) -> bool:
    """Whether ``text`` (a duration span) is in ``unit`` (always, for None)."""
    return unit is None or bool(_IN_SPAN[unit].search(text))
