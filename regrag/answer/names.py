"""Questions that ask for a name, and the names a sentence holds.

"Tên thuộc địa … là gì?", "Bảo tàng ban đầu được gọi là gì?", "这座塔叫什么
名字？", "… 的别称是什么？" ask what something is called: the answer is a
name, written as one, a run of capitalised words (``Fort Caroline``,
``Bảo tàng Sản xuất``: Vietnamese capitalises each syllable of a proper name)
or a phrase in quotation marks or title marks (``“金钱的使用”``,
``《枫丹白露法令》``). ``asks_name`` reads the question (Vietnamese and
Chinese: an English question's name is found by its type cues), and
``name_spans`` lists a sentence's names, sorted: capitalised runs not at the
start of the sentence (where every word is capitalised), and the insides of
quotation and title marks. Pure functions of the text.
"""

from __future__ import annotations

import re

_ASKS = re.compile(
    r"(?i:\btên\b(?:\s+(?:gọi|riêng|thật|đầy\s+đủ))?(?:\s+\S+){0,12}?\s+(?:là\s+)?gì\b|\bgọi\s+là\s+gì\b"
    r"|\b(?:biệt\s+danh|biệt\s+hiệu|tên\s+gọi)\b)"
    r"|叫什么|什么名字|名字是什么|名称是什么|称为什么|称作什么|别称|别名|绰号|昵称"
)
_WORD = re.compile(r"[^\W_][\w&'’-]*")
_JOINERS = frozenset("of and for the de du và của".split())
_QUOTED = re.compile(r"“([^”]{1,60})”|「([^」]{1,60})」|《([^》]{1,60})》|\"([^\"]{1,60})\"")
_SENTENCE_START = re.compile(r"^\W*$")


def _joiner_between(text: str, end: int, start: int) -> bool:
    """Whether ``text[end:start]`` is one joiner word between single spaces (``of``, ``và``)."""
    gap = text[end:start]
    return gap.startswith(" ") and gap.endswith(" ") and gap.strip() in _JOINERS


def asks_name(question: str) -> bool:
    """Whether ``question`` asks what something is called (Vietnamese, Chinese)."""
    return bool(_ASKS.search(question))


def name_spans(text: str) -> list[tuple[int, int]]:
    """The names in ``text``: capitalised runs not opening the sentence, and
    the insides of quotation and title marks (stripped of spaces), sorted."""
    found = set()
    run: list[tuple[int, int]] = []  # capitalised words, one space apart or one joiner between
    joiner = False  # the last word was a joiner after the run ("of", "và")
    for match in [*_WORD.finditer(text), None]:
        word = match.group() if match else ""
        if match is not None and word[0].isupper():
            gap = text[run[-1][1]:match.start()] if run else ""
            if run and (gap == " " or (joiner and _joiner_between(text, run[-1][1], match.start()))):
                run.append(match.span())
                joiner = False
                continue
        elif match is not None and run and not joiner and word in _JOINERS and text[run[-1][1]:match.start()] == " ":
            joiner = True
            continue
        if run:
            first = run[0][0]
            if _SENTENCE_START.match(text[:first]) or text[:first].rstrip().endswith((".", "!", "?")):
                run = run[1:]  # capitalised as the sentence's first word
            # one capitalised Vietnamese syllable ("Sản" of "Bảo tàng Sản xuất", "Pháp") is
            # the head of a longer name or a country, not a name asked for; one foreign word is
            if run and (len(run) > 1 or text[run[0][0]:run[0][1]].isascii()):
                found.add((run[0][0], run[-1][1]))
        run = [match.span()] if match is not None and word[0].isupper() else []
        joiner = False
    for match in _QUOTED.finditer(text):
        group = next(g for g in range(1, 5) if match.group(g) is not None)
        start, end = match.span(group)
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            found.add((start, end))
    return sorted(found)
