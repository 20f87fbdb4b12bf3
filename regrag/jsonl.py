"""Read JSON Lines files: one JSON object per line, errors naming file and line.

Shared by the corpus loaders and the evaluation readers. Accepts LF and CRLF
line ends and a leading UTF-8 byte-order mark; skips blank lines; raises
``InputError`` for an unreadable file, invalid UTF-8 (with the line of the
first bad byte), malformed JSON, or a line that is not a JSON object.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Iterator

from regrag.errors import InputError


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise InputError(f"{os.fspath(path)}: file not found") from None
    except IsADirectoryError:
        raise InputError(f"{os.fspath(path)}: is a directory, not a file") from None
    except OSError as error:
        raise InputError(f"{os.fspath(path)}: cannot read ({error.strerror or error})") from None


def json_objects(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(1-based line number, object)`` for each non-blank line of ``path``."""
    where = os.fspath(path)
    data = read_bytes(path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(f"{where}:{number}: invalid UTF-8 ({error.reason} at byte {error.start} of the line)") from None
        if not line.strip():
            continue
        yield number, parse_json_object(line, f"{where}:{number}")


def parse_json_object(text: str, where: str, parse_constant: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """``text`` as a JSON object; ``InputError`` prefixed with ``where`` (a
    file, or file:line) for malformed JSON or another JSON type. Shared by
    every reader of JSON in regrag, so the messages read the same."""
    try:
        value = json.loads(text, parse_constant=parse_constant)
    except json.JSONDecodeError as error:
        at = f"line {error.lineno} column {error.colno}" if "\n" in text.rstrip("\n") else f"column {error.colno}"
        raise InputError(f"{where}: malformed JSON ({error.msg} at {at})") from None
    except (ValueError, RecursionError) as error:  # an integer too long, nesting too deep, a rejected constant
        raise InputError(f"{where}: malformed JSON ({type(error).__name__}: {str(error)[:80]})") from None
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(value).__name__}")
    return value
