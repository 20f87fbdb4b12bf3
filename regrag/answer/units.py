"""The unit a duration question asks for, and whether a span has it.

"How many years …", "bao nhiêu năm …", "几年 …" ask for years: a span of
``10 business days`` is a duration, but not an answer to them. ``asked_unit``
reads the unit from the question (English, Vietnamese, Chinese; None when it
names none, as in "how long"); ``span_has_unit`` checks a typed span's text.
Likewise ``asked_counter`` reads the thing a count question counts ("how
many remittances", "bao nhiêu mã", "几次") and ``span_counts`` checks that a
number counts it (``41 mã``, ``3次``; not ``16:00``, not ``21,63 điểm``).
Used by ``ask`` for the expected type's support and for the short answer;
likewise ``asks_year`` ("năm nào", "哪一年", "what year") and ``year_of``,
which cut a date answering a year question to its year; ``other_units`` and
``other_counts`` find a cited sentence that gives a period of another kind
(``10 business days`` for "how many years", ``515 triệu năm`` for "bao nhiêu loài").
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


# days of one kind: "how many business days" is not answered by "30 calendar days", nor the reverse
_DAY_KINDS = (
    ("business-day", re.compile(r"\b(?:business|working)\s+days?\b|工作日", _I),
     re.compile(r"\bcalendar\s+days?\b|自然日|日历日", _I)),
    ("calendar-day", re.compile(r"\bcalendar\s+days?\b|自然日|日历日", _I),
     re.compile(r"\b(?:business|working)\s+days?\b|工作日", _I)),
)


def asked_unit(question: str) -> str | None:
    """The first unit the question asks a number of (table order), or None;
    days asked as business or calendar days are ``business-day`` or
    ``calendar-day``."""
    found = [(match.start(), unit) for unit, pattern in _ASKED for match in [pattern.search(question)] if match]
    unit = min(found)[1] if found else None
    if unit == "day":
        for kind, asked, _other in _DAY_KINDS:
            if asked.search(question):
                return kind
    return unit


def span_has_unit(text: str, unit: str | None) -> bool:
    """Whether ``text`` (a duration span) is in ``unit`` (always, for None);
    in business days, days not said to be calendar days (and the reverse)."""
    if unit is None:
        return True
    for kind, _asked, other in _DAY_KINDS:
        if unit == kind:
            return bool(_IN_SPAN["day"].search(text)) and not other.search(text)
    return bool(_IN_SPAN[unit].search(text))


_COUNT_STOP = frozenset(
    "do does did can could are is were was must will would should may might have has had per in of on for at to by"
    " with from under a an the".split())
# What may follow "bao nhiêu"/"mấy" without naming a thing counted: a preposition or conjunction,
# a share ("phần trăm"), money ("tiền"), time (units are asked_unit's: "thời gian").
NOT_COUNTED_VI = ("trong", "trên", "so", "về", "khi", "để", "và", "nhờ", "với", "của", "cho", "từ", "đến", "tại",
                  "ở", "là", "thì", "phần", "tiền", "thời", "năm", "tháng", "tuần", "ngày", "giờ", "phút", "lâu", "xa")
_COUNTED_VI = re.compile(r"(?i:bao\s+nhiêu|mấy)\s+(công\s+ty|cổ\s+phiếu|(?!(?:" + "|".join(NOT_COUNTED_VI)
                         + r")(?![\w]))[^\W\d_]+)(?![\w])")


def _vietnamese_counter(question: str) -> str | None:
    """The noun after "bao nhiêu"/"mấy" (``loài``, ``cổ phiếu``), lowercase (a capital starts a name), or None."""
    match = _COUNTED_VI.search(question)
    if match is None or not match.group(1)[:1].islower():
        return None
    return " ".join(match.group(1).split())
def counted_words(question: str, limit: int = 3) -> tuple[str, ...]:
    """The words (casefolded) after a Vietnamese question's counted noun, up to
    ``limit`` and to the first of ``NOT_COUNTED_VI``: "giảm sàn" of "bao nhiêu
    mã giảm sàn trên HOSE", what the count is of; empty when none."""
    match = _COUNTED_VI.search(question)
    if match is None or not match.group(1)[:1].islower():
        return ()
    words = []
    for word in _WORD_VI.findall(question, match.end()):
        folded = word.casefold()
        if folded in NOT_COUNTED_VI or len(words) == limit:
            break
        words.append(folded)
    return tuple(words)


