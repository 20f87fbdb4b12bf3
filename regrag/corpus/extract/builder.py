"""Extracted text built piece by piece, with its source map and its heading sections.

Every extractor (HTML, DOCX, PDF, CSV) appends text through ``TextBuilder``:
``add`` for text that comes from a place in the file (recorded as a
``Piece``), ``separator`` for the line and paragraph breaks regrag puts
between blocks (no place in the file), ``heading`` to start a section.
Adjacent pieces that continue each other both in the text and in the source
are merged, so the map has about one piece per source line, not per word.
Sections follow the Markdown rules (docs/corpus.md): a section's title is
its heading path joined by `` › ``, starting with the document title.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from regrag.corpus.model import Section
from regrag.corpus.origin import Box, Piece
from regrag.corpus.sections import heading_sections
from regrag.limits import LimitError, Limits


@dataclass(frozen=True)
class Extracted:
    """What an extractor read from one file: the text, its title, sections, metadata and source map."""

    text: str
    title: str
    sections: tuple[Section, ...]
    metadata: tuple[tuple[str, str], ...]
    pieces: tuple[Piece, ...]


class TextBuilder:
    """Accumulates extracted text, its pieces and its headings."""

    def __init__(self, where: str, limits: Limits) -> None:
        self.where = where
        self.limits = limits
        self._chunks: list[str] = []
        self._chunk_starts: list[int] = []
        self.length = 0
        self._pieces: list[list] = []  # [start, end, part, source_start, source_end, boxes list]
        self._headings: list[tuple[int, str, int, int]] = []  # level, text, heading start, body start
        self._last_char = ""

    def add(self, text: str, part: str, source_start: int, source_end: int, boxes: tuple[Box, ...] = ()) -> None:
        """``text``, read from ``[source_start, source_end)`` of ``part``."""
        if not text:
            return
        start, end = self.length, self.length + len(text)
        last = self._pieces[-1] if self._pieces else None
        linear = end - start == source_end - source_start
        if (last is not None and last[1] == start and last[2] == part and last[4] == source_start and linear
                and last[1] - last[0] == last[4] - last[3] and bool(last[5]) == bool(boxes)):
            last[1], last[4] = end, source_end
            last[5].extend(boxes)
        else:
            self._pieces.append([start, end, part, source_start, source_end, list(boxes)])
        self._append(text)

    def separator(self, text: str) -> None:
        """A break regrag inserts (``\\n``, ``\\n\\n``, `` | ``): text with no place in the file."""
        self._append(text)

    def _append(self, text: str) -> None:
        self._chunk_starts.append(self.length)
        self._chunks.append(text)
        self.length += len(text)
        self._last_char = text[-1]

    def ends_with(self, characters: str) -> bool:
        """Whether the text so far is empty or ends with one of ``characters``."""
        return self.length == 0 or self._last_char in characters

    def block_break(self, text: str = "\n\n") -> None:
        """A paragraph break (a blank line), unless the text is empty or already ends with one."""
        if self.length == 0 or self._tail(2) == "\n\n":
            return
        self.separator(text[1:] if self._last_char == "\n" else text)

    def _tail(self, count: int) -> str:
        """The last ``count`` characters of the text (fewer if it is shorter)."""
        tail = ""
        for chunk in reversed(self._chunks):
            tail = chunk + tail
            if len(tail) >= count:
                break
        return tail[-count:]

    def mark(self) -> int:
        """The current length (where the next text will start)."""
        return self.length

    def text_since(self, start: int) -> str:
        """The text from ``start`` to here (only the chunks after ``start`` are joined)."""
        if start >= self.length:
            return ""
        first = bisect_right(self._chunk_starts, start) - 1
        return "".join(self._chunks[first:])[start - self._chunk_starts[first]:]

    def heading(self, level: int, heading_start: int) -> None:
        """The text from ``heading_start`` to here is a heading of ``level``;
        the section it starts has its body after the next break."""
        heading = " ".join(self.text_since(heading_start).split())
        if not heading:
            return
        if len(self._headings) >= self.limits.sections_per_document:
            raise LimitError(
                f"{self.where}: more than {self.limits.sections_per_document:,} sections (headings); the limit is "
                f"{self.limits.sections_per_document:,} (regrag.limits.Limits.sections_per_document)"
            )
        self.block_break()
        self._headings.append((level, heading, heading_start, self.length))

    def first_heading(self, level: int) -> str | None:
        return next((text for lvl, text, _s, _b in self._headings if lvl == level), None)

    def finish(self, title: str, metadata: dict[str, str]) -> Extracted:
        """The text (trailing white space removed), its sections and pieces."""
        text = "".join(self._chunks)
        stripped = text.rstrip()
        length = len(stripped)
        pieces = []
        for start, end, part, source_start, source_end, boxes in self._pieces:
            if start >= length:
                break
            if end > length:  # only white space is cut, and white space maps one to one or as a whole
                if end - start == source_end - source_start:
                    source_end -= end - length
                boxes = boxes[:length - start]
                end = length
            pieces.append(Piece(start, end, part, source_start, source_end, tuple(boxes)))
        return Extracted(stripped, title, self._sections(stripped, title), tuple(sorted(metadata.items())),
                         tuple(pieces))

    def _sections(self, text: str, title: str) -> tuple[Section, ...]:
        headings = [h for h in self._headings if h[2] < len(text)]
        title_heading = next((i for i, h in enumerate(headings) if h[0] == 1 and h[1] == title), None)
        return tuple(heading_sections(text, title, headings, title_heading))
