"""Records for documents, their sections and their passages.

A document keeps its text exactly as read, so every offset regrag reports
slices it. Sections and passages are spans of that text; their titles are
heading paths ("Document title › Section heading"), indexed as a separate
field and weighted in scoring.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrag.audit.canonical import sha256_hex

TITLE_SEPARATOR = " › "


@dataclass(frozen=True)
class Section:
    """A titled span ``[start, end)`` of its document's text (the body, without the heading line)."""

    title: str
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """One source document. ``metadata`` is sorted by key."""

    id: str
    title: str
    text: str
    sections: tuple[Section, ...]
    metadata: tuple[tuple[str, str], ...]
    source: str

    def metadata_dict(self) -> dict[str, str]:
        return dict(self.metadata)

    def canonical(self) -> dict:
        """Everything that determines retrieval, in canonical form (``source`` is not part of it)."""
        return {
            "id": self.id,
            "metadata": [list(pair) for pair in self.metadata],
            "sections": [[s.title, s.start, s.end] for s in self.sections],
            "text": self.text,
            "title": self.title,
        }

    def content_hash(self) -> str:
        """SHA-256 of the canonical form: changes whenever anything indexed changes."""
        return sha256_hex(self.canonical())


@dataclass(frozen=True)
class Passage:
    """The retrieval unit: a section, or a sentence-bounded piece of a long one."""

    document_id: str
    number: int
    title: str
    start: int
    end: int

    @property
    def id(self) -> str:
        return f"{self.document_id}#{self.number}"
