"""Cut sections into passages of bounded length at sentence boundaries."""

from __future__ import annotations

from typing import Iterator

from regrag.corpus.model import Document, Passage
from regrag.jsonl import printable
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits
from regrag.text.sentences import sentence_spans, trim_span


def split_passages(document: Document, max_chars: int, limits: Limits = DEFAULT_LIMITS) -> list[Passage]:
    """Passages of ``document``, numbered from 1 in text order.

    A section whose body is at most ``max_chars`` characters is one passage.
    A longer one is cut between sentences, each passage as long as possible
    without exceeding ``max_chars``; a sentence longer than that is cut at the
    last whitespace before the limit (or at the limit when there is none).
    Sections with an empty body make no passage, unless the document would
    otherwise have none: then its first section becomes an empty passage so
    the document (and its title) can still be found. More than
    ``limits.passages_per_document`` passages raise ``LimitError`` naming the
    document, as soon as the count is passed.
    """
    spans: list[tuple[str, int, int]] = []
    for title, start, end in _spans(document, max_chars):
        if len(spans) >= limits.passages_per_document:
            raise LimitError(
                f"{printable(document.source)}: document '{printable(document.id)}' makes more than "
                f"{limits.passages_per_document:,} passages of at most {max_chars:,} characters; the limit is "
                f"{limits.passages_per_document:,} (regrag.limits.Limits.passages_per_document)"
            )
        spans.append((title, start, end))
    if not spans and document.sections:
        first = document.sections[0]
        spans.append((first.title, first.start, first.start))
    return [
        Passage(document.id, number, title, start, end)
        for number, (title, start, end) in enumerate(spans, start=1)
    ]


def _spans(document: Document, max_chars: int) -> Iterator[tuple[str, int, int]]:
    """(section title, start, end) of each passage, in text order, made one at a time."""
    text = document.text
    for section in document.sections:
        start, end = trim_span(text, section.start, section.end)
        if start == end:
            continue
        if end - start <= max_chars:
            yield section.title, start, end
            continue
        for piece_start, piece_end in _bounded_pieces(text, start, end, max_chars):
            yield section.title, piece_start, piece_end


def _bounded_pieces(text: str, start: int, end: int, max_chars: int) -> Iterator[tuple[int, int]]:
    """Sentences packed greedily into pieces of at most ``max_chars``; a piece
    is given as soon as the next sentence does not fit."""
    piece: tuple[int, int] | None = None
    for s, e in _bounded_sentences(text, start, end, max_chars):
        if piece is not None and e - piece[0] <= max_chars:
            piece = (piece[0], e)  # the sentence still fits: extend the piece
            continue
        if piece is not None:
            yield piece
        piece = (s, e)
    if piece is not None:
        yield piece


def _bounded_sentences(text: str, start: int, end: int, max_chars: int) -> Iterator[tuple[int, int]]:
    """The sentences of ``text[start:end]``, those longer than ``max_chars`` cut into pieces that fit."""
    for s, e in sentence_spans(text, start, end):
        while e - s > max_chars:
            cut = _cut_point(text, s, s + max_chars)
            yield trim_span(text, s, cut)
            s, e = trim_span(text, cut, e)
        if e > s:
            yield s, e


def _cut_point(text: str, start: int, limit: int) -> int:
    """The last whitespace in (start, limit], else ``limit``."""
    for position in range(limit, start, -1):
        if text[position - 1].isspace():
            return position
    return limit
