"""Bounds: a question asking for an upper or a lower limit ("最多能买多少钱",
"the minimum partial prepayment", "tỷ lệ tối thiểu") is answered by a
sentence stating a limit the same way (session 41).

A question asks a bound when it holds a word of one direction only
(``ASKED``: ``最多``, ``最低``, ``maximum``, ``tối thiểu`` …), or, with
none of those, a word of a limit of either direction (``限制``, ``limit``),
which any limit states. A text states
a bound when it holds a marker of that direction (``STATED``: the asked
words, and the ways a limit is written: ``上限``, ``不超过``, ``以3次为限``,
``9座及以下``, ``起点``, ``up to``, ``at least``, ``không quá`` …). Chinese and
Japanese markers are found as substrings, the others as whole words,
case ignored. What the reading is used for (docs/answers.md):

- coverage: when the evidence states the asked bound, the question's bound
  words are supported, and the CJK bigrams overlapping them (``险最`` of
  ``车险最多``) are no missing words;
- the evidence passage: for a typed answer, a hit with a sentence stating the
  asked bound beside a span of the type (``regrag.answer.evidence_choice``);
- the cited sentence: one stating only the opposite bound (``起点金额为人民币1元``
  for "最多能买多少钱") is about the other limit (``Confidence.other_bound``),
  and one stating the asked bound says what is asked, though the bound
  words are all the question adds to the entity's name (not bare).

A pure function of the texts; the lists are part of the answer rules.
"""

from __future__ import annotations

import re
from functools import lru_cache

from regrag.text.scripts import HAS_CJK

UPPER, LOWER = "upper", "lower"
# words with which a question asks for a limit, by direction
ASKED: dict[str, tuple[str, ...]] = {
    UPPER: ("最多", "最高", "最大", "最长", "上限", "至多", "maximum", "at most", "highest", "largest", "longest",
            "upper limit", "tối đa", "cao nhất", "nhiều nhất", "lớn nhất"),
    LOWER: ("最低", "最少", "最小", "最短", "下限", "至少", "起购", "minimum", "at least", "lowest", "smallest", "shortest",
            "lower limit", "tối thiểu", "thấp nhất", "ít nhất", "nhỏ nhất"),
}
# ways a text states a limit, beyond the asked words themselves
_WRITTEN: dict[str, tuple[str, ...]] = {
    UPPER: ("封顶", "不超过", "不得超过", "不高于", "不多于", "为限", "及以下", "以内", "up to", "not exceed",
            "no more than", "not more than", "capped", "ceiling", "không quá", "không vượt quá"),
    LOWER: ("起点", "不低于", "不少于", "不得低于", "及以上", "no less than", "not less than", "floor",
            "không dưới", "không thấp hơn", "trở lên"),
}
STATED: dict[str, tuple[str, ...]] = {side: ASKED[side] + _WRITTEN[side] for side in (UPPER, LOWER)}
# a limit of either direction ("车龄限制", "the limit on …"): stated by any limit (session 41)
EITHER = "either"
ASKED[EITHER] = ("限制", "限额", "limit", "limits", "giới hạn", "hạn mức")
STATED[EITHER] = ASKED[EITHER] + STATED[UPPER] + STATED[LOWER]


@lru_cache(maxsize=8)
def _pattern(words: tuple[str, ...]) -> re.Pattern:
    """One pattern finding each word: CJK ones anywhere, the others as whole words."""
    cjk = sorted((w for w in words if HAS_CJK.search(w)), key=lambda w: (-len(w), w))
    latin = sorted((w for w in words if not HAS_CJK.search(w)), key=lambda w: (-len(w), w))
    parts = [re.escape(w) for w in cjk] + [r"(?<!\w)" + re.escape(w) + r"(?!\w)" for w in latin]
    return re.compile("|".join(parts), re.IGNORECASE)


def _spans(text: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _pattern(words).finditer(text)]


def asked_bound(question: str) -> tuple[str | None, tuple[tuple[int, int], ...]]:
    """The direction the question asks a limit in (``UPPER``, ``LOWER``, or
    None when it asks none or words of both), and where its bound words are."""
    upper, lower = _spans(question, ASKED[UPPER]), _spans(question, ASKED[LOWER])
    if bool(upper) == bool(lower):
        if upper:
            return None, ()
        either = _spans(question, ASKED[EITHER])
        return (EITHER, tuple(either)) if either else (None, ())
    return (UPPER, tuple(upper)) if upper else (LOWER, tuple(lower))


def states(text: str, side: str) -> bool:
    """Whether ``text`` states a limit in direction ``side``."""
    return bool(_spans(text, STATED[side]))


def other_side(side: str) -> str:
    return {UPPER: LOWER, LOWER: UPPER}.get(side, side)


def states_only_other(text: str, side: str) -> bool:
    """Whether ``text`` states the opposite limit and not the one asked (never, for ``EITHER``)."""
    return side != EITHER and states(text, other_side(side)) and not states(text, side)


def stated_words(text: str, side: str) -> tuple[str, ...]:
    """The words of ``text`` stating a limit in direction ``side``, as written, each once, in order."""
    words: list[str] = []
    for start, end in _spans(text, STATED[side]):
        if text[start:end] not in words:
            words.append(text[start:end])
    return tuple(words)


def bound_terms(tokens, spans: tuple[tuple[int, int], ...]) -> frozenset[str]:
    """The question's terms (``tokens``: analysed, with offsets) every
    occurrence of which lies inside one of its bound words (``spans``), or,
    for a CJK bigram, joins the word before to a bound word's first
    character (``险最`` of ``车险最多``; ``高产`` of ``最高产`` is a word of its own)."""
    verdicts: dict[str, bool] = {}
    for term, start, end in tokens:
        inside = any(s <= start and end <= e or (HAS_CJK.search(term) and end - start == 2 and end == s + 1)
                     for s, e in spans)
        verdicts[term] = verdicts.get(term, True) and inside
    return frozenset(term for term, inside in verdicts.items() if inside)
