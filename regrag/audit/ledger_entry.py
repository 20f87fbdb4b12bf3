"""Ledger entries: the record of one line, its hash, and checking one line.

Split out of ``regrag.audit.ledger`` (which re-exports the public names):
what an entry is and how one line is parsed and checked, independent of how
the file is locked and read. See ``docs/ledger.md`` ("Line format").
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from regrag.audit.canonical import JsonRecord, canonical_json
from regrag.errors import InputError
from regrag.io.clock import format_timestamp  # noqa: F401 (the one timestamp format; public here too)
from regrag.io.digests import is_sha256_hex

#: ``previous`` of the first entry: there is no entry before it.
GENESIS_PREVIOUS = "0" * 64

#: The fields of an entry, in the (sorted) order they appear on the line.
ENTRY_FIELDS = ("hash", "previous", "record", "sequence", "timestamp")

TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"

_TIMESTAMP_SHAPE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")


def verify_hint(where: str) -> str:
    """What an error about a damaged ledger tells the user to run."""
    return f"run `python -m regrag ledger verify {where}` to find the damage"


@dataclass(frozen=True)
class LedgerEntry(JsonRecord):
    """One ledger line. ``record`` is plain JSON data (dicts, lists, str, int, float, bool, None); do not mutate it."""

    sequence: int
    timestamp: str
    previous: str
    record: dict[str, Any]
    hash: str

    @classmethod
    def from_dict(cls, value: Mapping[str, Any]) -> LedgerEntry:
        """An entry from a parsed line; ``InputError`` if the shape is wrong (the hash is not checked here)."""
        problem = _shape_problem(value)
        if problem is not None:
            raise InputError(f"not a ledger entry: {problem}")
        return cls(value["sequence"], value["timestamp"], value["previous"], value["record"], value["hash"])

    def line(self) -> bytes:
        """The entry's line: canonical JSON, UTF-8, without the newline."""
        return canonical_json(self.to_dict()).encode("utf-8")

    def computed_hash(self) -> str:
        """The hash this entry's content should carry (what ``hash`` is checked against)."""
        return entry_hash(self.sequence, self.timestamp, self.previous, self.record)


@dataclass(frozen=True)
class LedgerReport:
    """The outcome of ``verify_ledger``.

    ``entries`` counts the entries verified good before the first problem (all
    of them when ``ok``); ``first_broken_line`` is the 1-based line of the first
    problem, ``reason`` says what it is ("" when ``ok``).
    """

    ok: bool
    entries: int
    first_broken_line: int | None
    reason: str


def entry_hash(sequence: int, timestamp: str, previous: str, record: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of an entry without its ``hash`` field."""
    content = {"previous": previous, "record": record, "sequence": sequence, "timestamp": timestamp}
    return hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()


#: What a ledger's timestamps are called in errors (``format_timestamp(moment, LEDGER_TIMESTAMP)``).
LEDGER_TIMESTAMP = "ledger timestamp"


# -- records ------------------------------------------------------------------


def plain_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record as plain JSON data (what reading the line back gives); ``InputError`` if it is not JSON-serialisable canonically."""
    if not isinstance(record, Mapping):
        raise InputError(f"ledger record must be a mapping, got {type(record).__name__}")
    try:
        _check_json_value(record, "record")
        text = canonical_json(_as_json_tree(record))
        text.encode("utf-8")
    except RecursionError:
        raise InputError("ledger record is nested too deeply to serialise") from None
    except UnicodeEncodeError as error:
        raise InputError(f"ledger record contains a string that is not valid Unicode ({error.reason})") from None
    except ValueError as error:  # an integer with more digits than int->str conversion allows
        raise InputError(f"ledger record cannot be serialised as JSON ({error})") from None
    plain: dict[str, Any] = json.loads(text)
    return plain


def _check_json_value(value: Any, where: str) -> None:
    """``InputError`` naming the first part of ``value`` that JSON cannot represent exactly."""
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"ledger {where} is {value!r}: NaN and infinities have no JSON form")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(f"ledger {where} has a key {key!r} of type {type(key).__name__}: keys must be strings")
            _check_json_value(item, f"{where}[{key!r}]")
        return
    if isinstance(value, (list, tuple)):
        for position, item in enumerate(value):
            _check_json_value(item, f"{where}[{position}]")
        return
    raise InputError(f"ledger {where} is a {type(value).__name__}, which has no JSON form")


