"""Opening and locking a ledger file, with a bounded wait for the lock.

Split out of ``regrag.audit.ledger``. Appenders take an exclusive ``flock``
for the few milliseconds of one append; readers (``verify``, ``read``,
``replay``) take a shared one only long enough to note the file's size (see
``ledger_read``). Nobody waits for a lock forever: a lock still held by
someone else after ``lock_wait`` seconds (``DEFAULT_LOCK_WAIT_SECONDS`` unless
the caller passes another) is a ``LedgerLockTimeout`` naming the file and the
wait, so a stuck or hostile holder (``flock -s ledger.jsonl sleep 3600``)
cannot hang regrag. See ``docs/ledger.md`` ("Locking and waiting").
"""

from __future__ import annotations

import fcntl
import math
import os
from contextlib import contextmanager
from collections.abc import Callable, Iterator
from typing import IO

from regrag.io import files, locks, writes
from regrag.errors import InputError, LockedError

#: How long an append, read, verify or discard waits for the ledger's lock
#: before giving up with ``LedgerLockTimeout``, in seconds. Every append holds
#: the lock for one write and one ``fsync`` (milliseconds), and readers for one
#: ``fstat``, so only a holder that is stuck, or not regrag, takes this long.
#: Pass ``lock_wait=`` to a call to choose another bound (0: try once).
DEFAULT_LOCK_WAIT_SECONDS = 10.0


class LedgerLockTimeout(LockedError):
    """The ledger's lock stayed held by someone else for the whole wait."""


def checked_wait(lock_wait: float | None) -> float:
    """``lock_wait`` as seconds (the default for None); ``InputError`` if it is not a finite number >= 0."""
    if lock_wait is None:
        return DEFAULT_LOCK_WAIT_SECONDS
    if isinstance(lock_wait, bool) or not isinstance(lock_wait, (int, float)) or not math.isfinite(lock_wait) or lock_wait < 0:
        raise InputError(f"lock_wait must be a finite number of seconds >= 0, got {lock_wait!r}")
    return float(lock_wait)


def lock(descriptor: int, operation: int, where: str, wait: float, consequence: str) -> None:
    """``flock(descriptor, operation)``, retrying for at most ``wait`` seconds.

    ``LedgerLockTimeout`` (ending with ``consequence``, e.g. "nothing was
    appended") when the lock is still held by another open file after the
    wait; ``InputError`` where the file system refuses locks.
    """
    try:
        acquired = locks.acquire(descriptor, operation, wait)
    except OSError as error:
        raise InputError(f"{where}: cannot lock the ledger ({error.strerror or error})") from None
    if not acquired:
        kind = "an exclusive" if operation == fcntl.LOCK_EX else "a shared"
        raise LedgerLockTimeout(
            f"{where}: the ledger is locked by another process; gave up after waiting {wait:g} s for {kind} "
            f"lock (the bound is lock_wait=, default regrag.audit.ledger.DEFAULT_LOCK_WAIT_SECONDS); {consequence}"
        )


close_quietly = files.close_quietly


def check_regular(descriptor: int, where: str) -> None:
    """``InputError`` unless ``descriptor`` is a regular file."""
    kind = files.not_regular(files.status(descriptor).st_mode)
    if kind == "directory":
        raise InputError(f"{where}: is a directory, not a ledger file")
    if kind is not None:
        raise InputError(f"{where}: not a regular file (a FIFO, device or socket)")


def open_for_append(where: str) -> int:
    """A descriptor open for reading and appending, creating the file if it
    does not exist (but not through a symbolic link to a missing file: a
    planted link must not make regrag create a file elsewhere). Opened
    without blocking, so a FIFO is refused rather than waited on.
    ``InputError`` if that is impossible."""
    flags = os.O_RDWR | os.O_APPEND

    def create_or_open() -> int:
        try:
            return files.open_without_blocking(where, flags)
        except FileNotFoundError:
            try:
                return files.open_without_blocking(where, flags | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:  # created meanwhile by another appender, or a dangling link
                return files.open_without_blocking(where, flags)

    def missing() -> str:
        if files.is_symlink(where, quiet=True):
            return "a symbolic link to a missing file; not creating a ledger through it"
        return "cannot create the ledger (its directory does not exist)"

    return _open_regular(where, create_or_open, missing)


def open_for_update(where: str) -> int:
    """A descriptor open for reading and writing (not creating, not appending); ``InputError`` if impossible."""
    return _open_regular(where, lambda: files.open_without_blocking(where, os.O_RDWR), lambda: "file not found")


def _open_regular(where: str, opener: Callable[[], int], missing: Callable[[], str]) -> int:
    """``opener()``'s descriptor, checked to be a regular file (closed if
    not); ``InputError`` naming ``where`` (``missing()`` says why when
    nothing is there) if it cannot be opened."""
    try:
        descriptor = opener()
    except OSError as error:
        reason = missing() if isinstance(error, FileNotFoundError) else files.open_failure(
            error, directory="is a directory, not a ledger file", doing="cannot open the ledger", describe=writes.describe)
        raise InputError(f"{where}: {reason}") from None
    try:
        check_regular(descriptor, where)
    except BaseException:
        close_quietly(descriptor)
        raise
    return descriptor


@contextmanager
def snapshot_for_reading(where: str, wait: float) -> Iterator[tuple[IO[bytes], int]]:
    """``(handle, size)``: the file open for binary reading, and its size
    noted under a shared lock that is released at once.

    Every append writes its whole line under the exclusive lock, so the first
    ``size`` bytes are complete appends (or a tail a crashed append left) and
    later appends only add bytes after them: a reader that reads up to
    ``size`` without the lock sees a consistent ledger, and writers wait for
    it only for one ``fstat``. A read error while the caller reads is an
    ``InputError``.
    """
    try:
        descriptor = files.open_without_blocking(where)
    except OSError as error:  # (a directory opens for reading: check_regular refuses it)
        raise InputError(f"{where}: {files.open_failure(error)}") from None
    try:
        check_regular(descriptor, where)
        lock(descriptor, fcntl.LOCK_SH, where, wait, "nothing was read")
        try:
            size = files.status(descriptor).st_size
        finally:
            locks.release(descriptor)
    except OSError as error:
        close_quietly(descriptor)
        raise InputError(f"{where}: cannot read ({error.strerror or error})") from None
    except BaseException:
        close_quietly(descriptor)
        raise
    with files.wrap(descriptor) as handle:
        try:
            yield handle, size
        except OSError as error:
            raise InputError(f"{where}: cannot read ({error.strerror or error})") from None
