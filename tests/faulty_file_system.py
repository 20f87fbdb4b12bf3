"""A fault-injecting file system for the fault tests.

``FaultyFileSystem`` is a ``regrag.io.system.FileSystem`` that counts the
write-side calls regrag makes through ``regrag.io`` (``open`` for writing,
``write``, ``fsync``, ``replace``, ``mkdir``) and makes the ``fail_at``-th
(1-based) fail with ``code`` (or, with ``short``, write only half of what it
was given). Swapped in with ``regrag.io.system.use`` (or ``active``), it
reaches every caller on every Python, where patching ``os`` does not
(pathlib on 3.10 holds its own reference to ``os.mkdir``).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from regrag.io import system
from regrag.io.system import FileSystem

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class FaultyFileSystem(FileSystem):
    """The real file system, but the ``fail_at``-th write-side call fails.

    ``calls``: every write-side call as ``(call, path)``; ``failed``: the one
    that failed. ``truncate_error``: an errno every ``ftruncate`` fails with.
    ``keep_leftovers``: removing a directory tree does nothing (a sick disk
    where cleanup fails too)."""

    def __init__(self, fail_at: int | None = None, code: int = errno.ENOSPC, short: bool = False,
                 truncate_error: int | None = None, keep_leftovers: bool = False) -> None:
        self.fail_at = fail_at
        self.code = code
        self.short = short
        self.truncate_error = truncate_error
        self.keep_leftovers = keep_leftovers
        self.calls: list[tuple[str, str]] = []  # (call, path)
        self.failed: tuple[str, str] | None = None
        self._paths: dict[int, str] = {}

    def _count(self, call: str, path: str) -> bool:
        """Record a call; True when it is the one to fail."""
        self.calls.append((call, path))
        if len(self.calls) == self.fail_at:
            self.failed = (call, path)
            return True
        return False

    def _error(self) -> OSError:
        return OSError(self.code, os.strerror(self.code))

    @contextmanager
    def active(self, monkeypatch: pytest.MonkeyPatch | None = None) -> Iterator["FaultyFileSystem"]:
        """This file system as ``regrag.io.system.active`` for the ``with`` block."""
        with system.use(self):
            yield self

    def open(self, path: Any, flags: int, mode: int = 0o777) -> int:
        if flags & _WRITE_FLAGS and self._count("open", os.fsdecode(path)):
            raise OSError(self.code, os.strerror(self.code), os.fsdecode(path))
        descriptor = super().open(path, flags, mode)
        self._paths[descriptor] = os.fsdecode(path)
        return descriptor

    def write(self, descriptor: int, data: Any) -> int:
        if self._count("write", self._paths.get(descriptor, "?")):
            if self.short:
                return super().write(descriptor, bytes(data)[: len(data) // 2])
            raise self._error()
        return super().write(descriptor, data)

    def fsync(self, descriptor: int) -> None:
        if self._count("fsync", self._paths.get(descriptor, "?")):
            raise self._error()
        super().fsync(descriptor)

    def replace(self, source: Any, destination: Any) -> None:
        if self._count("replace", os.fsdecode(destination)):
            raise OSError(self.code, os.strerror(self.code), os.fsdecode(source), None, os.fsdecode(destination))
        super().replace(source, destination)

    def mkdir(self, path: Any, mode: int = 0o777) -> None:
        if self._count("mkdir", os.fsdecode(path)):
            raise OSError(self.code, os.strerror(self.code), os.fsdecode(path))
        super().mkdir(path, mode)

    def ftruncate(self, descriptor: int, length: int) -> None:
        if self.truncate_error is not None:
            raise OSError(self.truncate_error, os.strerror(self.truncate_error))
        super().ftruncate(descriptor, length)

    def remove_tree(self, path: Any) -> None:
        if not self.keep_leftovers:
            super().remove_tree(path)


class ShortWrites(FileSystem):
    """Every ``write`` writes at most ``limit`` bytes (0: none, a write that makes no progress)."""

    def __init__(self, limit: int, most_writes: int | None = None) -> None:
        self.limit = limit
        self.most_writes = most_writes
        self.writes: list[int] = []  # the descriptors written to

    def write(self, descriptor: int, data: Any) -> int:
        self.writes.append(descriptor)
        if self.most_writes is not None and len(self.writes) > self.most_writes:
            raise AssertionError("a write that made no progress was retried without end")
        if self.limit == 0:
            return 0
        return super().write(descriptor, bytes(data)[: self.limit])
