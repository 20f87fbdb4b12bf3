"""Read a corpus: a folder of Markdown/text files, a JSONL file, or a BEIR folder.

Files are read in sorted order of their POSIX path relative to the corpus
root, which is also the document id of a file. Every problem (invalid UTF-8,
a UTF-16 file, a control character, malformed JSON, a wrong type, a bad or
duplicate id, a symbolic link leading outside the root, an unreadable file,
a resource limit) raises ``InputError`` naming the file and 1-based line;
nothing is skipped silently. Loading is all-or-nothing by default; with
``errors="collect"`` the good documents are loaded and every bad file or
line is listed in ``Corpus.rejected``. Files in a folder that are not
``.md``, ``.markdown`` or ``.txt`` (and hidden files) are not documents: they
are listed in ``Corpus.skipped`` so the caller can report them. The rules
and caps are documented in docs/corpus.md ("Hostile input and limits").
"""

from __future__ import annotations

import math
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Literal

from regrag.audit.canonical import canonical_json
from regrag.corpus.model import TITLE_SEPARATOR, Document, Section
from regrag.errors import InputError
from regrag.jsonl import UNSAFE_CHARACTERS, json_records, printable, wide_encoding, wide_encoding_error
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits

TEXT_SUFFIXES = (".md", ".markdown", ".txt")
MARKDOWN_SUFFIXES = (".md", ".markdown")
ERROR_MODES = ("raise", "collect")
ErrorMode = Literal["raise", "collect"]

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

# Text (bodies, titles, metadata) may hold the whitespace controls TAB, LF,
# VT, FF and CR; every other C0 control and DEL is refused.
_FORBIDDEN_IN_TEXT = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
_TEXT_RULE = "text may contain no control character except tab, line feed, vertical tab, form feed and carriage return"
_ID_RULE = "ids must be NFC, without control or invisible characters and without leading or trailing whitespace"
_NOT_LOADED = "; nothing was loaded (errors='collect', or --errors collect, loads the rest)"


