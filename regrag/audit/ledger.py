"""The query ledger: an append-only, tamper-evident JSON Lines log.

Each call of ``ask``/``search --ledger FILE`` appends one entry: a line of
canonical JSON holding a 1-based ``sequence``, a UTC ``timestamp``, the caller's
``record``, the ``previous`` entry's hash and this entry's own ``hash``
(SHA-256 of the canonical JSON of the other four fields). Because each entry
names the hash of the one before it, editing, deleting or reordering an entry
breaks the chain at that entry, which ``verify_ledger`` reports.

Appends from several processes are serialised by an exclusive ``flock`` held
while the last entry is read and the new line written (one ``os.write``) and
``fsync``-ed. A damaged tail (a line cut short by a crash, or a last entry that
does not check) is never extended: ``append_record`` refuses and points at
``regrag ledger verify``; ``discard_incomplete_tail`` removes an unfinished
last line. A write that fails (a full disk) is undone, so the file is left as
it was. See ``docs/ledger.md``.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from regrag import atomic
from regrag.audit.canonical import canonical_json
from regrag.errors import InputError

#: ``previous`` of the first entry: there is no entry before it.
GENESIS_PREVIOUS = "0" * 64

#: The fields of an entry, in the (sorted) order they appear on the line.
ENTRY_FIELDS = ("hash", "previous", "record", "sequence", "timestamp")

TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"

_TIMESTAMP_SHAPE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")
_HEX_DIGEST_SHAPE = re.compile(r"[0-9a-f]{64}")
_TAIL_BLOCK_BYTES = 64 * 1024
_COUNT_BLOCK_BYTES = 1024 * 1024


def _verify_hint(where: str) -> str:
    return f"run `python -m regrag ledger verify {where}` to find the damage"


@dataclass(frozen=True)
class LedgerEntry:
    """One ledger line. ``record`` is plain JSON data (dicts, lists, str, int, float, bool, None); do not mutate it."""

    sequence: int
    timestamp: str
    previous: str
    record: dict[str, Any]
    hash: str

    def to_dict(self) -> dict[str, Any]:
        """All five fields, as written on the line."""
        return {
            "hash": self.hash,
            "previous": self.previous,
            "record": self.record,
            "sequence": self.sequence,
            "timestamp": self.timestamp,
        }

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


def format_timestamp(moment: datetime) -> str:
    """``moment`` in UTC as ``YYYY-MM-DDTHH:MM:SS.ffffffZ``; ``InputError`` for a naive datetime."""
    if not isinstance(moment, datetime):
        raise InputError(f"ledger timestamp must be a datetime, got {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InputError("ledger timestamp must be timezone-aware (a naive datetime has no defined UTC time)")
    utc = moment.astimezone(timezone.utc)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T"
        f"{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}.{utc.microsecond:06d}Z"
    )


def append_record(path: str | Path, record: Mapping[str, Any], now: datetime | None = None) -> LedgerEntry:
    """Append ``record`` to the ledger at ``path`` (created if missing) and return the new entry.

    Holds an exclusive ``flock`` while it reads the last entry, writes the new
    line with a single ``os.write`` and ``fsync``s, so concurrent appenders get
    contiguous sequence numbers and an unbroken chain. ``InputError`` if the
    record is not plain JSON data, ``now`` is naive, the file cannot be opened,
    the ledger's last line is incomplete or not a valid entry, or the line
    cannot be written and synced (a full disk): the file is then left as it was.
    """
    where = os.fspath(path)
    plain_record = _plain_record(record)
    timestamp = format_timestamp(now if now is not None else datetime.now(timezone.utc))
    descriptor = _open_for_append(where)
    try:
        _lock(descriptor, fcntl.LOCK_EX, where)
        try:
            size = os.fstat(descriptor).st_size
            last = _last_entry(descriptor, size, where)
        except OSError as error:
            raise InputError(f"{where}: cannot read the ledger ({error.strerror or error}); nothing was appended") from None
        sequence = 1 if last is None else last.sequence + 1
        previous = GENESIS_PREVIOUS if last is None else last.hash
        entry = LedgerEntry(sequence, timestamp, previous, plain_record, entry_hash(sequence, timestamp, previous, plain_record))
        _write_line(descriptor, entry.line() + b"\n", size, where)
        return entry
    finally:
        _close_quietly(descriptor)  # also releases the lock


def discard_incomplete_tail(path: str | Path) -> bytes:
    """Recover from an append cut short (a crash, a full disk): remove the
    ledger's last line if it has no trailing newline, and return the bytes
    removed (``b""`` when the ledger ends with a complete line and nothing is
    changed). Such a line was never acknowledged: the append that wrote it
    failed or its process died. Complete lines are never touched, so damage
    anywhere else still shows in ``verify_ledger``. Holds the exclusive lock.
    ``InputError`` naming the file if it cannot be opened or truncated."""
    where = os.fspath(path)
    try:
        descriptor = os.open(where, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(f"{where}: file not found") from None
    except IsADirectoryError:
        raise InputError(f"{where}: is a directory, not a ledger file") from None
    except OSError as error:
        raise InputError(f"{where}: cannot open the ledger ({atomic.describe(error)})") from None
    try:
        _check_regular(descriptor, where)
        _lock(descriptor, fcntl.LOCK_EX, where)
        try:
            size = os.fstat(descriptor).st_size
            if size == 0:
                return b""
            raw, complete = _last_line(descriptor, size)
            if complete:
                return b""
            os.ftruncate(descriptor, size - len(raw))
            os.fsync(descriptor)
        except OSError as error:
            raise InputError(f"{where}: cannot truncate the incomplete last line ({atomic.describe(error)})") from None
        return raw
    finally:
        _close_quietly(descriptor)


def read_ledger(path: str | Path) -> list[LedgerEntry]:
    """Every entry of the ledger, in file order.

    ``InputError`` naming file and line for invalid UTF-8, malformed JSON, a
    line that is not an entry, or an incomplete last line. Hashes and the chain
    are not checked: that is ``verify_ledger``'s job.
    """
    where = os.fspath(path)
    entries: list[LedgerEntry] = []
    with _locked_for_reading(where) as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                raise InputError(f"{where}:{number}: incomplete last line (no trailing newline); {_verify_hint(where)}")
            try:
                entries.append(_parse_line(raw[:-1], check_integrity=False))
            except _LineProblem as problem:
                raise InputError(f"{where}:{number}: {problem}") from None
    return entries


def verify_ledger(path: str | Path) -> LedgerReport:
    """Check every line and the chain; report the first broken entry.

    Detected: an incomplete last line, invalid UTF-8, malformed JSON, a line
    that is not an entry, non-canonical bytes, a hash that does not match the
    entry (an edited entry), and a ``previous`` or ``sequence`` that does not
    follow from the line before (a deleted, inserted or reordered entry).
    Timestamps are not checked (clocks may go backwards). ``InputError`` if
    the file does not exist or cannot be read.
    """
    where = os.fspath(path)
    expected_previous = GENESIS_PREVIOUS
    verified = 0
    with _locked_for_reading(where) as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                return _broken(verified, number, "incomplete last line (no trailing newline): a write was cut short")
            try:
                entry = _parse_line(raw[:-1], check_integrity=True)
            except _LineProblem as problem:
                return _broken(verified, number, str(problem))
            chain_problems = []
            if entry.previous != expected_previous:
                before = "64 zeros (first entry)" if number == 1 else f"the hash of line {number - 1}"
                chain_problems.append(f"previous is not {before}")
            if entry.sequence != number:
                chain_problems.append(f"sequence {entry.sequence} where {number} was expected")
            if chain_problems:
                return _broken(verified, number, "; ".join(chain_problems) + ": an entry was deleted, inserted or reordered")
            expected_previous = entry.hash
            verified += 1
    return LedgerReport(True, verified, None, "")


def format_report(report: LedgerReport) -> str:
    """One line of human text for a ``LedgerReport``."""
    noun = "entry" if report.entries == 1 else "entries"
    if report.ok:
        return f"ok: {report.entries} {noun}, chain intact"
    return f"broken at line {report.first_broken_line}: {report.reason} ({report.entries} {noun} verified before it)"


# -- records ------------------------------------------------------------------


def _plain_record(record: Mapping[str, Any]) -> dict[str, Any]:
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


class _LineProblem(Exception):
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
        if not isinstance(digest, str) or not _HEX_DIGEST_SHAPE.fullmatch(digest):
            return f"{field} must be 64 lowercase hex digits, got {digest!r}"
    if not isinstance(value["record"], dict):
        return f"record must be a JSON object, got {type(value['record']).__name__}"
    try:  # Python's json reads NaN and Infinity, which have no canonical JSON form
        _check_json_value(value["record"], "record")
    except InputError as error:
        return str(error).removeprefix("ledger ")
    return None


def _parse_line(raw: bytes, check_integrity: bool) -> LedgerEntry:
    """The entry on one line (without its newline); ``_LineProblem`` if it is not one.

    With ``check_integrity``, the line must also be canonical and its hash must
    match its content.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _LineProblem(f"invalid UTF-8 ({error.reason} at byte {error.start} of the line)") from None
    if not text.strip():
        raise _LineProblem("empty line")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise _LineProblem(f"malformed JSON ({error.msg} at column {error.colno})") from None
    except (ValueError, RecursionError) as error:  # an integer too long, nesting too deep
        raise _LineProblem(f"malformed JSON ({type(error).__name__}: {str(error)[:80]})") from None
    problem = _shape_problem(value)
    if problem is not None:
        raise _LineProblem(f"not a ledger entry: {problem}")
    entry = LedgerEntry(value["sequence"], value["timestamp"], value["previous"], value["record"], value["hash"])
    if check_integrity:
        try:
            canonical = entry.line()
        except (ValueError, RecursionError) as error:  # NaN/Infinity literals parse but have no canonical form
            raise _LineProblem(f"not canonical JSON ({type(error).__name__}: {str(error)[:80]})") from None
        if canonical != raw:
            raise _LineProblem("line is not in canonical form (re-serialising the entry gives different bytes)")
        if entry.computed_hash() != entry.hash:
            raise _LineProblem("hash does not match the entry's content: the entry was edited")
    return entry


