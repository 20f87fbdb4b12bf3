"""Read a corpus: a folder of Markdown/text files, a JSONL file, or a BEIR folder.

Files are read in sorted order of their POSIX path relative to the corpus
root, which is also the document id of a file. Every problem (invalid UTF-8,
malformed JSON, a wrong type, a duplicate id) raises ``InputError`` naming the
file and 1-based line; nothing is skipped silently. Files in a folder that are
not ``.md``, ``.markdown`` or ``.txt`` (and hidden files) are not documents:
they are listed in ``Corpus.skipped`` so the caller can report them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from regrag.audit.canonical import canonical_json
from regrag.corpus.model import TITLE_SEPARATOR, Document, Section
from regrag.errors import InputError
from regrag.jsonl import json_objects

TEXT_SUFFIXES = (".md", ".markdown", ".txt")
MARKDOWN_SUFFIXES = (".md", ".markdown")

_METADATA_LINE = re.compile(r"^([a-z][a-z0-9_]*):(?!//)[ \t]*(.*?)[ \t]*$")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^(```|~~~)")


@dataclass(frozen=True)
class Corpus:
    """Documents sorted by id, plus the files of a folder that were not read (with why)."""

    documents: tuple[Document, ...]
    skipped: tuple[tuple[str, str], ...] = ()


def load_corpus(path: str | Path) -> Corpus:
    """Load whatever ``path`` is: BEIR folder, folder of text files, or JSONL file."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if path.is_dir():
        if (path / "corpus.jsonl").is_file():
            return Corpus(load_beir_corpus(path / "corpus.jsonl"))
        return load_folder(path)
    if path.name == "corpus.jsonl":
        return Corpus(load_beir_corpus(path))
    if path.suffix == ".jsonl":
        return Corpus(load_jsonl(path))
    if path.suffix in TEXT_SUFFIXES:
        return Corpus((read_text_document(path, path.name),))
    raise InputError(f"{path}: not a corpus (expected a folder, a .jsonl file or a .md/.txt file)")


def decode_utf8(data: bytes, path: Path) -> str:
    """Strict UTF-8, with the line of the first bad byte in the error."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"{path}:{line}: invalid UTF-8 ({error.reason} at byte {error.start})") from None


def load_folder(root: Path) -> Corpus:
    documents: list[Document] = []
    skipped: list[tuple[str, str]] = []
    for relative, file_path in _sorted_entries(root):
        try:
            relative.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"{file_path}: the file name is not valid UTF-8; rename it") from None
        if any(part.startswith(".") for part in Path(relative).parts):
            skipped.append((relative, "hidden file"))
        elif file_path.is_symlink() and file_path.is_dir():
            skipped.append((relative, "symbolic link to a directory (not followed)"))
        elif not file_path.is_file():
            skipped.append((relative, "not a regular file (a broken link, a pipe or a device)"))
        elif file_path.suffix.lower() not in TEXT_SUFFIXES:
            skipped.append((relative, "not .md, .markdown or .txt"))
        else:
            documents.append(read_text_document(file_path, relative))
    return Corpus(_unique_sorted(documents), tuple(skipped))


def _sorted_entries(root: Path) -> list[tuple[str, Path]]:
    """Every entry below ``root`` except directories that are followed, sorted by relative POSIX path."""
    entries = [
        (p.relative_to(root).as_posix(), p)
        for p in root.rglob("*")
        if p.is_symlink() or not p.is_dir()
    ]
    entries.sort(key=lambda item: item[0])
    return entries


def read_text_document(path: Path, document_id: str) -> Document:
    """One Markdown or plain-text file as a document whose id is ``document_id``."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from None
    text = decode_utf8(data, path)
    markdown = path.suffix.lower() in MARKDOWN_SUFFIXES
    metadata, body_start = _parse_metadata(text, path)
    fallback_title = path.stem
    if markdown:
        title, sections = _markdown_sections(text, body_start, fallback_title)
    else:
        title, sections = fallback_title, (Section(fallback_title, body_start, len(text)),)
    return Document(document_id, title, text, sections, metadata, document_id)


def _lines(text: str, start: int) -> Iterable[tuple[int, int, str]]:
    """(line start, line end including newline, line without newline) from ``start``."""
    position = start
    length = len(text)
    while position < length:
        newline = text.find("\n", position)
        end = length if newline < 0 else newline + 1
        yield position, end, text[position:end].rstrip("\r\n")
        position = end


def _parse_metadata(text: str, path: Path) -> tuple[tuple[tuple[str, str], ...], int]:
    """Leading ``key: value`` lines up to the first blank line; returns them and where the body starts."""
    start = 1 if text.startswith("\ufeff") else 0
    metadata: dict[str, str] = {}
    for number, (line_start, line_end, line) in enumerate(_lines(text, start), start=1):
        match = _METADATA_LINE.match(line)
        if match is None:
            if line.strip() == "" and metadata:
                return tuple(sorted(metadata.items())), line_end
            break
        key, value = match.groups()
        if key in metadata:
            raise InputError(f"{path}:{number}: metadata key {key!r} given twice")
        metadata[key] = value
    # No blank line after the key: value lines: they are text, not metadata.
    return (), start


