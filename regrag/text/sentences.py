"""Sentence spans, used to bound passages and to pick answer sentences.

A sentence ends after ``.``, ``!`` or ``?`` (with any closing quotes or
brackets) when whitespace follows, after ``。！？；`` directly, and at every
line break (LF, CR, VT, FF, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR). A decimal point inside a number (``3.45``) is never an end,
because no whitespace follows it.
"""

from __future__ import annotations

import re

# A Latin end (``.``/``!``/``?`` run plus closers) counts only when whitespace
# follows it; that is checked after the match, not with a lookahead: a lookahead
# failing after a long run of periods would make the regex retry from every
# period of the run (quadratic time). A run matched whole and not followed by
# whitespace cannot end a sentence anywhere inside it either (what follows any
# shorter part of it is punctuation), so the scan resumes after it: linear.
_BOUNDARY = re.compile(
    r"(?P<latin>[.!?]+[\"')\]\u201d\u2019]*)|[\u3002\uff01\uff1f\uff1b]+[\u201d\u2019\u300d\u300f\uff09)]*"
    r"|[\n\r\x0b\x0c\x85\u2028\u2029]"
)


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Spans of the sentences in ``text[start:end]``, trimmed of whitespace."""
    if end is None:
        end = len(text)
    spans: list[tuple[int, int]] = []
    position = start
    for match in _BOUNDARY.finditer(text, start, end):
        boundary = match.end()
        if match.lastgroup == "latin" and (boundary >= end or not text[boundary].isspace()):
            continue
        _append_trimmed(text, position, boundary, spans)
        position = boundary
    _append_trimmed(text, position, end, spans)
    return spans


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` narrowed to exclude leading and trailing whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _append_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    start, end = trim_span(text, start, end)
    if end > start:
        spans.append((start, end))