def _as_json_tree(value: Any) -> Any:
    """``value`` with every mapping turned into a dict (``json`` serialises only dicts)."""
    if isinstance(value, Mapping):
        return {key: _as_json_tree(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_json_tree(item) for item in value]
    return value


# -- parsing and checking one line ----------------------------------------------


class LineProblem(Exception):
    """Why one line is not a good entry (the caller adds file and line)."""


def _shape_problem(value: Any) -> str | None:
    """What is wrong with the shape of a parsed entry, or None."""
    if not isinstance(value, Mapping):
        return f"expected a JSON object, got {type(value).__name__}"
    keys = sorted(value)
    if keys != list(ENTRY_FIELDS):
        missing = [field for field in ENTRY_FIELDS if field not in value]
        extra = [key for key in keys if key not in ENTRY_FIELDS]
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unexpected {', '.join(extra)}"] if extra else [])
        return "; ".join(parts)
    sequence = value["sequence"]
    if not isinstance(sequence, int) or isinstance(sequence, bool) or sequence < 1:
        return f"sequence must be a positive integer, got {sequence!r}"
    timestamp = value["timestamp"]
    if not isinstance(timestamp, str) or not _TIMESTAMP_SHAPE.fullmatch(timestamp):
        return f"timestamp must look like 2025-01-31T12:00:00.000000Z, got {timestamp!r}"
    try:
        datetime.strptime(timestamp, TIMESTAMP_FORMAT)
    except ValueError:
        return f"timestamp {timestamp!r} is not a valid date and time"
    for field in ("previous", "hash"):
        digest = value[field]
        if not is_sha256_hex(digest):
            return f"{field} must be 64 lowercase hex digits, got {digest!r}"
    if not isinstance(value["record"], dict):
        return f"record must be a JSON object, got {type(value['record']).__name__}"
    try:  # Python's json reads NaN and Infinity, which have no canonical JSON form
        _check_json_value(value["record"], "record")
    except InputError as error:
        return str(error).removeprefix("ledger ")
    return None


def parse_line(raw: bytes, check_integrity: bool) -> LedgerEntry:
    """The entry on one line (without its newline); ``LineProblem`` if it is not one.

    With ``check_integrity``, the line must also be canonical and its hash must
    match its content.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LineProblem(f"invalid UTF-8 ({error.reason} at byte {error.start} of the line)") from None
    if not text.strip():
        raise LineProblem("empty line")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise LineProblem(f"malformed JSON ({error.msg} at column {error.colno})") from None
    except (ValueError, RecursionError) as error:  # an integer too long, nesting too deep
        raise LineProblem(f"malformed JSON ({type(error).__name__}: {str(error)[:80]})") from None
    problem = _shape_problem(value)
    if problem is not None:
        raise LineProblem(f"not a ledger entry: {problem}")
    entry = LedgerEntry(value["sequence"], value["timestamp"], value["previous"], value["record"], value["hash"])
    if check_integrity:
        try:
            canonical = entry.line()
        except (ValueError, RecursionError) as error:  # NaN/Infinity literals parse but have no canonical form
            raise LineProblem(f"not canonical JSON ({type(error).__name__}: {str(error)[:80]})") from None
        if canonical != raw:
            raise LineProblem("line is not in canonical form (re-serialising the entry gives different bytes)")
        if entry.computed_hash() != entry.hash:
            raise LineProblem("hash does not match the entry's content: the entry was edited")
    return entry


def broken(verified: int, line: int, reason: str) -> LedgerReport:
    """The report of a ledger whose line ``line`` is the first bad one."""
    return LedgerReport(False, verified, line, reason)
