"""Cut sections into passages of bounded length at sentence boundaries."""

from __future__ import annotations

from regrag.corpus.model import Document, Passage
from regrag.text.sentences import sentence_spans, trim_span


def split_passages(document: Document, max_chars: int) -> list[Passage]:
    """Passages of ``document``, numbered from 1 in text order.

    A section whose body is at most ``max_chars`` characters is one passage.
    A longer one is cut between sentences, each passage as long as possible
    without exceeding ``max_chars``; a sentence longer than that is cut at the
    last whitespace before the limit (or at the limit when there is none).
    Sections with an empty body make no passage, unless the document would
    otherwise have none: then its first section becomes an empty passage so
    the document (and its title) can still be found.
    """
    spans: list[tuple[str, int, int]] = []
    text = document.text
    for section in document.sections:
        start, end = trim_span(text, section.start, section.end)
        if start == end:
            continue
        if end - start <= max_chars:
            spans.append((section.title, start, end))
            continue
        for piece_start, piece_end in _bounded_pieces(text, start, end, max_chars):
            spans.append((section.title, piece_start, piece_end))
    if not spans and document.sections:
        first = document.sections[0]
        spans.append((first.title, first.start, first.start))
    return [
        Passage(document.id, number, title, start, end)
        for number, (title, start, end) in enumerate(spans, start=1)
    ]


def _bounded_pieces(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    sentences: list[tuple[int, int]] = []
    for s, e in sentence_spans(text, start, end):
        while e - s > max_chars:
            cut = _cut_point(text, s, s + max_chars)
            sentences.append(trim_span(text, s, cut))
            s, e = trim_span(text, cut, e)
        if e > s:
            sentences.append((s, e))
    pieces: list[tuple[int, int]] = []
    for s, e in sentences:
        if pieces and e - pieces[-1][0] <= max_chars:
            pieces[-1] = (pieces[-1][0], e)  # the sentence still fits: extend the piece
        else:
            pieces.append((s, e))
    return pieces


def _cut_point(text: str, start: int, limit: int) -> int:
    """The last whitespace in (start, limit], else ``limit``."""
    for position in range(limit, start, -1):
        if text[position - 1].isspace():
            return position
    return limit
