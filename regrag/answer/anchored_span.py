"""The phrase of a sentence that the question asks for, found next to the
question's own words around its question word.

For a question without a typed answer ("… đã đề xuất thanh toán các khoản
trợ cấp bằng gì?", "第一个Internet2网络叫什么名字", "Who …"), the answer is
usually a run of the sentence that the question does not already say,
directly after the word before the question word ("bằng" → "bằng "Thẻ Tiền
mặt Phúc lợi"") or directly before the word after it. ``anchored_span``:

1. cuts the question and the sentence into *units*: a word (letters and
   digits, with inner ``. , ' -``: ``1.500``, ``VN-Index``; it stops at a
   CJK character: ``Orbit5是什么`` is ``orbit5`` and three characters), or one CJK
   character; units are compared casefolded (``normalize_term``);
2. marks the sentence's *asked* units: a word the question has outside its
   scaffolding (``regrag.answer.question``), or a CJK character inside a
   character pair the question also has (``根源`` of "童工产生的根源有哪些");
3. the candidate *gaps* are the maximal runs of unasked units inside one
   clause (split at ``, ; : ( )`` quotes and their CJK forms), less leading
   and trailing function words (``EDGE_WORDS``);
4. a gap is *anchored* when the asked unit just before it is one of the
   ``ANCHOR_WIDTH`` question units just before the scaffolding, or the asked
   unit just after it one of those just after; among anchored gaps the one
   anchored on both sides wins, then the one whose clause has most asked
   units, then the longer, then the earlier; a gap of one CJK character is
   never chosen (it is a function word such as 该 or 后 far more often than
   an answer);
5. a CJK phrase anchored on its right by the noun after a determiner
   question word grows over that noun when the sentence has it right there
   ("白石猜想" for "哪个猜想…", ``_with_head``).
No anchored gap, an English question, or one asking why or how: None (the
caller keeps the clause). The span never cuts a
number (it grows to the whole of ``30/6/2026`` or ``16:00``). Deterministic:
a pure function of the two strings.
"""

from __future__ import annotations

import bisect
import re

from regrag.answer.question import QuestionReading
from regrag.text.normalize import normalize_term

ANCHOR_WIDTH = 2
HEAD_WIDTH = 3
# characters a noun does not end with: function words, negation, modal verbs ("学校不要求" grows by 学校;
# 会 and 有 stay out: 博览会, 委员会)
_NOT_HEAD = frozenset("的是了在和与为于被把也都而及或不没能可要应将已")
# question words that modify the noun after them ("哪个猜想", "什么学校"); 哪里 and 谁 stand alone
_DETERMINER = re.compile(r"(?:哪[个种部家所位支座类款项条]?|什么)$")
REASON = re.compile(r"(?i:\b(?:vì\s+sao|tại\s+sao|như\s+thế\s+nào|thế\s+nào|ra\s+sao|bằng\s+cách\s+nào|why|how)\b)|为什么|为何|怎么|怎样|如何")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD = r"[^\W_\u3400-\u9fff\uf900-\ufaff]+"  # letters and digits, not CJK
_UNIT = re.compile(rf"[\u3400-\u9fff\uf900-\ufaff]|{_WORD}(?:[.,'’-]{_WORD})*")
_CLAUSE = re.compile(r"[,;:()\"“”](?=\s)|[，；：、。（）“”「」《》]|\s[-–—]\s|[()]")
_FIGURE_TAIL = re.compile(r"(?:[/:]\d+)*%?")
_FIGURE_HEAD = re.compile(r"\d+[/:]$")
# function words a phrase neither starts nor ends with (Vietnamese, English, Chinese)
EDGE_WORDS = frozenset(
    "là của các những được đã và cho với trong thì mà này đó một bị về theo có "
    "the a an of to in and is was were are by for on at as that which "
    "的 是 了 在 和 与 为 于 被 把 也 都 而 及 或".split()
)


def _units(text: str) -> list[tuple[str, int, int]]:
    return [(normalize_term(m.group()), m.start(), m.end()) for m in _UNIT.finditer(text)]


def _is_cjk(unit: str) -> bool:
    return bool(_CJK.match(unit))


