"""The reference of a comparison: in "Mức giá thỏa thuận bình quân là 64.000
đồng/cổ phiếu, cao hơn 3,2% so với giá đóng cửa của PMF", the figures
before "so với" are the negotiated price and its lead; the closing price
is what they are compared with, and the sentence does not give it.

A sentence answers a typed question through a comparison's reference only
when the question's words it holds after the marker outweigh (by IDF,
``math.fsum``) those it holds before it, and every span of the expected
type sits before the marker: such a sentence goes after the others when
the short answer is chosen, and when it still holds the short answer,
the confidence falls (docs/answers.md, "Confidence": `compared_only`).

Markers are those whose reference follows them: Vietnamese ``so với``,
English ``compared with``, ``compared to`` and ``than``. Chinese ``与…相比``
puts the reference before the marker and is not read.
"""

from __future__ import annotations

import math
import re

from regrag.answer.answer_types import TYPED, typed_spans

COMPARISON_MARKER = re.compile(r"\b(?:so với|compared (?:with|to)|than)\b", re.IGNORECASE)


def reference_terms(searcher, language: str, asked: tuple[str, ...], expected_type: str, text: str) -> tuple[str, ...]:
    """The terms of ``asked`` (the question's content terms outside the
    entity names it uses) that ``text`` holds only after its first
    comparison marker, sorted, when they outweigh those it holds only
    before it and every span of ``expected_type`` is before the marker;
    else empty."""
    if expected_type not in TYPED:
        return ()
    marker = COMPARISON_MARKER.search(text)
    if marker is None:
        return ()
    spans = typed_spans(text, expected_type)
    if not spans or any(end > marker.start() for _start, end in spans):
        return ()
    wanted = set(asked)  # membership only
    before: set[str] = set()
    after: set[str] = set()
    for term, start, _end in searcher.analyzer.analyze(text, language):
        if term in wanted:
            (after if start >= marker.end() else before).add(term)
    only_after = sorted(after - before)
    only_before = sorted(before - after)
    if not only_after:
        return ()
    weight = math.fsum(searcher.term_idf(t) or 0.0 for t in only_after)
    if weight <= math.fsum(searcher.term_idf(t) or 0.0 for t in only_before):
        return ()
    return tuple(only_after)
