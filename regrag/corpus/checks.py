"""Checks every corpus loader shares: ids, text, sizes, UTF-8, and where a bad input goes.

Each check raises ``InputError`` (``LimitError`` for a resource limit)
naming the file and 1-based line, or the field, so every loader reports the
same problem in the same words (docs/corpus.md, "Hostile input and limits").
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from regrag.corpus.model import Document
from regrag.errors import InputError
from regrag.jsonl import UNSAFE_CHARACTERS, printable, wide_encoding, wide_encoding_error
from regrag.limits import LimitError, Limits
from regrag.io.identity import SourceChangedError

# Text (bodies, titles, metadata) may hold the whitespace controls TAB, LF,
# VT, FF and CR; every other C0 control and DEL is refused.
_FORBIDDEN_IN_TEXT = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
_TEXT_RULE = "text may contain no control character except tab, line feed, vertical tab, form feed and carriage return"
_ID_RULE = "ids must be NFC, without control or invisible characters and without leading or trailing whitespace"


class _Outcome:
    """Where a bad input goes: raised at once, or recorded and passed over.
    A source that changed while it was read is always raised: what was read
    of it may be a truncated or mixed version, so there is no "rest" to keep."""

    def __init__(self, collect: bool) -> None:
        self.collect = collect
        self.rejected: list[tuple[str, str]] = []
        self.whole: str | None = None  # the ``where`` of the whole input (set by the loader that reads it)
        self.last_where: str | None = None  # where the last rejected input was
        self._raised: InputError | None = None

    def reject(self, error: InputError, where: str) -> None:
        if error is self._raised:  # passing through an outer handler: the first ``where`` is the one
            raise error
        self.last_where = where
        if not self.collect or isinstance(error, SourceChangedError):
            self._raised = error
            raise error
        self.rejected.append((where, str(error)))

    def part_failed(self) -> bool:
        """Whether the last rejection was one part of the input (a file of a
        folder, a line of a file), so that collecting would load the rest."""
        return self.last_where is not None and self.last_where != self.whole


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



def id_length_error(document_id: str, where: str, limits: Limits) -> LimitError | None:
    """``LimitError`` when an id has more UTF-8 bytes than ``limits.document_id_bytes``:
    an id is repeated in every hit, passage id, golden line and ledger record."""
    size = len(document_id.encode("utf-8", "surrogatepass"))
    if size <= limits.document_id_bytes:
        return None
    return LimitError(
        f"{where}: the document id has {size:,} bytes; the limit is {limits.document_id_bytes:,} "
        "(regrag.limits.Limits.document_id_bytes)"
    )


def _unique_sorted(documents: list[Document], path: Path | None = None) -> tuple[Document, ...]:
    seen: dict[str, Document] = {}
    for document in documents:
        if document.id in seen:
            where = f"{printable(str(path))}: " if path else ""
            raise InputError(f"{where}duplicate document id {document.id!r}")
        seen[document.id] = document
    return tuple(sorted(documents, key=lambda d: d.id))
