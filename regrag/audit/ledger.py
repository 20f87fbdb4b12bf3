"""The query ledger: an append-only, tamper-evident JSON Lines log.

Each call of ``ask``/``search --ledger FILE`` appends one entry: a line of
canonical JSON holding a 1-based ``sequence``, a UTC ``timestamp``, the caller's
``record``, the ``previous`` entry's hash and this entry's own ``hash``
(SHA-256 of the canonical JSON of the other four fields). Because each entry
names the hash of the one before it, editing, deleting or reordering an entry
breaks the chain at that entry, which ``verify_ledger`` reports.

Appends from several processes are serialised by an exclusive ``flock`` held
while the clock is read, the last entry is read and the new line written (one
``write``) and ``fsync``-ed, so timestamps follow file order (as far as
the clock does). Nobody waits for the lock forever: after ``lock_wait``
seconds (``DEFAULT_LOCK_WAIT_SECONDS``) a call gives up with
``LedgerLockTimeout``. Readers hold a shared lock only to note the file's
size, then read that prefix without it, so a long ``verify`` does not hold up
appends. A damaged tail (a line cut short by a crash, or a last entry that
does not check) is never extended: ``append_record`` refuses and points at
``regrag ledger verify``; ``discard_incomplete_tail`` removes an unfinished
last line. A write that fails (a full disk) is undone, so the file is left as
it was. See ``docs/ledger.md``.

The code is split into ``ledger_entry`` (one line), ``ledger_lock`` (opening
and locking) and ``ledger_read`` (reading and verifying); every public name is
importable from here.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from regrag.audit.ledger_entry import (
    ENTRY_FIELDS,
    GENESIS_PREVIOUS,
    LEDGER_TIMESTAMP,
    TIMESTAMP_FORMAT,
    LedgerEntry,
    LedgerReport,
    entry_hash,
    format_timestamp,
    plain_record,
    verify_hint,
)
from regrag.audit.ledger_lock import (
    DEFAULT_LOCK_WAIT_SECONDS,
    LedgerLockTimeout,
    checked_wait,
    close_quietly,
    lock,
    open_for_append,
    open_for_update,
)
from regrag.audit.ledger_read import format_report, last_entry, last_line, read_ledger, verify_ledger
from regrag.errors import InputError
from regrag.io import clock, files, writes

__all__ = [
    "DEFAULT_LOCK_WAIT_SECONDS",
    "ENTRY_FIELDS",
    "GENESIS_PREVIOUS",
    "TIMESTAMP_FORMAT",
    "LedgerEntry",
    "LedgerLockTimeout",
    "LedgerReport",
    "append_record",
    "discard_incomplete_tail",
    "entry_hash",
    "format_report",
    "format_timestamp",
    "read_ledger",
    "verify_ledger",
]


def append_record(
    path: str | Path, record: Mapping[str, Any], now: datetime | None = None, lock_wait: float | None = None
) -> LedgerEntry:
    """Append ``record`` to the ledger at ``path`` (created if missing) and return the new entry.

    Holds an exclusive ``flock`` while it reads the clock and the last entry,
    writes the new line with a single ``write`` and ``fsync``s, so
    concurrent appenders get contiguous sequence numbers, an unbroken chain
    and timestamps in file order. ``now`` (timezone-aware) replaces the clock.
    ``lock_wait`` bounds the wait for the lock in seconds (default
    ``DEFAULT_LOCK_WAIT_SECONDS``; 0 tries once): ``LedgerLockTimeout`` after
    it, nothing appended. ``InputError`` if the record is not plain JSON
    data, ``now`` is naive, the file cannot be opened, the ledger's last line
    is incomplete or not a valid entry, or the line cannot be written and
    synced (a full disk): the file is then left as it was.
    """
    where = os.fspath(path)
    plain = plain_record(record)
    wait = checked_wait(lock_wait)
    if now is not None:
        format_timestamp(now, LEDGER_TIMESTAMP)  # a naive datetime is refused before the file is touched
    descriptor = open_for_append(where)
    try:
        lock(descriptor, fcntl.LOCK_EX, where, wait, "nothing was appended")
        # The clock is read under the lock: the next appender cannot take the
        # lock before this entry is written, so its time is not earlier.
        timestamp = format_timestamp(now if now is not None else clock.now(), LEDGER_TIMESTAMP)
        try:
            size = files.status(descriptor).st_size
            last = last_entry(descriptor, size, where)
        except OSError as error:
            raise InputError(f"{where}: cannot read the ledger ({error.strerror or error}); nothing was appended") from None
        sequence = 1 if last is None else last.sequence + 1
        previous = GENESIS_PREVIOUS if last is None else last.hash
        entry = LedgerEntry(sequence, timestamp, previous, plain, entry_hash(sequence, timestamp, previous, plain))
        _write_line(descriptor, entry.line() + b"\n", size, where)
        return entry
    finally:
        close_quietly(descriptor)  # also releases the lock


def discard_incomplete_tail(path: str | Path, lock_wait: float | None = None) -> bytes:
    """Recover from an append cut short (a crash, a full disk): remove the
    ledger's last line if it has no trailing newline, and return the bytes
    removed (``b""`` when the ledger ends with a complete line and nothing is
    changed). Such a line was never acknowledged: the append that wrote it
    failed or its process died. Complete lines are never touched, so damage
    anywhere else still shows in ``verify_ledger``. Holds the exclusive lock
    (waiting at most ``lock_wait`` seconds for it). ``InputError`` naming the
    file if it cannot be opened or truncated."""
    where = os.fspath(path)
    wait = checked_wait(lock_wait)
    descriptor = open_for_update(where)
    try:
        lock(descriptor, fcntl.LOCK_EX, where, wait, "nothing was removed")
        try:
            size = files.status(descriptor).st_size
            if size == 0:
                return b""
            raw, complete = last_line(descriptor, size)
            if complete:
                return b""
            writes.truncate(descriptor, size - len(raw))
        except OSError as error:
            raise InputError(f"{where}: cannot truncate the incomplete last line ({writes.describe(error)})") from None
        return raw
    finally:
        close_quietly(descriptor)


def _write_line(descriptor: int, data: bytes, size_before: int, where: str) -> None:
    """Write ``data`` with one ``write``, ``fsync`` it and, for a new file,
    its directory. If any of that fails (a full disk, a short write, an I/O
    error), truncate the file back to ``size_before`` so that no partial or
    unsynced line is left, and raise ``InputError`` naming the file."""
    try:
        writes.write_once(descriptor, data)
        if size_before == 0:  # a new file: make its directory entry durable too
            writes.fsync_directory(os.path.dirname(os.path.abspath(where)))
    except OSError as error:
        reason = writes.describe(error)
        if error.errno == errno.ENOSPC and error.strerror and error.strerror.startswith("only "):
            reason = f"{error.strerror}: the disk is probably full"
        try:
            writes.truncate(descriptor, size_before, sync=False)
        except OSError as undo:
            raise InputError(
                f"{where}: cannot write: {reason}; the entry was not appended, and the partial line could not be "
                f"removed ({undo.strerror or undo}): {verify_hint(where)}"
            ) from None
        raise InputError(f"{where}: cannot write: {reason}; the entry was not appended (the ledger is unchanged)") from None
