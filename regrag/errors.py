"""Errors raised by regrag.

Every error a user can cause (bad input, bad usage) is an ``InputError`` whose
message names what is wrong and, for files, the file and 1-based line number.
The CLI turns it into a one-line message and exit status 2.
"""


class RegragError(Exception):
    """Base class of every error regrag raises on purpose."""


class InputError(RegragError):
    """Bad input or bad usage: a malformed file, an unknown option, a bad filter."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


class CorruptIndexError(InputError):
    """An index on disk that fails verification: a missing, truncated or
    altered file, or a manifest from another format. The message names the file."""


class LockedError(InputError):
    """Another process holds the writer lock of an index directory."""
