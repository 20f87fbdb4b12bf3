"""Table rows as answer sentences: the context a row needs to be read.

Extracted tables (DOCX, HTML, PDF: ``cell | cell`` lines; CSV records:
``Column: value`` lines, docs/corpus.md) have no sentence punctuation, so
each line is a sentence of its own and a row such as ``Small enterprise |
V$ 250,000`` does not say what its figure is: its table's header line does
(``Depositor | Coverage limit``), or, for a CSV record, the record's other
lines (``Service: …``, ``Channel: …``). ``row_context`` gives that context's
span, so ``ask`` credits a row with the question words of its header or
record; a pipe-table row is still cited alone, a CSV record whole (every
line of it), verbatim either way.
"""

from __future__ import annotations

import re

_FIELD = re.compile(r"[^\s:|][^:\n|]{0,60}: \S")


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    return text.rfind("\n", 0, start) + 1, (len(text) if text.find("\n", end) < 0 else text.find("\n", end))


def _kind(line: str) -> str | None:
    if " | " in line:
        return "pipe"
    if _FIELD.match(line) and not line.rstrip().endswith((".", "?", "!", "。")):
        return "field"
    return None


def row_context(text: str, start: int, end: int, low: int = 0, high: int | None = None) -> tuple[int, int] | None:
    """For the sentence ``text[start:end]`` when it is a whole table line, the
    span of its context within ``[low, high)`` (its passage): the first line
    of its block of ``|`` lines (the header), or its whole block of
    ``Column: value`` lines; None for a sentence that is not a table line."""
    high = len(text) if high is None else high
    line_start, line_end = _line_bounds(text, start, end)
    if text[line_start:start].strip() or text[end:line_end].strip():
        return None  # part of a line: prose
    kind = _kind(text[line_start:line_end])
    if kind is None:
        return None
    first, last = line_start, line_end
    while first > low + 1:  # earlier lines of the same block
        previous = text.rfind("\n", low, first - 1) + 1
        previous = max(previous, low)
        if _kind(text[previous:first - 1]) != kind:
            break
        first = previous
    while last < high:  # later lines (records: the whole block)
        following = text.find("\n", last + 1)
        following = high if following < 0 or following > high else following
        if _kind(text[last + 1:following]) != kind:
            break
        last = following
    if kind == "pipe":
        header_end = text.find("\n", first)
        header_end = line_end if header_end < 0 or header_end > line_end else header_end
        return (first, header_end) if first < line_start else None
    return (first, last) if (first, last) != (line_start, line_end) else None