@dataclass(frozen=True)
class Corpus:
    """Documents sorted by id; the files of a folder that are not documents
    (``skipped``: path, why); and, with ``errors="collect"``, the inputs set
    aside (``rejected``: where, the error message), where is a file, or
    ``file:line`` for a JSONL record."""

    documents: tuple[Document, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()


class _Outcome:
    """Where a bad input goes: raised at once, or recorded and passed over."""

    def __init__(self, collect: bool) -> None:
        self.collect = collect
        self.rejected: list[tuple[str, str]] = []

    def reject(self, error: InputError, where: str) -> None:
        if not self.collect:
            raise error
        self.rejected.append((where, str(error)))


def load_corpus(
    path: str | Path,
    *,
    limits: Limits = DEFAULT_LIMITS,
    allow_symlinks_outside: bool = False,
    errors: ErrorMode = "raise",
) -> Corpus:
    """Load whatever ``path`` is: BEIR folder, folder of text files, or JSONL file.

    ``errors="raise"`` (the default): the first problem raises ``InputError``
    and nothing is returned. ``errors="collect"``: bad files and lines are set
    aside in ``Corpus.rejected`` and the rest is loaded. A symbolic link in a
    folder whose target is outside the folder is refused unless
    ``allow_symlinks_outside``. ``limits`` caps sizes and counts."""
    if errors not in ERROR_MODES:
        raise InputError(f"errors must be one of {', '.join(ERROR_MODES)}, got {errors!r}")
    path = Path(path)
    if not path.exists():
        raise InputError(f"{printable(str(path))}: no such file or directory")
    outcome = _Outcome(collect=errors == "collect")
    try:
        return _load(path, limits, allow_symlinks_outside, outcome)
    except InputError as error:
        if outcome.collect:
            raise
        raise type(error)(f"{error}{_NOT_LOADED}") from None


def _load(path: Path, limits: Limits, allow_symlinks_outside: bool, outcome: _Outcome) -> Corpus:
    if path.is_dir():
        beir_file = path / "corpus.jsonl"
        if beir_file.is_symlink() or beir_file.is_file():
            try:
                target = _checked_link_target(beir_file, path.resolve(), allow_symlinks_outside)
            except InputError as error:
                outcome.reject(error, printable(str(beir_file)))
                return Corpus((), (), tuple(outcome.rejected))
            if target is None or target.is_file():
                return _records_corpus(beir_file, True, limits, outcome)
        return load_folder(path, limits=limits, allow_symlinks_outside=allow_symlinks_outside, _outcome=outcome)
    if path.name == "corpus.jsonl" or path.suffix == ".jsonl":
        return _records_corpus(path, path.name == "corpus.jsonl", limits, outcome)
    if path.suffix in TEXT_SUFFIXES:
        try:
            documents: tuple[Document, ...] = (read_text_document(path, path.name, limits=limits),)
        except InputError as error:
            outcome.reject(error, printable(str(path)))
            documents = ()
        return Corpus(documents, (), tuple(outcome.rejected))
    raise InputError(f"{printable(str(path))}: not a corpus (expected a folder, a .jsonl file or a .md/.txt file)")


# ---------------------------------------------------------------- checks shared by every loader

def _shown_id(document_id: str, problem: str) -> str:
    """The id as a message shows it: escaped, and in ASCII when NFC is the problem (so the difference shows)."""
    return ascii(document_id) if "NFC" in problem else f"'{printable(document_id)}'"


def id_problem(document_id: str) -> str | None:
    """Why ``document_id`` is not acceptable as a document id, or None.

    Ids appear in command output, golden files, Merkle leaves and the
    ledger, so an id must read the same wherever it is printed: no control
    or invisible formatting character (``regrag.jsonl.UNSAFE_CHARACTERS``),
    no leading or trailing whitespace, and Unicode NFC (two spellings of the
    same visible name would be two ids)."""
    try:
        document_id.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate"
    match = UNSAFE_CHARACTERS.search(document_id)
    if match is not None:
        return f"contains U+{ord(match.group()):04X}, a control or invisible formatting character"
    if document_id != document_id.strip():
        return "starts or ends with whitespace"
    if not unicodedata.is_normalized("NFC", document_id):
        return "is not in Unicode normalization form NFC"
    return None


def _describe_control(character: str, position: str) -> str:
    """``the control character U+0000 at column 3 (NUL)``: the code point first, so messages read alike."""
    nul = " (NUL: a binary file, or text in UTF-16?)" if character == "\x00" else ""
    return f"the control character U+{ord(character):04X} at {position}{nul}"


def _check_file_text(text: str, where: str) -> None:
    """``InputError`` at the line and column of the first forbidden control character."""
    match = _FORBIDDEN_IN_TEXT.search(text)
    if match is None:
        return
    position = match.start()
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    raise InputError(f"{where}:{line}: {_describe_control(match.group(), f'column {column}')}; {_TEXT_RULE}")


def _check_field_text(value: str, field: str, where: str) -> None:
    """``InputError`` for a lone surrogate or a forbidden control character in a JSON string field."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{where}: field {field!r} contains a lone surrogate") from None
    match = _FORBIDDEN_IN_TEXT.search(value)
    if match is not None:
        raise InputError(
            f"{where}: field {field!r} contains {_describe_control(match.group(), f'character {match.start() + 1}')}; "
            f"{_TEXT_RULE}"
        )


def _size_error(size: int, where: str, limits: Limits) -> LimitError | None:
    if size > limits.file_bytes:
        return LimitError(
            f"{where}: the file has {size:,} bytes; the limit is {limits.file_bytes:,} (regrag.limits.Limits.file_bytes)"
        )
    if size > limits.document_bytes:
        return LimitError(
            f"{where}:1: the document has {size:,} bytes; the limit is {limits.document_bytes:,} "
            "(regrag.limits.Limits.document_bytes)"
        )
    return None


def decode_utf8(data: bytes, path: Path | str) -> str:
    """Strict UTF-8, with the line of the first bad byte in the error; a file
    that looks like UTF-16 or UTF-32 is named as such."""
    where = printable(str(path))
    encoding = wide_encoding(data[:4096])
    if encoding is not None:
        raise wide_encoding_error(f"{where}:1", encoding)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"{where}:{line}: invalid UTF-8 ({error.reason} at byte {error.start})") from None


# ---------------------------------------------------------------- folders and text files

def load_folder(
    root: Path,
    *,
    limits: Limits = DEFAULT_LIMITS,
    allow_symlinks_outside: bool = False,
    _outcome: _Outcome | None = None,
) -> Corpus:
    """Every Markdown/text file below ``root`` as a document whose id is its relative path."""
    outcome = _outcome or _Outcome(collect=False)
    real_root = root.resolve()
    documents: list[Document] = []
    skipped: list[tuple[str, str]] = []
    for relative, entry, listing_error in _walk(root):
        if listing_error is not None:
            if _hidden(relative):  # never a document: what it holds would be skipped anyway
                skipped.append((printable(relative), "hidden folder that cannot be listed"))
            else:
                outcome.reject(listing_error, printable(str(entry)))
            continue
        try:
            result = _folder_entry(relative, entry, real_root, limits, allow_symlinks_outside)
        except InputError as error:
            outcome.reject(error, printable(str(entry)))
            continue
        if isinstance(result, Document):
            documents.append(result)
        else:
            skipped.append((printable(relative), result))
    return Corpus(_unique_sorted(documents), tuple(skipped), tuple(outcome.rejected))


def _hidden(relative: str) -> bool:
    """Whether a path relative to the corpus folder has a part starting with ``.``."""
    return any(part.startswith(".") for part in Path(relative).parts)


def _walk(root: Path) -> list[tuple[str, Path, InputError | None]]:
    """Every entry below ``root`` except real directories (which are entered,
    never symbolic links to directories), sorted by relative POSIX path; a
    folder that cannot be listed is an entry with its error (never skipped)."""
    entries: list[tuple[str, Path, InputError | None]] = []
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                children = sorted(listing, key=lambda child: child.name)
        except OSError as error:
            relative = "" if directory == root else directory.relative_to(root).as_posix()
            message = f"{printable(str(directory))}: cannot list the folder ({error.strerror or error})"
            entries.append((relative, directory, InputError(message)))
            continue
        for child in children:
            path = Path(child.path)
            try:
                is_directory = child.is_dir(follow_symlinks=False)
            except OSError:
                is_directory = False
            if is_directory:
                pending.append(path)
            else:
                entries.append((path.relative_to(root).as_posix(), path, None))
    entries.sort(key=lambda item: item[0])
    return entries


def _checked_link_target(path: Path, real_root: Path, allow_outside: bool) -> Path | None:
    """None when ``path`` is not a symbolic link; else its resolved target,
    after refusing (``InputError``) a target outside ``real_root`` unless
    ``allow_outside``. A link in a loop resolves to itself."""
    if not path.is_symlink():
        return None
    try:
        target = path.resolve()
    except (RuntimeError, OSError):  # a loop of links
        return path
    if not allow_outside and not target.is_relative_to(real_root):
        raise InputError(
            f"{printable(str(path))}: symbolic link to {printable(str(target))}, outside the corpus folder "
            f"{printable(str(real_root))}; refused (allow_symlinks_outside=True, on the command line "
            "--allow-symlinks-outside, accepts it)"
        )
    return target


def _folder_entry(
    relative: str, entry: Path, real_root: Path, limits: Limits, allow_symlinks_outside: bool
) -> Document | str:
    """The document ``entry`` holds, or why it is not one; ``InputError`` for a bad one."""
    try:
        relative.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{printable(str(entry))}: the file name is not valid UTF-8; rename it") from None
    if _hidden(relative):
        return "hidden file"
    target = _checked_link_target(entry, real_root, allow_symlinks_outside)
    if target == entry:
        return "symbolic link in a loop (not followed)"
    if target is not None and target.is_dir():
        return "symbolic link to a directory (not followed)"
    if not (target or entry).is_file():
        return "not a regular file (a broken link, a pipe or a device)"
    if entry.suffix.lower() not in TEXT_SUFFIXES:
        return "not .md, .markdown or .txt"
    return read_text_document(entry, relative, limits=limits, read_from=target, follow_symlinks=False)


def _read_file(path: Path, where: str, limits: Limits, follow_symlinks: bool) -> bytes:
    """The bytes of a regular file, its size checked (``fstat``) against the limits before reading.
    Without ``follow_symlinks`` a file that became a symbolic link since it was listed is not opened."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise InputError(f"{where}: cannot read ({error.strerror or error})") from None
    with open(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise InputError(f"{where}: not a regular file")
        too_large = _size_error(status.st_size, where, limits)
        if too_large is not None:
            raise too_large
        allowed = min(limits.file_bytes, limits.document_bytes)
        try:
            data = handle.read(allowed + 1)
        except OSError as error:
            raise InputError(f"{where}: cannot read ({error.strerror or error})") from None
    too_large = _size_error(len(data), where, limits)  # the file grew after fstat
    if too_large is not None:
        raise too_large
    return data


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
    problem = id_problem(document_id)
    if problem is not None:
        raise InputError(
            f"{where}: the document id (the file's path) {_shown_id(document_id, problem)} {problem}; "
            f"rename the file ({_ID_RULE})"
        )
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
    if len(sections) > limits.sections_per_document:  # the preamble made one too many
        raise LimitError(
            f"{where}:1: more than {limits.sections_per_document:,} sections (headings and the text before them); "
            f"the limit is {limits.sections_per_document:,} (regrag.limits.Limits.sections_per_document)"
        )
    return title, tuple(sections)


# ---------------------------------------------------------------- JSONL and BEIR

def _records_corpus(path: Path, beir: bool, limits: Limits, outcome: _Outcome) -> Corpus:
    return Corpus(_load_records(path, beir, limits, outcome), (), tuple(outcome.rejected))


def _load_records(path: Path, beir: bool, limits: Limits, outcome: _Outcome) -> tuple[Document, ...]:
    """Documents of a JSONL (or, with ``beir``, a BEIR ``corpus.jsonl``) file.
    A bad line goes to ``outcome``; of two lines with one id, the first stays."""
    documents: list[Document] = []
    first_line: dict[str, int] = {}
    where_file = printable(str(path))
    try:
        for number, record in json_records(path, limits):
            where = f"{where_file}:{number}"
            try:
                if isinstance(record, InputError):
                    raise record
                document = _record_document(record, beir, path, where, limits)
                if document.id in first_line:
                    raise InputError(
                        f"{where}: duplicate document id {document.id!r} (first on line {first_line[document.id]})"
                    )
            except InputError as error:
                outcome.reject(error, where)
                continue
            first_line[document.id] = number
            documents.append(document)
    except InputError as error:  # the whole file: unreadable, too large, UTF-16
        outcome.reject(error, where_file)
        return ()
    return _unique_sorted(documents, path)


def _record_document(record: dict[str, Any], beir: bool, path: Path, where: str, limits: Limits) -> Document:
    document_id = _id_field(record, "_id" if beir else "id", where)
    title = _string_field(record, "title", where, required=False)
    metadata = _metadata_field(record, where, lenient=beir)
    if not beir and "sections" in record:
        if "text" in record:
            raise InputError(f"{where}: give 'text' or 'sections', not both")
        text, sections = _sections_field(record["sections"], title, where, limits)
    else:
        text = _string_field(record, "text", where)
        sections = (Section(title, 0, len(text)),)
    return Document(document_id, title, text, sections, metadata, path.name)


def load_jsonl(path: Path, *, limits: Limits = DEFAULT_LIMITS) -> tuple[Document, ...]:
    """Documents from a JSONL file: ``id``, ``title``, ``text`` or ``sections``, ``metadata``.

    No title is invented: a document without one has an empty title."""
    return _load_records(path, False, limits, _Outcome(collect=False))


def load_beir_corpus(path: Path, *, limits: Limits = DEFAULT_LIMITS) -> tuple[Document, ...]:
    """Documents from a BEIR ``corpus.jsonl`` (``_id``, ``title``, ``text``, ``metadata``)."""
    return _load_records(path, True, limits, _Outcome(collect=False))


def _string_field(record: dict, key: str, where: str, required: bool = True, field: str | None = None) -> str:
    value = record.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{where}: field {field or key!r} must be a string")
    _check_field_text(value, field or key, where)
    return value


def _id_field(record: dict, key: str, where: str) -> str:
    value = record.get(key)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: field {key!r} must be a non-empty string")
    problem = id_problem(value)
    if problem is not None:
        raise InputError(f"{where}: field {key!r}: the document id {_shown_id(value, problem)} {problem} ({_ID_RULE})")
    return value


def _metadata_field(record: dict, where: str, lenient: bool = False) -> tuple[tuple[str, str], ...]:
    """Metadata as sorted (key, text) pairs. Strings are kept; finite numbers
    become their ``repr``. A JSONL corpus allows nothing else; a BEIR corpus
    (``lenient``) also keeps lists, objects, booleans and null, as their
    canonical JSON text, since published BEIR sets carry such metadata."""
    metadata = record.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        raise InputError(f"{where}: field 'metadata' must be an object")
    pairs = []
    for key, value in metadata.items():
        _check_field_text(key, "metadata key", where)
        if isinstance(value, str):
            text = value
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                raise InputError(f"{where}: metadata {key!r} must be a finite number")
            text = repr(value)
        elif lenient:
            try:
                text = canonical_json(value)
            except ValueError:
                raise InputError(f"{where}: metadata {key!r} holds a non-finite number") from None
        else:
            raise InputError(f"{where}: metadata {key!r} must be a string or a number")
        _check_field_text(text, f"metadata.{key}", where)
        pairs.append((key, text))
    return tuple(sorted(pairs))


def _sections_field(value: Any, title: str, where: str, limits: Limits) -> tuple[str, tuple[Section, ...]]:
    if not isinstance(value, list) or not value:
        raise InputError(f"{where}: field 'sections' must be a non-empty list")
    if len(value) > limits.sections_per_document:
        raise LimitError(
            f"{where}: {len(value):,} sections; the limit is {limits.sections_per_document:,} "
            "(regrag.limits.Limits.sections_per_document)"
        )
    parts: list[str] = []
    sections: list[Section] = []
    position = 0
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise InputError(f"{where}: sections[{index}] must be an object")
        heading = _string_field(item, "title", where, required=False, field=f"sections[{index}].title")
        body = _string_field(item, "text", where, field=f"sections[{index}].text")
        if parts:
            parts.append("\n\n")
            position += 2
        names = [name for name in (title, heading) if name]
        sections.append(Section(TITLE_SEPARATOR.join(names), position, position + len(body)))
        parts.append(body)
        position += len(body)
    return "".join(parts), tuple(sections)


def _unique_sorted(documents: list[Document], path: Path | None = None) -> tuple[Document, ...]:
    seen: dict[str, Document] = {}
    for document in documents:
        if document.id in seen:
            where = f"{printable(str(path))}: " if path else ""
            raise InputError(f"{where}duplicate document id {document.id!r}")
        seen[document.id] = document
    return tuple(sorted(documents, key=lambda d: d.id))
