"""The exit statuses of ``regrag`` (docs/cli.md, "Exit status"), named.

``regrag.cli`` re-exports ``ExitStatus``; it lives in this module of its own
so that every command module can import it without importing the package's
``__init__`` (which imports the command modules)."""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """What a command returns (an ``int``, as ``sys.exit`` wants)."""

    OK = 0
    """Success; for a check, the check passed."""
    CHECK_FAILED = 1
    """A check failed: ``verify``, ``verify-proof``, ``golden verify``, ``ledger verify|replay``."""
    NOT_FOUND = 1
    """``ask`` found no answer, or refused one (the same status as a failed check)."""
    USAGE = 2
    """Bad usage or bad input (one line on standard error naming what is wrong),
    or standard output or error could not be written."""
    INTERRUPTED = 130
    """Ctrl-C (128 + SIGINT)."""