# -- file access ----------------------------------------------------------------


def _open_for_append(where: str) -> int:
    """A descriptor open for reading and appending, creating the file if it
    does not exist (but not through a symbolic link to a missing file: a
    planted link must not make regrag create a file elsewhere). Opened
    without blocking, so a FIFO is refused rather than waited on.
    ``InputError`` if that is impossible."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        try:
            descriptor = os.open(where, flags)
        except FileNotFoundError:
            try:
                descriptor = os.open(where, flags | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:  # created meanwhile by another appender, or a dangling link
                descriptor = os.open(where, flags)
    except FileNotFoundError:
        if os.path.islink(where):
            raise InputError(f"{where}: a symbolic link to a missing file; not creating a ledger through it") from None
        raise InputError(f"{where}: cannot create the ledger (its directory does not exist)") from None
    except IsADirectoryError:
        raise InputError(f"{where}: is a directory, not a ledger file") from None
    except OSError as error:
        raise InputError(f"{where}: cannot open the ledger ({atomic.describe(error)})") from None
    try:
        _check_regular(descriptor, where)
    except BaseException:
        _close_quietly(descriptor)
        raise
    return descriptor


def _check_regular(descriptor: int, where: str) -> None:
    """``InputError`` unless ``descriptor`` is a regular file."""
    mode = os.fstat(descriptor).st_mode
    if stat.S_ISDIR(mode):
        raise InputError(f"{where}: is a directory, not a ledger file")
    if not stat.S_ISREG(mode):
        raise InputError(f"{where}: not a regular file (a FIFO, device or socket)")


def _lock(descriptor: int, operation: int, where: str) -> None:
    """``flock``; ``InputError`` where the file system refuses locks."""
    try:
        fcntl.flock(descriptor, operation)
    except OSError as error:
        raise InputError(f"{where}: cannot lock the ledger ({error.strerror or error})") from None


def _close_quietly(descriptor: int) -> None:
    """Close; an error here comes after the data were synced (or after the real error)."""
    try:
        os.close(descriptor)
    except OSError:
        pass


@contextmanager
def _locked_for_reading(where: str) -> Iterator[IO[bytes]]:
    """The file open for binary reading under a shared ``flock`` (no append
    is half seen); a read error while the caller reads is an ``InputError``."""
    try:
        descriptor = os.open(where, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError(f"{where}: file not found") from None
    except OSError as error:
        raise InputError(f"{where}: cannot read ({error.strerror or error})") from None
    try:
        _check_regular(descriptor, where)
        _lock(descriptor, fcntl.LOCK_SH, where)
    except BaseException:
        _close_quietly(descriptor)
        raise
    with os.fdopen(descriptor, "rb") as handle:
        try:
            yield handle
        except OSError as error:
            raise InputError(f"{where}: cannot read ({error.strerror or error})") from None


def _read_exactly(descriptor: int, length: int, offset: int) -> bytes:
    """``length`` bytes at ``offset`` (``os.pread`` may return fewer at once)."""
    parts = []
    while length > 0:
        part = os.pread(descriptor, length, offset)
        if not part:
            raise OSError(f"unexpected end of file at byte {offset}")
        parts.append(part)
        length -= len(part)
        offset += len(part)
    return b"".join(parts)


def _last_line(descriptor: int, size: int) -> tuple[bytes, bool]:
    """The file's last line (without newline) and whether it ends in one, reading back from the end block by block."""
    complete = _read_exactly(descriptor, 1, size - 1) == b"\n"
    position = size - 1 if complete else size
    blocks: list[bytes] = []
    while position > 0:
        start = max(0, position - _TAIL_BLOCK_BYTES)
        block = _read_exactly(descriptor, position - start, start)
        newline = block.rfind(b"\n")
        if newline >= 0:
            blocks.append(block[newline + 1 :])
            break
        blocks.append(block)
        position = start
    return b"".join(reversed(blocks)), complete


