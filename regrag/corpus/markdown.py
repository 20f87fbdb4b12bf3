"""Markdown and plain-text documents: metadata lines, ATX-heading sections, and the file read.

A file is read through one descriptor, its size checked against the limits
before reading and its state compared after (``regrag.io.identity``), so a
file being rewritten is refused rather than indexed half-written.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import BinaryIO, Iterable

from regrag.corpus.checks import _ID_RULE, _check_file_text, _shown_id, _size_error, decode_utf8, id_length_error, id_problem
from regrag.corpus.model import Document, Section
from regrag.corpus.sections import heading_sections
from regrag.errors import InputError
from regrag.jsonl import printable
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits
from regrag.io import files
from regrag.io.identity import check_unchanged, state_of_descriptor

MARKDOWN_SUFFIXES = (".md", ".markdown")

# Both patterns leave trailing spaces, tabs and a closing ``#`` run to code:
# letting the regular expression find them ((.*?) before an optional
# [ \t]+#+ and [ \t]*$) took time quadratic in a run of spaces (7 s for one
# 16,000-space heading line).
_METADATA_LINE = re.compile(r"^([a-z][a-z0-9_]*):(?!//)(.*)$")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*)$")


def _metadata_value(rest: str) -> str:
    """A metadata line's value: the text after the colon without surrounding spaces and tabs."""
    return rest.strip(" \t")


def _heading_text(rest: str) -> str:
    """An ATX heading's text: without trailing spaces and tabs, and without a
    closing run of ``#`` when spaces or tabs separate it from the text."""
    text = rest.rstrip(" \t")
    without_closing = text.rstrip("#")
    if without_closing != text and without_closing != without_closing.rstrip(" \t"):
        text = without_closing.rstrip(" \t")
    return text


_FENCE = re.compile(r"^(```|~~~)")


def _read_bytes(handle: BinaryIO, count: int) -> bytes:
    """At most ``count`` bytes of an open file (one function, so a test can rewrite the file mid-read)."""
    return handle.read(count)


def _read_file(path: Path, where: str, limits: Limits, follow_symlinks: bool) -> bytes:
    """The bytes of a regular file, its size checked (``fstat``) against the limits before reading.
    Without ``follow_symlinks`` a file that became a symbolic link since it was listed is not opened."""
    try:
        descriptor = files.open_without_blocking(path, follow_symlinks=follow_symlinks)
    except OSError as error:
        raise InputError(f"{where}: cannot read ({error.strerror or error})") from None
    with files.wrap(descriptor) as handle:
        status = files.status(descriptor)
        if files.not_regular(status.st_mode):
            raise InputError(f"{where}: not a regular file")
        too_large = _size_error(status.st_size, where, limits)
        if too_large is not None:
            raise too_large
        before = state_of_descriptor(descriptor)
        allowed = min(limits.file_bytes, limits.document_bytes)
        try:
            data = _read_bytes(handle, allowed + 1)
        except OSError as error:
            raise InputError(f"{where}: cannot read ({error.strerror or error})") from None
        check_unchanged(before, descriptor, path, where)
    too_large = _size_error(len(data), where, limits)  # the file grew after fstat
    if too_large is not None:
        raise too_large
    return data


def check_file_id(document_id: str, where: str, limits: Limits) -> None:
    """``InputError`` when a file's relative path is not acceptable as a document id."""
    problem = id_problem(document_id)
    if problem is not None:
        raise InputError(
            f"{where}: the document id (the file's path) {_shown_id(document_id, problem)} {problem}; "
            f"rename the file ({_ID_RULE})"
        )
    too_long = id_length_error(document_id, f"{where}: the file's path", limits)
    if too_long is not None:
        raise too_long


def read_text_document(
    path: Path,
    document_id: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    read_from: Path | None = None,
    follow_symlinks: bool = True,
) -> Document:
    """One Markdown or plain-text file as a document whose id is ``document_id``.

    ``path`` names the file (in messages, for its suffix and its title);
    ``read_from`` is where the bytes are read when that differs (the checked
    target of a symbolic link)."""
    where = printable(str(path))
    check_file_id(document_id, where, limits)
    data = _read_file(read_from or path, where, limits, follow_symlinks)
    text = decode_utf8(data, path)
    _check_file_text(text, where)
    markdown = path.suffix.lower() in MARKDOWN_SUFFIXES
    metadata, body_start = _parse_metadata(text, where)
    fallback_title = path.stem
    if markdown:
        title, sections = _markdown_sections(text, body_start, fallback_title, where, limits)
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


def _parse_metadata(text: str, where: str) -> tuple[tuple[tuple[str, str], ...], int]:
    """Leading ``key: value`` lines up to the first blank line; returns them and where the body starts."""
    start = 1 if text.startswith("\ufeff") else 0
    metadata: dict[str, str] = {}
    for number, (line_start, line_end, line) in enumerate(_lines(text, start), start=1):
        match = _METADATA_LINE.match(line)
        if match is None:
            if line.strip() == "" and metadata:
                return tuple(sorted(metadata.items())), line_end
            break
        key, value = match.group(1), _metadata_value(match.group(2))
        if key in metadata:
            raise InputError(f"{where}:{number}: metadata key {key!r} given twice")
        metadata[key] = value
    # No blank line after the key: value lines: they are text, not metadata.
    return (), start


def _markdown_sections(
    text: str, body_start: int, fallback_title: str, where: str, limits: Limits
) -> tuple[str, tuple[Section, ...]]:
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
            # the preamble may be one more section: stop at the first heading past the cap
            if len(headings) >= limits.sections_per_document:
                line_number = text.count("\n", 0, line_start) + 1
                raise LimitError(
                    f"{where}:{line_number}: more than {limits.sections_per_document:,} sections (headings); "
                    f"the limit is {limits.sections_per_document:,} (regrag.limits.Limits.sections_per_document)"
                )
            headings.append((len(match.group(1)), _heading_text(match.group(2)).strip(), line_start, line_end))
    title_heading = next((index for index, h in enumerate(headings) if h[0] == 1), None)
    title = headings[title_heading][1] if title_heading is not None else fallback_title
    sections = heading_sections(text, title, headings, title_heading, body_start)
    if len(sections) > limits.sections_per_document:  # the preamble made one too many
        raise LimitError(
            f"{where}:1: more than {limits.sections_per_document:,} sections (headings and the text before them); "
            f"the limit is {limits.sections_per_document:,} (regrag.limits.Limits.sections_per_document)"
        )
    return title, tuple(sections)


