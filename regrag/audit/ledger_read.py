"""Reading a ledger: every entry, the chain check, and the last entry.

Split out of ``regrag.audit.ledger`` (which re-exports the public names).
``read_ledger`` and ``verify_ledger`` read a consistent prefix without
holding the lock while they read: they note the file's size under a short
shared lock (``ledger_lock.snapshot_for_reading``) and read up to it, so a
long verify never holds up appenders, and an append that lands meanwhile is
neither half seen nor reported as damage (it is simply after the prefix).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from regrag.audit.ledger_entry import (
    GENESIS_PREVIOUS,
    LedgerEntry,
    LedgerReport,
    LineProblem,
    broken,
    parse_line,
    verify_hint,
)
from regrag.audit.ledger_lock import checked_wait, snapshot_for_reading
from regrag.errors import InputError

_TAIL_BLOCK_BYTES = 64 * 1024
_COUNT_BLOCK_BYTES = 1024 * 1024


def _prefix_lines(handle: IO[bytes], size: int) -> Iterator[bytes]:
    """The lines of the first ``size`` bytes (the last one possibly without its newline)."""
    offset = 0
    for raw in handle:
        if offset >= size:
            return
        if offset + len(raw) > size:
            raw = raw[: size - offset]
        offset += len(raw)
        yield raw


def read_ledger(path: str | Path, lock_wait: float | None = None) -> list[LedgerEntry]:
    """Every entry of the ledger, in file order (the entries complete when
    the call began; appends made while it reads are not included).

    ``InputError`` naming file and line for invalid UTF-8, malformed JSON, a
    line that is not an entry, or an incomplete last line. Hashes and the chain
    are not checked: that is ``verify_ledger``'s job. ``lock_wait`` bounds the
    wait for the lock (``LedgerLockTimeout``), default ``DEFAULT_LOCK_WAIT_SECONDS``.
    """
    where = os.fspath(path)
    entries: list[LedgerEntry] = []
    with snapshot_for_reading(where, checked_wait(lock_wait)) as (handle, size):
        for number, raw in enumerate(_prefix_lines(handle, size), start=1):
            if not raw.endswith(b"\n"):
                raise InputError(f"{where}:{number}: incomplete last line (no trailing newline); {verify_hint(where)}")
            try:
                entries.append(parse_line(raw[:-1], check_integrity=False))
            except LineProblem as problem:
                raise InputError(f"{where}:{number}: {problem}") from None
    return entries


def verify_ledger(path: str | Path, lock_wait: float | None = None) -> LedgerReport:
    """Check every line and the chain; report the first broken entry.

    Detected: an incomplete last line, invalid UTF-8, malformed JSON, a line
    that is not an entry, non-canonical bytes, a hash that does not match the
    entry (an edited entry), and a ``previous`` or ``sequence`` that does not
    follow from the line before (a deleted, inserted or reordered entry).
    Timestamps are not checked (clocks may go backwards). The ledger checked
    is the one complete when the call began: the lock is held only to note
    its size, so appends go on meanwhile. ``InputError`` if the file does not
    exist or cannot be read; ``LedgerLockTimeout`` after ``lock_wait`` seconds.
    """
    where = os.fspath(path)
    expected_previous = GENESIS_PREVIOUS
    verified = 0
    with snapshot_for_reading(where, checked_wait(lock_wait)) as (handle, size):
        for number, raw in enumerate(_prefix_lines(handle, size), start=1):
            if not raw.endswith(b"\n"):
                return broken(verified, number, "incomplete last line (no trailing newline): a write was cut short")
            try:
                entry = parse_line(raw[:-1], check_integrity=True)
            except LineProblem as problem:
                return broken(verified, number, str(problem))
            chain_problems = []
            if entry.previous != expected_previous:
                before = "64 zeros (first entry)" if number == 1 else f"the hash of line {number - 1}"
                chain_problems.append(f"previous is not {before}")
            if entry.sequence != number:
                chain_problems.append(f"sequence {entry.sequence} where {number} was expected")
            if chain_problems:
                return broken(verified, number, "; ".join(chain_problems) + ": an entry was deleted, inserted or reordered")
            expected_previous = entry.hash
            verified += 1
    return LedgerReport(True, verified, None, "")


def format_report(report: LedgerReport) -> str:
    """One line of human text for a ``LedgerReport``."""
    noun = "entry" if report.entries == 1 else "entries"
    if report.ok:
        return f"ok: {report.entries} {noun}, chain intact"
    return f"broken at line {report.first_broken_line}: {report.reason} ({report.entries} {noun} verified before it)"


# -- the tail, for appending and recovering -------------------------------------


def read_exactly(descriptor: int, length: int, offset: int) -> bytes:
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


def last_line(descriptor: int, size: int) -> tuple[bytes, bool]:
    """The file's last line (without newline) and whether it ends in one, reading back from the end block by block."""
    complete = read_exactly(descriptor, 1, size - 1) == b"\n"
    position = size - 1 if complete else size
    blocks: list[bytes] = []
    while position > 0:
        start = max(0, position - _TAIL_BLOCK_BYTES)
        block = read_exactly(descriptor, position - start, start)
        newline = block.rfind(b"\n")
        if newline >= 0:
            blocks.append(block[newline + 1 :])
            break
        blocks.append(block)
        position = start
    return b"".join(reversed(blocks)), complete


def count_newlines(descriptor: int, size: int) -> int:
    """How many newlines the file holds (read in blocks; only to name a line in an error)."""
    count = 0
    for offset in range(0, size, _COUNT_BLOCK_BYTES):
        count += read_exactly(descriptor, min(_COUNT_BLOCK_BYTES, size - offset), offset).count(b"\n")
    return count


def last_entry(descriptor: int, size: int, where: str) -> LedgerEntry | None:
    """The last entry (None for an empty file); ``InputError`` if the tail is damaged."""
    if size == 0:
        return None
    raw, complete = last_line(descriptor, size)
    if not complete:
        number = count_newlines(descriptor, size) + 1
        raise InputError(
            f"{where}:{number}: the last line is incomplete (no trailing newline; a write was cut short); "
            f"not appending to a damaged ledger: {verify_hint(where)}, and see docs/ledger.md "
            "(discard_incomplete_tail) to drop the unfinished line"
        )
    try:
        return parse_line(raw, check_integrity=True)
    except LineProblem as problem:
        number = count_newlines(descriptor, size)
        raise InputError(
            f"{where}:{number}: the last entry is damaged ({problem}); "
            f"not appending to a damaged ledger: {verify_hint(where)}"
        ) from None
