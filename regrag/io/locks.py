"""File locks (``flock``): tried once, or retried for a bounded wait.

Nobody waits for a lock forever: a caller gives the longest wait, and a lock
still held by someone else after it is reported (``False``) for the caller
to name in its own words (the index writer lock, the ledger lock).
"""

from __future__ import annotations

import fcntl
import time

from regrag.io import system

EXCLUSIVE = fcntl.LOCK_EX
SHARED = fcntl.LOCK_SH

# Polling: the first retry after 1 ms, doubling up to 50 ms between tries.
_FIRST_DELAY = 0.001
_LONGEST_DELAY = 0.05


def acquire(descriptor: int, operation: int, wait: float = 0.0) -> bool:
    """Take the lock ``operation`` (``EXCLUSIVE`` or ``SHARED``) on an open
    file, retrying for at most ``wait`` seconds (0: try once). False when
    another open file still holds it; ``OSError`` where the file system
    refuses locks."""
    deadline = time.monotonic() + wait
    delay = _FIRST_DELAY
    while True:
        try:
            system.active.flock(descriptor, operation | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, _LONGEST_DELAY)


def release(descriptor: int) -> None:
    """Release the lock held on an open file."""
    system.active.flock(descriptor, fcntl.LOCK_UN)
