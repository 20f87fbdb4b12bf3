"""Documents extracted from PDF, DOCX, HTML and CSV files.

A file's suffix picks its extractor; the file is read like a Markdown file
(one descriptor, size capped before reading, refused if it changes while it
is read), its SHA-256 and size are taken from the bytes read, and the
extractor's text, sections, metadata and source map become a ``Document``
whose ``origin`` names the file, the extractor and its version
(docs/corpus.md, "Extracted formats"). A file whose bytes are plainly of
another type than its suffix says (a ZIP or PDF named ``.html``, HTML named
``.pdf``) is refused naming both.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from regrag.corpus.checks import _FORBIDDEN_IN_TEXT, _TEXT_RULE
from regrag.corpus.extract.builder import Extracted
from regrag.corpus.markdown import _read_file, check_file_id
from regrag.corpus.model import Document
from regrag.corpus.origin import Origin
from regrag.errors import InputError
from regrag.jsonl import printable
from regrag.limits import DEFAULT_LIMITS, Limits

FORMATS = {".htm": "html", ".html": "html", ".docx": "docx", ".pdf": "pdf", ".csv": "csv"}
EXTRACTED_SUFFIXES = tuple(sorted(FORMATS))

_MAGIC = ((b"%PDF-", "a PDF file"), (b"PK\x03\x04", "a ZIP archive (DOCX, XLSX, ...)"),
          (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an OLE compound file (an encrypted Office file, or a legacy .doc/.xls)"))


def read_extracted(
    path: Path,
    document_id: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    read_from: Path | None = None,
    follow_symlinks: bool = True,
    csv_rows: bool = False,
) -> list[Document]:
    """The document(s) the file ``path`` holds: one, or one per row for a
    CSV file with ``csv_rows`` (ids ``FILE/row-N``, N from 1 after the header)."""
    where = printable(str(path))
    check_file_id(document_id, where, limits)
    format_name = FORMATS[path.suffix.lower()]
    data = _read_file(read_from or path, where, limits, follow_symlinks)
    _check_claimed_type(data, format_name, where)
    digest = hashlib.sha256(data).hexdigest()
    stem = path.stem
    if format_name == "csv":
        from regrag.corpus.extract import csv_rows as reader

        parts = reader.extract(data, where, stem, limits, per_row=csv_rows)
        name, version = reader.EXTRACTOR, reader.extractor_version()
        ids = [document_id + suffix for suffix, _extracted in parts]
        extracted_list = [extracted for _suffix, extracted in parts]
    else:
        if format_name == "html":
            from regrag.corpus.extract import html as reader  # type: ignore[no-redef]
        elif format_name == "docx":
            from regrag.corpus.extract import docx as reader  # type: ignore[no-redef]
        else:
            from regrag.corpus.extract import pdf as reader  # type: ignore[no-redef]
        extracted_list = [reader.extract(data, where, stem, limits)]
        name, version = reader.EXTRACTOR, reader.extractor_version()
        ids = [document_id]
    documents = []
    for document_id_here, extracted in zip(ids, extracted_list):
        _check_extracted_text(extracted, where)
        origin = Origin(format_name, name, version, digest, len(data), extracted.pieces)
        documents.append(Document(document_id_here, extracted.title, extracted.text, extracted.sections,
                                  extracted.metadata, document_id, origin))
    return documents


def _check_claimed_type(data: bytes, format_name: str, where: str) -> None:
    """Refuse a file whose first bytes say it is another type than its suffix."""
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    for magic, what in _MAGIC:
        if head.startswith(magic):
            if (format_name, magic) in (("pdf", b"%PDF-"), ("docx", b"PK\x03\x04")):
                return
            raise InputError(f"{where}: named .{format_name} but the file is {what}; rename it or convert it")
    if format_name == "pdf":
        raise InputError(f"{where}: not a PDF file (it does not start with %PDF-)")
    if format_name == "docx":
        raise InputError(f"{where}: not a DOCX file (not a ZIP archive)")


def _check_extracted_text(extracted: Extracted, where: str) -> None:
    """The same control-character rule as every loader, on what was extracted (titles and metadata too)."""
    for label, value in (("title", extracted.title), ("text", extracted.text),
                         *((f"metadata {key!r}", v) for key, v in extracted.metadata)):
        match = _FORBIDDEN_IN_TEXT.search(value)
        if match is not None:
            raise InputError(f"{where}: extracted {label} has U+{ord(match.group()):04X} at character "
                             f"{match.start()}; {_TEXT_RULE}")
