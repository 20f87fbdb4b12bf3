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
  "保罗·萨缪尔森 ，诺贝尔经济学奖首位美国得主" asked as "美国首位诺贝尔经济学奖得主是？"
  has one run, "保罗·萨缪尔森" (the second clause is all asked); in
  "州168号公路，即 塞拉高速公路，…" asked as "州168号公路的另一个名字是什么？"
  the first clause trims to "路" and has no run of two characters, the second
  has the run "即 塞拉高速".

Neither cuts a figure: a span that ends inside ``1,160,000`` or ``30天``
grows to hold it. Deterministic: pure functions of the strings and the analyzer.
"""

from __future__ import annotations

import re

EDGE = frozenset("的是了在和与为于被把也都而及或将")
_PUNCTUATION = frozenset("，。；：、！？")
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
    order; empty runs are dropped."""
    marks = asked_characters(searcher, asked, language, text, start, end)

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
            low, high = balanced(text, start, end, *whole_figures(text, start, end, low, high))
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
