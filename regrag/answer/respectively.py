"""Lists answered "respectively": in "3期、6期、12期和24期的每期手续费率分别为0.75%、
0.70%、0.66%和0.64%" the rate of 12期 is the third value, 0.66%, however near
the first value sits to the question's words.

A sentence with a marker (Chinese ``分别为``/``分别是``, Vietnamese ``lần lượt
là``, English ``respectively``) pairs a list of keys with a list of values of
the expected type: in Chinese and Vietnamese the keys come before the marker
and the values after it; in English the values come before ``respectively``
and the keys before the values. The keys are the pieces of the key list
between ``、`` ``,`` ``，`` ``和`` ``及`` ``与`` ``và`` ``and``; when there
are as many keys as values and exactly one key names what the question asks
(a number of the question, or its words: the key's text before ``的``,
written in the question), its value is the short answer
(docs/answers.md, "The short answer").
"""

from __future__ import annotations

import re

_MARKER = re.compile(r"分别为|分别是|lần\s+lượt\s+là|\brespectively\b", re.IGNORECASE)
_SEPARATOR = re.compile(r"、|，|,\s*|和|及|与|\s+(?:và|and)\s+", re.IGNORECASE)
# where the key list's clause starts: not at ", ", which separates the items of an English or Vietnamese list
_CLAUSE_START = re.compile(r"[，。；;：:]|[.](?=\s)")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def respective_span(question: str, text: str, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The span of ``spans`` (typed spans of ``text``, by start) paired with the
    one key of a "respectively" list that the question names, or None."""
    marker = _MARKER.search(text)
    if marker is None:
        return None
    if marker.group().casefold() == "respectively":
        values = [span for span in spans if span[1] <= marker.start()]
        values = _last_run(text, values)
        if len(values) < 2:
            return None
        keys_end = values[0][0]
    else:
        values = _first_run(text, [span for span in spans if span[0] >= marker.end()])
        if len(values) < 2:
            return None
        keys_end = marker.start()
    keys_start = max((m.end() for m in _CLAUSE_START.finditer(text, 0, keys_end)), default=0)
    keys = [piece.strip() for piece in _SEPARATOR.split(text[keys_start:keys_end]) if piece.strip()]
    if len(keys) != len(values):
        return None
    named = [position for position, key in enumerate(keys) if _names(question, key)]
    return values[named[0]] if len(named) == 1 else None


def _names(question: str, key: str) -> bool:
    """Whether the question names ``key``: one of its numbers, or its text before ``的``."""
    asked = set(_NUMBER.findall(question))
    numbers = _NUMBER.findall(key)
    if numbers:
        return any(number in asked for number in numbers)
    head = key.split("的", 1)[0].strip()
    return len(head) >= 2 and head in question


def _first_run(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans from the first one on that follow each other, joined only by separators."""
    run: list[tuple[int, int]] = []
    for span in spans:
        if run and not _joined(text[run[-1][1]:span[0]]):
            break
        run.append(span)
    return run


def _last_run(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans up to the last one that follow each other, joined only by separators."""
    run: list[tuple[int, int]] = []
    for span in reversed(spans):
        if run and not _joined(text[span[1]:run[0][0]]):
            break
        run.insert(0, span)
    return run


def _joined(between: str) -> bool:
    return bool(_SEPARATOR.fullmatch(between) or not between.strip())
