"""Where an extracted document's text came from: the original file and a source map.

A PDF, DOCX, HTML or CSV file is not its text: regrag extracts the text,
and every offset it reports (passage spans, term matches) indexes that
extracted text. ``Origin`` ties the extracted text back to the file an
auditor holds: the file's SHA-256 and size, the extractor's name and
version (extracted text is reproducible only under a pinned extractor), and
``pieces``, a source map from spans of the extracted text to places in the
file. It is part of the document's canonical form, so of its content hash
and of the index id (docs/corpus.md, "Extracted formats").

A ``Piece`` maps the extracted span ``[start, end)`` to ``part`` (the file
itself, ``""``, for HTML and CSV; an XML path for DOCX; ``page N`` for PDF)
and the span ``[source_start, source_end)`` inside it (bytes of the file for
HTML and CSV; characters of the ``w:t`` element's text for DOCX; unused for
PDF, whose ``boxes`` give one page-coordinate box per extracted character).
When both spans have the same length the map is character by character;
otherwise (``&nbsp;`` -> one character, a collapsed run of white space) the
extracted span comes from the whole source span.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Piece:
    """One span of the extracted text and where it is in the source."""

    start: int
    end: int
    part: str
    source_start: int
    source_end: int
    boxes: tuple[Box, ...] = ()

    def to_list(self) -> list:
        item: list = [self.start, self.end, self.part, self.source_start, self.source_end]
        if self.boxes:
            item.append([list(box) for box in self.boxes])
        return item


@dataclass(frozen=True)
class Location:
    """Where a span of extracted text is in the original file."""

    part: str
    source_start: int
    source_end: int
    boxes: tuple[Box, ...] = ()

    def to_dict(self) -> dict:
        found: dict = {"part": self.part, "source": [self.source_start, self.source_end]}
        if self.boxes:
            found["boxes"] = [list(box) for box in self.boxes]
        return found

    def bounded(self) -> "Location":
        """This place with its character boxes replaced by the one box that bounds them."""
        if len(self.boxes) <= 1:
            return self
        boxes = self.boxes
        box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
        return Location(self.part, self.source_start, self.source_end, (box,))

    def describe(self, format_name: str) -> str:
        """One line for people: ``characters 120-134``, ``page 2, box (...)``, an XML path."""
        if format_name in ("html", "csv"):
            return f"characters {self.source_start}-{self.source_end} of the file"
        if format_name == "pdf":
            if not self.boxes:
                return self.part
            x0, y0, x1, y1 = self.bounded().boxes[0]
            return f"{self.part}, box ({x0:g}, {y0:g}, {x1:g}, {y1:g})"
        return f"{self.part}, characters {self.source_start}-{self.source_end} of its text"


@dataclass(frozen=True)
class Origin:
    """The original file of an extracted document and the map back into it."""

    format: str
    extractor: str
    extractor_version: str
    file_sha256: str
    file_bytes: int
    pieces: tuple[Piece, ...]

    def __post_init__(self) -> None:
        # the pieces' starts, for bisection (not a field: not compared, not stored)
        object.__setattr__(self, "_starts", [piece.start for piece in self.pieces])

    def canonical(self) -> dict:
        return {
            "extractor": self.extractor,
            "extractor_version": self.extractor_version,
            "file_bytes": self.file_bytes,
            "file_sha256": self.file_sha256,
            "format": self.format,
            "pieces": [piece.to_list() for piece in self.pieces],
        }

    def file_dict(self) -> dict:
        """What identifies the original file and its reading (without the map)."""
        found = self.canonical()
        del found["pieces"]
        return found

    def locate(self, start: int, end: int) -> tuple[Location, ...]:
        """Where the extracted span ``[start, end)`` is in the file: one
        location per part it crosses (consecutive pieces of one part merged),
        in text order. Extracted characters that no piece covers (separators
        regrag inserted between paragraphs, cells or lines) have no location."""
        found: list[Location] = []
        starts = self._starts  # type: ignore[attr-defined]
        at = max(0, bisect_right(starts, start) - 1)
        pieces = self.pieces
        while at < len(pieces) and pieces[at].start < end:
            piece = pieces[at]
            at += 1
            low, high = max(start, piece.start), min(end, piece.end)
            if low >= high:
                continue
            if piece.end - piece.start == piece.source_end - piece.source_start:
                source = (piece.source_start + low - piece.start, piece.source_start + high - piece.start)
            else:
                source = (piece.source_start, piece.source_end)
            boxes = piece.boxes[low - piece.start:high - piece.start] if piece.boxes else ()
            if found and found[-1].part == piece.part:
                last = found[-1]
                found[-1] = Location(piece.part, min(last.source_start, source[0]), max(last.source_end, source[1]),
                                     last.boxes + boxes)
            else:
                found.append(Location(piece.part, source[0], source[1], boxes))
        return tuple(found)


def origin_from_record(value: object) -> Origin:
    """The ``Origin`` a canonical record holds (``ValueError``/``TypeError``/``KeyError`` when malformed)."""
    if not isinstance(value, dict):
        raise TypeError("origin is not an object")
    pieces = []
    for item in value["pieces"]:
        start, end, part, source_start, source_end = item[:5]
        boxes = tuple(tuple(float(v) for v in box) for box in item[5]) if len(item) > 5 else ()
        if not (isinstance(start, int) and isinstance(end, int) and isinstance(part, str)):
            raise TypeError("malformed piece")
        pieces.append(Piece(start, end, part, int(source_start), int(source_end), boxes))  # type: ignore[arg-type]
    return Origin(str(value["format"]), str(value["extractor"]), str(value["extractor_version"]),
                  str(value["file_sha256"]), int(value["file_bytes"]), tuple(pieces))