def _with_head(question: str, reading: QuestionReading, text: str, end: int) -> int:
    """The end of a right-anchored CJK phrase grown over the noun that a
    determiner question word (``_DETERMINER``: 哪个, 哪种, 什么 …) modifies,
    when the sentence has it right after the phrase: "白石猜想" for "哪个猜想
    认为 …" (a Chinese modifier precedes its noun, so the name ends with it);
    the longest prefix, two characters or more, of the ``HEAD_WIDTH`` CJK
    characters after the question word that the sentence has right there,
    stopping at a character a noun does not end with (``_NOT_HEAD``)."""
    grown = end
    for start, stop in reading.scaffolding_spans:
        if not _DETERMINER.search(question, start, stop):
            continue
        head = 0
        for k, character in enumerate(question[stop:stop + HEAD_WIDTH]):
            if (not _CJK.match(character) or character in _NOT_HEAD
                    or end + k >= len(text) or text[end + k] != character):
                break
            head = k + 1
        if head >= 2:
            grown = max(grown, end + head)
    return grown


def anchored_span(question: str, reading: QuestionReading, text: str, language: str) -> tuple[int, int] | None:
    """The ``[start, end)`` of ``text`` that answers ``question`` (analysed as
    ``language``) by the rule above, or None when no gap is anchored, for an
    English question (neither Vietnamese nor with CJK characters) (its question word is fronted: "What position … must be
    disclosed", so the words around it are not beside the answer) and for a
    question asking why or how (``REASON``: its answer is a clause)."""
    if (language != "vi" and not _CJK.search(question)) or REASON.search(question):
        return None
    asked_units = _units(question)
    inside = [any(s <= start and end <= e for s, e in reading.scaffolding_spans) for _u, start, end in asked_units]
    words = {unit for (unit, _s, _e), scaffold in zip(asked_units, inside) if not _is_cjk(unit) and not scaffold}
    pairs = {unit + following for (unit, _s, end), (following, start, _e) in zip(asked_units, asked_units[1:])
             if _is_cjk(unit) and _is_cjk(following) and start == end}
    before: set[str] = set()
    after: set[str] = set()
    for s, e in reading.scaffolding_spans:
        before.update(unit for unit, _s, end in [u for u in asked_units if u[2] <= s][-ANCHOR_WIDTH:])
        after.update(unit for unit, start, _e in [u for u in asked_units if u[1] >= e][:ANCHOR_WIDTH])
    units = _units(text)
    if not units:
        return None
    asked = [False] * len(units)
    for i, (unit, _s, end) in enumerate(units):
        if not _is_cjk(unit):
            asked[i] = asked[i] or unit in words
        elif i + 1 < len(units) and units[i + 1][1] == end and unit + units[i + 1][0] in pairs:
            asked[i] = asked[i + 1] = True
    cuts = [m.start() for m in _CLAUSE.finditer(text)]
    clause = [bisect.bisect_right(cuts, start) for _u, start, _e in units]
    asked_in = {}
    for i, flag in enumerate(asked):
        asked_in[clause[i]] = asked_in.get(clause[i], 0) + flag
    best = None
    i = 0
    while i < len(units):
        if asked[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(units) and not asked[j + 1] and clause[j + 1] == clause[i]:
            j += 1
        low, high = i, j
        while low <= high and units[low][0] in EDGE_WORDS:
            low += 1
        while high >= low and units[high][0] in EDGE_WORDS:
            high -= 1
        left = units[i - 1][0] if i > 0 and asked[i - 1] and clause[i - 1] == clause[i] else None
        right = units[j + 1][0] if j + 1 < len(units) and asked[j + 1] and clause[j + 1] == clause[j] else None
        anchors = (left is not None and left in before) + (right is not None and right in after)
        # one CJK character is a function word more often than an answer (该 of "该猜想称", 后 of "…大屠杀后")
        single = low == high and _is_cjk(units[low][0])
        if low <= high and anchors and not single:
            key = (-anchors, -asked_in[clause[i]], -(high - low + 1), units[low][1])
            if best is None or key < best[0]:
                best = (key, units[low][1], units[high][2], right is not None and right in after)
        i = j + 1
    if best is None:
        return None
    start, end = best[1], best[2]
    if best[3] and _CJK.search(question):  # anchored on its right by the words after the question word
        end = _with_head(question, reading, text, end)
    # never cut a figure: "30/6/2026", "16:00" and "25%" stay whole
    if text[end - 1].isdigit():
        tail = _FIGURE_TAIL.match(text, end)
        end = tail.end() if tail else end
    while start > 0 and text[start].isdigit():
        head = _FIGURE_HEAD.search(text, 0, start)
        if head is None:
            break
        start = head.start()
    return start, end
