"""Records for documents, their sections and their passages.

A document keeps its text exactly as read, so every offset regrag reports
slices it. Sections and passages are spans of that text; their titles are
heading paths ("Document title › Section heading"), indexed as a separate
field and weighted in scoring.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrag.audit.canonical import sha256_hex
from regrag.corpus.origin import Origin
from regrag.errors import InputError

TITLE_SEPARATOR = " › "


@dataclass(frozen=True)
class Section:
    """A titled span ``[start, end)`` of its document's text (the body, without the heading line)."""

    title: str
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """One source document.

    ``metadata`` is stored sorted by key whatever order it is given in, so
    the order in which a caller lists it cannot change the content hash or
    the index id; a key given twice is an ``InputError`` (which value would
    a filter see?). ``source`` is where the document was read: for a file
    of a folder its relative path (the id), for a JSONL or BEIR record the
    file's name. ``origin`` is set for a document extracted from a PDF,
    DOCX, HTML or CSV file: the file's hash and size, the extractor and the
    map from the extracted text back into the file (``regrag.corpus.origin``)."""

    id: str
    title: str
    text: str
    sections: tuple[Section, ...]
    metadata: tuple[tuple[str, str], ...]
    source: str
    origin: Origin | None = None

    def __post_init__(self) -> None:
        if _sorted_pairs(self.metadata):  # what every loader gives: nothing to do (an index of 1M documents opens fast)
            return
        pairs = tuple(tuple(pair) for pair in self.metadata)
        if any(len(pair) != 2 for pair in pairs):
            raise InputError(f"document {_shown(self.id)}: metadata must be (key, value) pairs")
        ordered = tuple(sorted(pairs, key=lambda pair: pair[0]))
        for (key, _value), (next_key, _next) in zip(ordered, ordered[1:]):
            if key == next_key:
                raise InputError(f"document {_shown(self.id)}: metadata key {_shown(key)} given twice")
        if ordered != self.metadata:
            object.__setattr__(self, "metadata", ordered)

    def metadata_dict(self) -> dict[str, str]:
        return dict(self.metadata)

    def canonical(self) -> dict:
        """Everything a hit reports about the document, in canonical form.

        ``source`` is part of it when it differs from the id (JSONL and BEIR
        records: the file name), so the index id covers every field a hit
        reports; for a file of a folder the source is the id, already there,
        and is left out (so those hashes are what they were before
        ``source`` was covered). ``origin`` (extracted documents) is there
        only when set, so the extractor's version is part of the hash."""
        canonical = {
            "id": self.id,
            "metadata": [list(pair) for pair in self.metadata],
            "sections": [[s.title, s.start, s.end] for s in self.sections],
            "text": self.text,
            "title": self.title,
        }
        if self.source != self.id:
            canonical["source"] = self.source
        if self.origin is not None:  # extracted documents only: every other hash is what it was
            canonical["origin"] = self.origin.canonical()
        return canonical

    def content_hash(self) -> str:
        """SHA-256 of the canonical form: changes whenever anything indexed or reported changes."""
        return sha256_hex(self.canonical())


@dataclass(frozen=True)
class Corpus:
    """Documents sorted by id; the files of a folder that are not documents
    (``skipped``: path, why); and, with ``errors="collect"``, the inputs set
    aside (``rejected``: where, the error message), where is a file, or
    ``file:line`` for a JSONL record."""

    documents: tuple[Document, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()


def _sorted_pairs(metadata: object) -> bool:
    """Whether ``metadata`` is already a tuple of (key, value) tuples with strictly increasing keys."""
    if type(metadata) is not tuple:
        return False
    previous = None
    for pair in metadata:
        if type(pair) is not tuple or len(pair) != 2 or (previous is not None and pair[0] <= previous):
            return False
        previous = pair[0]
    return True


def _shown(text: object) -> str:
    """A name as an error message shows it (escaped, never more than 80 characters)."""
    from regrag.jsonl import printable

    shown = printable(str(text))
    return repr(shown if len(shown) <= 80 else shown[:77] + "...")


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
