"""The system calls regrag makes on files, behind one object.

Every module of ``regrag.io`` calls ``system.active.<call>`` instead of
``os.<call>``, so a test can swap in a double (``use``) that fails the n-th
write with ``ENOSPC`` and see every caller's handling of it, on every
supported Python (pathlib on 3.10 calls ``os.mkdir`` through a reference
taken at import time, which patching ``os`` cannot reach). Each method is
the ``os`` (or ``fcntl``, ``shutil``) call of the same name, looked up when
called.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any



class FileSystem:
    """The real file system: each method is the system call it is named after."""

    def open(self, path: Any, flags: int, mode: int = 0o777) -> int:
        return os.open(path, flags, mode)

    def read(self, descriptor: int, count: int) -> bytes:
        return os.read(descriptor, count)

    def write(self, descriptor: int, data: Any) -> int:
        return os.write(descriptor, data)

    def fsync(self, descriptor: int) -> None:
        os.fsync(descriptor)

    def close(self, descriptor: int) -> None:
        os.close(descriptor)

    def fstat(self, descriptor: int) -> os.stat_result:
        return os.fstat(descriptor)

    def stat(self, path: Any, follow_symlinks: bool = True) -> os.stat_result:
        return os.stat(path, follow_symlinks=follow_symlinks)

    def ftruncate(self, descriptor: int, length: int) -> None:
        os.ftruncate(descriptor, length)

    def replace(self, source: Any, destination: Any) -> None:
        os.replace(source, destination)

    def mkdir(self, path: Any, mode: int = 0o777) -> None:
        os.mkdir(path, mode)

    def unlink(self, path: Any) -> None:
        os.unlink(path)

    def remove_tree(self, path: Any) -> None:
        """``shutil.rmtree``, errors ignored (removing leftovers is tidying)."""
        shutil.rmtree(path, ignore_errors=True)

    def scandir(self, path: Any) -> Any:
        return os.scandir(path)

    def flock(self, descriptor: int, operation: int) -> None:
        fcntl.flock(descriptor, operation)

    def set_blocking(self, descriptor: int, blocking: bool) -> None:
        os.set_blocking(descriptor, blocking)

    def dup2(self, descriptor: int, target: int) -> None:
        os.dup2(descriptor, target)

    def fdopen(self, descriptor: int, mode: str = "rb", **options: Any) -> Any:
        return os.fdopen(descriptor, mode, **options)


#: The file system every ``regrag.io`` function calls; swapped only by ``use``.
active: FileSystem = FileSystem()


@contextmanager
def use(file_system: FileSystem) -> Iterator[FileSystem]:
    """Make ``file_system`` the active one for the ``with`` block (tests)."""
    global active
    previous, active = active, file_system
    try:
        yield file_system
    finally:
        active = previous
