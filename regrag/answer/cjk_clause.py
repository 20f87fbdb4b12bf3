"""The short answer inside a CJK clause: what the question does not already say.

In CJK text bigrams do not mark word edges, so the question's words are
found as characters: a character of the sentence is *asked* when it lies in a
bigram the question also has (``根源`` of "童工产生的根源有哪些"). Two
readings of a clause use that marking:

- ``trim_asked`` takes the clause less its leading and trailing asked
  characters, spaces and the function characters ``EDGE`` (at least one
  character stays);
- ``unasked_runs`` cuts the clause at its asked characters into *runs*, each
  less its leading and trailing spaces, ``EDGE`` characters and clause
  punctuation, and with its brackets and quotes balanced (``balanced``).
  "林晓舟 ，星河科学奖首位北方得主；" asked as "星河科学奖首位北方得主是？"
  has one run, "林晓舟" (the second clause is all asked, and trimming it
  leaves "主");
- ``nearest_run`` chooses, among the runs of a sentence's clauses, the one
  bordered by the question's characters around its question word: an answer
  sits where the question's own words around "什么" or "谁" sit in the
  sentence. "省道27号，又称云岭高速公路，向西通往青石镇。" asked as
  "省道27号的另一个名字是什么？" gives "又称云岭高速公路": no run is bordered
  there, the first clause has none (its 号 is the unit of the asked 27号),
  and the longer of the other two wins.

Neither cuts a figure: a span that ends inside ``1,160,000`` or ``30天``
grows to hold it. Deterministic: pure functions of the strings and the analyzer.
"""

from __future__ import annotations

import re

EDGE = frozenset("的是了在和与为于被把也都而及或将")
_PUNCTUATION = frozenset("，。；：、！？")
# the one-character units of a number (a date part, an age, a count's classifier)
_NUMBER_UNITS = frozenset("年月日号岁天周届期次倍个位名家元")
_FIGURE_PART = re.compile(r"[\d.,/:%-]")


def asked_characters(searcher, asked: set[str], language: str, text: str, start: int, end: int) -> list[bool]:
    """For each character of ``text[start:end]``: whether it lies in one of its terms that ``asked`` holds."""
    marks = [False] * (end - start)
    for term, s, e in searcher.analyzer.analyze(text[start:end], language):
        if term in asked:
            marks[s:e] = [True] * (e - s)
    return marks


def trim_asked(searcher, asked: set[str], language: str, text: str, start: int, end: int) -> tuple[int, int]:
    """The clause ``text[start:end]`` less its leading and trailing asked
    characters, spaces and ``EDGE`` characters; at least one stays."""
    marks = asked_characters(searcher, asked, language, text, start, end)

    def edge(i: int) -> bool:
        return marks[i] or text[start + i].isspace() or text[start + i] in EDGE

    low, high = 0, end - start
    while low < high - 1 and edge(low):
        low += 1
    while high > low + 1 and edge(high - 1):
        high -= 1
    return whole_figures(text, start, end, start + low, start + high)


def unasked_runs(searcher, asked: set[str], language: str, text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The runs of ``text[start:end]`` between its asked characters, each
    less its edge spaces, ``EDGE`` characters and clause punctuation, in
    order; empty runs are dropped. A unit right after an asked number
    (``_NUMBER_UNITS``) is asked too (年 of an asked "1945年", 号 of "27号")."""
    marks = asked_characters(searcher, asked, language, text, start, end)
    for i in range(end - start - 1):
        if marks[i] and text[start + i].isdigit() and not marks[i + 1] and text[start + i + 1] in _NUMBER_UNITS:
            marks[i + 1] = True

    def edge(i: int) -> bool:
        return text[i].isspace() or text[i] in EDGE or text[i] in _PUNCTUATION

    runs = []
    i, length = 0, end - start
    while i < length:
        if marks[i]:
            i += 1
            continue
        j = i
        while j < length and not marks[j]:
            j += 1
        low, high = start + i, start + j
        while low < high and edge(low):
            low += 1
        while high > low and edge(high - 1):
            high -= 1
        if high > low:
            # figures grow only over unasked characters: an asked number stays out of the run
            low, high = balanced(text, start, end, *whole_figures(text, start + i, start + j, low, high))
        if high > low:
            runs.append((low, high))
        i = j
    return runs


_PAIRS = {"（": "）", "(": ")", "《": "》", "“": "”", "「": "」", "【": "】", "[": "]"}
_CLOSERS = {closer: opener for opener, closer in _PAIRS.items()}


def balanced(text: str, start: int, end: int, low: int, high: int) -> tuple[int, int]:
    """``[low, high)`` with no bracket or quote left open or closed alone:
    leading closers are dropped ("”）由砺行…" → "由砺行…"), an opener whose
    closer lies after ``high`` within ``[start, end)`` grows the span to it
    ("PR2级（中低" → "PR2级（中低风险）"), else the span stops before it."""
    while low < high and text[low] in _CLOSERS:
        low += 1
    open_at: list[int] = []
    for i in range(low, high):
        if text[i] in _PAIRS:
            open_at.append(i)
        elif text[i] in _CLOSERS and open_at and text[open_at[-1]] == _CLOSERS[text[i]]:
            open_at.pop()
    if not open_at:
        return low, high
    first = open_at[0]
    closer = text.find(_PAIRS[text[first]], high, end)
    if len(open_at) == 1 and closer >= 0:
        return low, closer + 1
    while first > low and text[first - 1].isspace():
        first -= 1
    return low, first


def nearest_run(searcher, asked: set[str], language: str, text: str, clauses, near: set[str]) -> tuple[int, int] | None:
    """Among the runs of two characters or more of all ``clauses``, the one
    most *anchored*: an asked character of ``near`` (the question's CJK
    characters around its question word) borders it on the left, the right,
    or both (past spaces and ``EDGE`` characters, inside its clause); ties: the
    run whose clause has most asked characters, then the longer, then the
    earlier. None when no run has two characters."""
    marks = asked_characters(searcher, asked, language, text, 0, len(text))

    def bordered(i: int, step: int, low: int, high: int) -> bool:
        while low <= i < high and not marks[i] and (text[i].isspace() or text[i] in EDGE):
            i += step
        return low <= i < high and marks[i] and text[i] in near

    best = None
    for low, high in clauses:
        asked_count = sum(marks[low:high])
        for start, end in unasked_runs(searcher, asked, language, text, low, high):
            if end - start < 2:
                continue
            anchors = bordered(start - 1, -1, low, high) + bordered(end, 1, low, high)
            key = (-anchors, -asked_count, start - end, start)
            if best is None or key < best[0]:
                best = (key, (start, end))
    return None if best is None else best[1]


def longest_run(runs: list[tuple[int, int]]) -> tuple[int, int]:
    """The longest run; ties: the earlier."""
    return min(runs, key=lambda run: (run[0] - run[1], run[0]))


def whole_figures(text: str, start: int, end: int, new_start: int, new_end: int) -> tuple[int, int]:
    """``[new_start, new_end)`` grown within ``[start, end)`` so that it cuts
    no figure: "4/9/2026" stays whole, a unit keeps its number ("30天", not "天")."""
    while new_end < end and _FIGURE_PART.match(text, new_end - 1) and _FIGURE_PART.match(text, new_end):
        new_end += 1
    while new_start > start and (text[new_start - 1].isdigit()
                                 or (_FIGURE_PART.match(text, new_start) and _FIGURE_PART.match(text, new_start - 1))):
        new_start -= 1
    return new_start, new_end
