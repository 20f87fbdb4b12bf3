"""Read JSON Lines files: one JSON object per line, errors naming file and line.

Shared by the corpus loaders and the evaluation readers. Accepts LF and CRLF
line ends and a leading UTF-8 byte-order mark; skips blank lines; raises
``InputError`` for an unreadable file, a file that looks like UTF-16 or
UTF-32 (it must be converted to UTF-8), invalid UTF-8 (with the line of the
first bad byte), malformed JSON (including nesting deeper than
``JSON_DEPTH_LIMIT`` levels), or a line that is not a JSON object. With a
``Limits``, a file larger than ``Limits.file_bytes`` (from ``stat``, before
reading) and a line longer than ``Limits.document_bytes`` raise
``LimitError``; lines are read one at a time, so memory stays bounded by the
longest line accepted.

Also home to two helpers every reader of text files shares:
``wide_encoding`` (does this start like UTF-16/UTF-32?) and ``printable``
(a name safe to put in a one-line message).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
import re
from io import BufferedReader
from typing import Any, Callable, Iterator

from regrag.errors import InputError
from regrag.limits import LimitError, Limits
from regrag.io import files
from regrag.io.identity import check_unchanged, state_of_descriptor

# Nesting deeper than this is refused. A fixed number makes the outcome the
# same on every run: Python's own limit (RecursionError) depends on how deep
# the caller's stack already is.
JSON_DEPTH_LIMIT = 64

_UTF8_BOM = b"\xef\xbb\xbf"
_BYTE_ORDER_MARKS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (b"\xff\xfe\x00\x00", "UTF-32 (little-endian, with a byte-order mark)", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian, with a byte-order mark)", "UTF-32"),
    (b"\xff\xfe", "UTF-16 (little-endian, with a byte-order mark)", "UTF-16"),
    (b"\xfe\xff", "UTF-16 (big-endian, with a byte-order mark)", "UTF-16"),
)
_SNIFF_BYTES = 4096

# Characters shown escaped in messages and recorded names: C0 and C1 controls,
# DEL, and the invisible format characters that reorder or hide text on a
# terminal (bidirectional controls, zero-width space, line separators, tags).
UNSAFE_CHARACTERS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\ud800-\udfff]"
)


def printable(text: str) -> str:
    """``text`` with every character of ``UNSAFE_CHARACTERS`` written as an
    escape (``\\x1b``, ``\\u202e``), so a hostile file name or id cannot
    break a one-line message or drive a terminal."""
    return UNSAFE_CHARACTERS.sub(lambda match: ascii(match.group())[1:-1], text)


def wide_encoding(head: bytes) -> tuple[str, str] | None:
    """(description, iconv name) of the UTF-16/UTF-32 encoding ``head`` (a
    file's first bytes) appears to be in, or None. A byte-order mark decides; without one,
    UTF-16 is recognised by NUL bytes at every other position (what ASCII
    text looks like in UTF-16): at least 40 % of the odd (or even) positions
    and at most 10 % of the others."""
    for mark, name, iconv_name in _BYTE_ORDER_MARKS:
        if head.startswith(mark):
            return name, iconv_name
    sample = head[: _SNIFF_BYTES - _SNIFF_BYTES % 2]
    units = len(sample) // 2
    if units == 0:
        return None
    even_nuls = sample[0::2].count(0)
    odd_nuls = sample[1::2].count(0)
    if odd_nuls >= max(1, 0.4 * units) and even_nuls <= 0.1 * units:
        return "UTF-16 (little-endian, no byte-order mark: every other byte is NUL)", "UTF-16LE"
    if even_nuls >= max(1, 0.4 * units) and odd_nuls <= 0.1 * units:
        return "UTF-16 (big-endian, no byte-order mark: every other byte is NUL)", "UTF-16BE"
    return None


def wide_encoding_error(where: str, encoding: tuple[str, str]) -> InputError:
    """The error for a file in ``encoding`` (from ``wide_encoding``); ``where`` is ``file:line``."""
    description, iconv_name = encoding
    return InputError(
        f"{where}: the file looks like {description}; regrag reads UTF-8 only: convert it "
        f"(for example: iconv -f {iconv_name} -t UTF-8 FILE > FILE.utf8)"
    )


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The whole file; ``InputError`` naming it when it is missing, a directory or unreadable."""
    where = printable(os.fspath(path))
    with _open(path, where) as handle:
        try:
            return handle.read()
        except OSError as error:
            raise InputError(f"{where}: cannot read ({error.strerror or error})") from None


def json_objects(path: str | os.PathLike[str], limits: Limits | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(1-based line number, object)`` for each non-blank line of ``path``;
    the first problem raises ``InputError``."""
    for number, record in json_records(path, limits):
        if isinstance(record, InputError):
            raise record
        yield number, record


def json_records(
    path: str | os.PathLike[str], limits: Limits | None = None
) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """``(1-based line number, object or the InputError that line raises)``
    for each non-blank line of ``path``, so a caller may set a bad line aside
    and go on. Problems with the whole file (unreadable, too large, UTF-16)
    are raised."""
    where = printable(os.fspath(path))
    raw_handle = _open(path, where)
    with raw_handle:
        before = state_of_descriptor(raw_handle.fileno())
        if limits is not None and before.size > limits.file_bytes:
            raise LimitError(
                f"{where}: the file has {before.size:,} bytes; the limit is {limits.file_bytes:,} "
                "(regrag.limits.Limits.file_bytes)"
            )
        handle: Any = raw_handle
        if os.fspath(path).endswith(".gz"):
            handle = _Decompressed(raw_handle, where, None if limits is None else limits.file_bytes)
        encoding = wide_encoding(handle.peek(_SNIFF_BYTES)[:_SNIFF_BYTES])
        if encoding is not None:
            raise wide_encoding_error(f"{where}:1", encoding)
        line_limit = None if limits is None else limits.document_bytes
        try:
            for number, record in _records(handle, where, line_limit):
                if isinstance(record, InputError):
                    # a line broken by a writer is the writer's doing: say so rather than blame the line
                    check_unchanged(before, raw_handle.fileno(), path, where)
                yield number, record
        except InputError:  # a damaged gzip stream, too much decompressed data: the same question first
            check_unchanged(before, raw_handle.fileno(), path, where)
            raise
        check_unchanged(before, raw_handle.fileno(), path, where)


def _records(handle: Any, where: str, line_limit: int | None) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """The records of ``json_records`` from an open (possibly decompressing) file."""
    for number, raw in _raw_lines(handle, line_limit):
        if isinstance(raw, int):
            assert line_limit is not None
            yield number, LimitError(
                f"{where}:{number}: the line has {raw:,} bytes; the limit for one document is "
                f"{line_limit:,} bytes (regrag.limits.Limits.document_bytes)"
            )
            continue
        if number == 1 and raw.startswith(_UTF8_BOM):
            raw = raw[len(_UTF8_BOM):]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            yield number, InputError(
                f"{where}:{number}: invalid UTF-8 ({error.reason} at byte {error.start} of the line)"
            )
            continue
        if not line.strip():
            continue
        try:
            yield number, parse_json_object(line, f"{where}:{number}", max_depth=JSON_DEPTH_LIMIT)
        except InputError as error:
            yield number, error


class _Decompressed:
    """A gzip file read through its open descriptor, with the decompressed
    bytes counted against ``limit`` (``Limits.file_bytes``: a gzip bomb stops
    with ``LimitError``, it cannot fill memory or the disk) and a damaged
    or truncated stream turned into ``InputError`` naming the line reached."""

    def __init__(self, raw: BufferedReader, where: str, limit: int | None, limit_name: str = "file_bytes") -> None:
        self._file = gzip.GzipFile(fileobj=raw, mode="rb")
        self._where = where
        self._limit = limit
        self._limit_name = limit_name  # the Limits field named in the error
        self._total = 0
        self._lines = 0

    def _guarded(self, read: Callable[[], bytes]) -> bytes:
        try:
            data = read()
        except (OSError, EOFError, zlib.error) as error:
            raise InputError(
                f"{self._where}:{self._lines + 1}: not a readable gzip file ({type(error).__name__}: "
                f"{str(error)[:80] or 'truncated'})"
            ) from None
        return data

    def peek(self, count: int) -> bytes:
        return self._guarded(lambda: self._file.peek(count))

    def readline(self, limit: int = -1) -> bytes:
        data = self._guarded(lambda: self._file.readline(limit))
        self._total += len(data)
        if data.endswith(b"\n"):
            self._lines += 1
        if self._limit is not None and self._total > self._limit:
            raise LimitError(
                f"{self._where}:{self._lines + 1}: more than {self._limit:,} bytes once decompressed; the limit is "
                f"{self._limit:,} (regrag.limits.Limits.{self._limit_name})"
            )
        return data


def _open(path: str | os.PathLike[str], where: str) -> BufferedReader:
    try:
        return files.open_binary(path)  # type: ignore[return-value]
    except OSError as error:
        raise InputError(f"{where}: {files.open_failure(error)}") from None


def _raw_lines(handle: BufferedReader, line_limit: int | None) -> Iterator[tuple[int, bytes | int]]:
    """``(1-based number, line without LF or CRLF)``; a line longer than
    ``line_limit`` bytes is read past, not kept, and given as its length."""
    number = 0
    while True:
        raw = handle.readline() if line_limit is None else handle.readline(line_limit + 2)
        if not raw:
            return
        number += 1
        if line_limit is not None and len(raw) == line_limit + 2 and not raw.endswith(b"\n"):
            length, tail = len(raw), raw[-2:]
            while not tail.endswith(b"\n"):
                more = handle.readline(1 << 20)
                if not more:
                    break
                length += len(more)
                tail = (tail + more)[-2:]
            if tail.endswith(b"\n"):  # the line end is not part of the line
                length -= 2 if tail == b"\r\n" else 1
            yield number, length
            continue
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if line_limit is not None and len(raw) > line_limit:
            yield number, len(raw)
            continue
        yield number, raw


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` levels
    deep (a scalar is 0 levels), walked level by level, without recursion."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for container in level:
            children = container.values() if isinstance(container, dict) else container
            below.extend([child for child in children if type(child) is dict or type(child) is list])
        level = below
    return False


def parse_json_object(
    text: str,
    where: str,
    parse_constant: Callable[[str], Any] | None = None,
    max_depth: int | None = None,
) -> dict[str, Any]:
    """``text`` as a JSON object; ``InputError`` prefixed with ``where`` (a
    file, or file:line) for malformed JSON, nesting deeper than ``max_depth``
    (when given) or another JSON type. Shared by every reader of JSON in
    regrag, so the messages read the same."""
    too_deep = f"{where}: malformed JSON (nested " + (f"more than {max_depth} levels deep)" if max_depth else "too deeply)")
    try:
        value = json.loads(text, parse_constant=parse_constant)
    except json.JSONDecodeError as error:
        at = f"line {error.lineno} column {error.colno}" if "\n" in text.rstrip("\n") else f"column {error.colno}"
        raise InputError(f"{where}: malformed JSON ({error.msg} at {at})") from None
    except RecursionError:
        raise InputError(too_deep) from None
    except ValueError as error:  # an integer too long, a rejected constant
        raise InputError(f"{where}: malformed JSON ({type(error).__name__}: {str(error)[:80]})") from None
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(value).__name__}")
    if max_depth is not None and text.count("[") + text.count("{") > max_depth and nested_deeper_than(value, max_depth):
        raise InputError(too_deep)  # (the count of brackets bounds the depth: most lines need no walk)
    return value