_WORD_VI = re.compile(r"[^\W\d_]+")
_COUNTED_ZH = re.compile(r"(?:几|多少)([次张种项笔档位家所支具幅件名只艘架辆届层台棵篇批座])")
_COUNTED_EN = re.compile(r"\bhow\s+many\s+((?:[\w'-]+\s*){1,4})", _I)
_SCALE_WORDS = r"(?:(?:triệu|tỷ|nghìn|ngàn|million|billion|thousand)\s+)?"


def asked_counter(question: str) -> str | None:
    """What a count question counts, as the question writes it: the noun
    after "how many" (the last lowercase word before a verb or preposition:
    ``remittances``), the Vietnamese classifier or noun after "bao nhiêu"
    (``mã``, ``cổ phiếu``), the Chinese counter after 几/多少 (``次``; not the
    generic ``个``); None when it names none."""
    match = _COUNTED_ZH.search(question)
    if match:
        return match.group(1)
    counted = _vietnamese_counter(question)
    if counted is not None:
        return counted
    match = _COUNTED_EN.search(question)
    if not match:
        return None
    noun = None
    for word in match.group(1).split():
        if word.casefold() in _COUNT_STOP or not word.islower():
            if noun is not None or word.casefold() in _COUNT_STOP:
                break
            continue
        noun = word
    return noun


def span_counts(text: str, start: int, end: int, counter: str | None) -> bool:
    """Whether the number ``text[start:end]`` counts ``counter`` (always, for
    None): the counter is inside the span or right after it (a scale word
    between allowed: ``1,2 triệu cổ phiếu``); an English noun is compared by
    its first five letters (``countries`` for ``country``)."""
    if counter is None:
        return True
    if re.search(r"[\u3400-\u9fff]", counter):
        return counter in text[start:end] or text[end:end + len(counter)] == counter
    stem = counter if len(counter) <= 5 or not counter.isascii() else counter[:5]
    pattern = re.compile(r"\s*" + _SCALE_WORDS + re.escape(stem), _I)
    return bool(re.search(r"(?<![\w])" + re.escape(stem), text[start:end], _I)) or bool(pattern.match(text, end))


def other_units(question: str, expected_type: str, text: str) -> tuple[str, ...]:
    """For a duration question asking a unit ("how many years"), the duration
    spans of ``text`` (the cited sentence) when it has some and none is in that
    unit, as ``unit~span`` (``year~10 business days``): the sentence gives a
    period of another kind, which answers something else. Empty otherwise
    (a sentence with no duration at all is the expected type's concern)."""
    from regrag.answer.answer_types import typed_spans

    unit = asked_unit(question) if expected_type == "duration" else None
    if unit is None:
        return ()
    spans = [text[start:end] for start, end in typed_spans(text, "duration")]
    if not spans or any(span_has_unit(span, unit) for span in spans):
        return ()
    return tuple(dict.fromkeys(f"{unit}~{span}" for span in spans))


_TIME_AFTER = re.compile(r"\s*(?:(?:triệu|tỷ|nghìn|ngàn)\s+)?(?:năm|tháng|tuần|ngày|giờ|phút|giây|thế\s+kỷ)(?![\w])", _I)


def other_counts(question: str, expected_type: str, text: str) -> tuple[str, ...]:
    """For a Vietnamese figure or count question naming what it counts ("bao
    nhiêu loài"), the figures of ``text`` (the cited sentence) when it has some,
    none counts that noun and every one is a period of time (``515 triệu năm``):
    the sentence gives how long, not how many; as ``noun~figure``. Empty otherwise."""
    from regrag.answer.answer_types import typed_spans

    if expected_type not in ("figure", "count"):
        return ()
    counter = _vietnamese_counter(question)
    if counter is None:
        return ()
    spans = typed_spans(text, "figure")
    if not spans or any(span_counts(text, s, e, counter) for s, e in spans):
        return ()
    if not all(_TIME_AFTER.match(text, e) for _s, e in spans):
        return ()
    return tuple(dict.fromkeys(f"{counter}~{text[s:e]}" for s, e in spans))