def _markdown_sections(text: str, body_start: int, fallback_title: str) -> tuple[str, tuple[Section, ...]]:
    headings: list[tuple[int, str, int, int]] = []  # level, heading, line start, line end
    fence: str | None = None  # the marker of the open code fence, if any
    for line_start, line_end, line in _lines(text, body_start):
        marker = _FENCE.match(line)
        if marker is not None and (fence is None or marker.group(1) == fence):
            fence = marker.group(1) if fence is None else None
            continue
        if fence is not None:
            continue
        match = _HEADING.match(line)
        if match:
            headings.append((len(match.group(1)), match.group(2).strip(), line_start, line_end))
    title_heading = next((index for index, h in enumerate(headings) if h[0] == 1), None)
    title = headings[title_heading][1] if title_heading is not None else fallback_title
    sections: list[Section] = []
    preamble_end = headings[0][2] if headings else len(text)
    if text[body_start:preamble_end].strip():
        sections.append(Section(title, body_start, preamble_end))
    path: list[tuple[int, int, str]] = []  # level, heading index, heading
    for index, (level, heading, _line_start, line_end) in enumerate(headings):
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, index, heading))
        names = [name for _level, _index, name in path]
        if path[0][1] != title_heading:
            names.insert(0, title)
        body_end = headings[index + 1][2] if index + 1 < len(headings) else len(text)
        sections.append(Section(TITLE_SEPARATOR.join(names), line_end, body_end))
    if not sections:
        sections.append(Section(title, body_start, len(text)))
    return title, tuple(sections)


def _read_jsonl(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    return json_objects(path)


def _string_field(record: dict, key: str, path: Path, number: int, required: bool = True) -> str:
    value = record.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{path}:{number}: field {key!r} must be a string")
    _check_encodable(value, key, path, number)
    return value


def _check_encodable(value: str, key: str, path: Path, number: int) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{path}:{number}: field {key!r} contains a lone surrogate") from None


def _metadata_field(record: dict, path: Path, number: int, lenient: bool = False) -> tuple[tuple[str, str], ...]:
    """Metadata as sorted (key, text) pairs. Strings are kept; finite numbers
    become their ``repr``. A JSONL corpus allows nothing else; a BEIR corpus
    (``lenient``) also keeps lists, objects, booleans and null, as their
    canonical JSON text, since published BEIR sets carry such metadata."""
    metadata = record.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        raise InputError(f"{path}:{number}: field 'metadata' must be an object")
    pairs = []
    for key, value in metadata.items():
        if isinstance(value, str):
            text = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise InputError(f"{path}:{number}: metadata {key!r} must be a finite number")
            text = repr(value)
        elif lenient:
            try:
                text = canonical_json(value)
            except ValueError:
                raise InputError(f"{path}:{number}: metadata {key!r} holds a non-finite number") from None
        else:
            raise InputError(f"{path}:{number}: metadata {key!r} must be a string or a number")
        _check_encodable(key, "metadata", path, number)
        _check_encodable(text, f"metadata.{key}", path, number)
        pairs.append((key, text))
    return tuple(sorted(pairs))


def _check_new_id(document_id: str, seen: dict[str, int], path: Path, number: int) -> None:
    if document_id in seen:
        raise InputError(f"{path}:{number}: duplicate document id {document_id!r} (first on line {seen[document_id]})")
    seen[document_id] = number


def load_jsonl(path: Path) -> tuple[Document, ...]:
    """Documents from a JSONL file: ``id``, ``title``, ``text`` or ``sections``, ``metadata``.

    No title is invented: a document without one has an empty title."""
    documents = []
    seen: dict[str, int] = {}
    for number, record in _read_jsonl(path):
        document_id = _id_field(record, "id", path, number)
        _check_new_id(document_id, seen, path, number)
        title = _string_field(record, "title", path, number, required=False)
        metadata = _metadata_field(record, path, number)
        if "sections" in record:
            if "text" in record:
                raise InputError(f"{path}:{number}: give 'text' or 'sections', not both")
            text, sections = _sections_field(record["sections"], title, path, number)
        else:
            text = _string_field(record, "text", path, number)
            sections = (Section(title, 0, len(text)),)
        documents.append(Document(document_id, title, text, sections, metadata, path.name))
    return _unique_sorted(documents, path)


def _id_field(record: dict, key: str, path: Path, number: int) -> str:
    value = record.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{path}:{number}: field {key!r} must be a non-empty string")
    _check_encodable(value, key, path, number)
    return value


def _sections_field(value: Any, title: str, path: Path, number: int) -> tuple[str, tuple[Section, ...]]:
    if not isinstance(value, list) or not value:
        raise InputError(f"{path}:{number}: field 'sections' must be a non-empty list")
    parts: list[str] = []
    sections: list[Section] = []
    position = 0
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise InputError(f"{path}:{number}: sections[{index}] must be an object")
        heading = _string_field(item, "title", path, number, required=False)
        body = _string_field(item, "text", path, number)
        if parts:
            parts.append("\n\n")
            position += 2
        names = [name for name in (title, heading) if name]
        sections.append(Section(TITLE_SEPARATOR.join(names), position, position + len(body)))
        parts.append(body)
        position += len(body)
    return "".join(parts), tuple(sections)


def load_beir_corpus(path: Path) -> tuple[Document, ...]:
    """Documents from a BEIR ``corpus.jsonl`` (``_id``, ``title``, ``text``, ``metadata``)."""
    documents = []
    seen: dict[str, int] = {}
    for number, record in _read_jsonl(path):
        document_id = _id_field(record, "_id", path, number)
        _check_new_id(document_id, seen, path, number)
        title = _string_field(record, "title", path, number, required=False)
        text = _string_field(record, "text", path, number)
        metadata = _metadata_field(record, path, number, lenient=True)
        sections = (Section(title, 0, len(text)),)
        documents.append(Document(document_id, title, text, sections, metadata, path.name))
    return _unique_sorted(documents, path)


def _unique_sorted(documents: list[Document], path: Path | None = None) -> tuple[Document, ...]:
    seen: dict[str, Document] = {}
    for document in documents:
        if document.id in seen:
            where = f"{path}: " if path else ""
            raise InputError(f"{where}duplicate document id {document.id!r}")
        seen[document.id] = document
    return tuple(sorted(documents, key=lambda d: d.id))
