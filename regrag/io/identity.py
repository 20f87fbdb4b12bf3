"""File identity snapshots: detect an input file that changed while it was read.

An export job that rewrites a corpus file while ``regrag index --update``
reads it hands regrag the first part of the new file (400 of 1,500
documents, say). Nothing in the bytes shows it: every line is well formed.
So each reader takes the file's identity and state (device, inode, size,
modification and change times, in nanoseconds) when it opens the file and
compares them, after the last byte is read, with the open file's state and
with what the path names now. Any difference raises ``SourceChangedError``:
the read is refused, whatever ``errors=`` says, because the documents it
gave may be a mixture of two versions or a truncated one.

What it cannot see: a writer that is idle for the whole read (a half-written
file that is not changing looks finished), and a rewrite that keeps the
size and restores both times (which needs privileges to set the change
time). Writers should write a new file and rename it into place; a rename
during the read is detected (the path names another inode).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from regrag.errors import InputError
from regrag.io import system

RETRY = "changed while it was read; retry when the writer is done"


class SourceChangedError(InputError):
    """An input file (or folder) changed while regrag read it; nothing read from it is used."""


@dataclass(frozen=True)
class FileState:
    """What identifies one version of a file: where it lives, its size and its times."""

    device: int
    inode: int
    size: int
    modified_ns: int
    changed_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> "FileState":
        return cls(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)


def state_of_descriptor(descriptor: int) -> FileState:
    """The state of an open file (``fstat``)."""
    return FileState.of(system.active.fstat(descriptor))


def check_unchanged(before: FileState, descriptor: int, path: str | os.PathLike[str], where: str) -> None:
    """``SourceChangedError`` naming ``where`` unless the open file still has
    the state ``before`` and ``path`` still names that same file."""
    after = state_of_descriptor(descriptor)
    try:
        named = FileState.of(system.active.stat(path))
    except OSError:
        named = None  # removed or renamed away during the read
    if after != before or named is None or (named.device, named.inode) != (before.device, before.inode):
        raise SourceChangedError(f"{where}: {RETRY}")


def directory_state(path: str | os.PathLike[str]) -> FileState | None:
    """The state of a folder (its times change when an entry is added, removed or renamed), or None if it is gone."""
    try:
        return FileState.of(system.active.stat(path))
    except OSError:
        return None