def _count_newlines(descriptor: int, size: int) -> int:
    """How many newlines the file holds (read in blocks; only to name a line in an error)."""
    count = 0
    for offset in range(0, size, _COUNT_BLOCK_BYTES):
        count += _read_exactly(descriptor, min(_COUNT_BLOCK_BYTES, size - offset), offset).count(b"\n")
    return count


def _last_entry(descriptor: int, size: int, where: str) -> LedgerEntry | None:
    """The last entry (None for an empty file); ``InputError`` if the tail is damaged."""
    if size == 0:
        return None
    raw, complete = _last_line(descriptor, size)
    if not complete:
        number = _count_newlines(descriptor, size) + 1
        raise InputError(
            f"{where}:{number}: the last line is incomplete (no trailing newline; a write was cut short); "
            f"not appending to a damaged ledger: {_verify_hint(where)}, and see docs/ledger.md "
            "(discard_incomplete_tail) to drop the unfinished line"
        )
    try:
        return _parse_line(raw, check_integrity=True)
    except _LineProblem as problem:
        number = _count_newlines(descriptor, size)
        raise InputError(
            f"{where}:{number}: the last entry is damaged ({problem}); "
            f"not appending to a damaged ledger: {_verify_hint(where)}"
        ) from None


def _write_line(descriptor: int, data: bytes, size_before: int, where: str) -> None:
    """Write ``data`` with one ``os.write``, ``fsync`` it and, for a new file,
    its directory. If any of that fails (a full disk, a short write, an I/O
    error), truncate the file back to ``size_before`` so that no partial or
    unsynced line is left, and raise ``InputError`` naming the file."""
    try:
        written = os.write(descriptor, data)
        if written != len(data):
            raise OSError(errno.ENOSPC, f"only {written} of {len(data)} bytes written")
        os.fsync(descriptor)
        if size_before == 0:  # a new file: make its directory entry durable too
            atomic.fsync_directory(os.path.dirname(os.path.abspath(where)))
    except OSError as error:
        reason = atomic.describe(error)
        if error.errno == errno.ENOSPC and error.strerror and error.strerror.startswith("only "):
            reason = f"{error.strerror}: the disk is probably full"
        try:
            os.ftruncate(descriptor, size_before)
        except OSError as undo:
            raise InputError(
                f"{where}: cannot write: {reason}; the entry was not appended, and the partial line could not be "
                f"removed ({undo.strerror or undo}): {_verify_hint(where)}"
            ) from None
        raise InputError(f"{where}: cannot write: {reason}; the entry was not appended (the ledger is unchanged)") from None


def _broken(verified: int, line: int, reason: str) -> LedgerReport:
    return LedgerReport(False, verified, line, reason)
