"""Durable writes: whole files written and fsynced, atomic replacement,
directories made and fsynced, and one wording for write failures (a full
disk in particular).

Every writer of regrag (index generations, ``CURRENT``, golden files, vector
indexes) goes through these functions, so a failing ``open``, ``write``,
``fsync`` or rename surfaces as an ``OSError`` that names the file, and the
caller turns it into a one-line ``InputError`` with ``write_failure``.
"""

from __future__ import annotations

import errno
import os
import stat

from regrag.errors import InputError
from regrag.io import system

# errno values a directory fsync may give where the file system simply does
# not support syncing directories: not a failure of the data.
_DIRECTORY_FSYNC_UNSUPPORTED = frozenset(
    code for code in (errno.EINVAL, errno.EBADF, errno.EISDIR, errno.EACCES,
                      getattr(errno, "ENOTSUP", None), getattr(errno, "EOPNOTSUPP", None))
    if code is not None
)


def describe(error: OSError) -> str:
    """The reason for a failed write, in words; a full disk is said plainly."""
    if error.errno == errno.ENOSPC:
        return "no space left on device (the disk is full)"
    if error.errno == getattr(errno, "EDQUOT", None):
        return "disk quota exceeded (the disk is full for this user)"
    if error.errno == errno.EFBIG:
        return "file too large (a file size limit of the file system or process was reached)"
    return error.strerror or str(error)


def write_failure(error: OSError, consequence: str = "", fallback: str | os.PathLike[str] = "") -> InputError:
    """An ``InputError`` for ``error``: the file it names (else ``fallback``),
    ``cannot write``, the reason, and what it means for the caller."""
    where = error.filename if error.filename is not None else os.fspath(fallback)
    message = f"{os.fsdecode(where)}: cannot write: {describe(error)}"
    return InputError(message + (f"; {consequence}" if consequence else ""))


def _named(error: OSError, path: str | os.PathLike[str]) -> OSError:
    """``error`` with ``path`` as its file name (calls on descriptors carry none)."""
    if error.filename is not None:
        return error
    return OSError(error.errno, error.strerror or str(error), os.fspath(path))


def write_file(path: str | os.PathLike[str], data: bytes, replace: bool = False) -> None:
    """Create ``path`` (it must not exist, unless ``replace``), write all of
    ``data``, fsync and close it. An ``OSError`` naming ``path`` on failure
    (a write that makes no progress counts as a full disk); the caller removes
    the partial file."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | (os.O_TRUNC if replace else os.O_EXCL)
    try:
        descriptor = system.active.open(path, flags, 0o644)
        try:
            view = memoryview(data)
            while view:
                written = system.active.write(descriptor, view)
                if written <= 0:
                    raise OSError(errno.ENOSPC, "a write made no progress")
                view = view[written:]
            system.active.fsync(descriptor)
        finally:
            system.active.close(descriptor)
    except OSError as error:
        raise _named(error, path) from None


def remove_quietly(path: str | os.PathLike[str]) -> None:
    """Remove a leftover file if it is there; failing to is not an error
    (the next writer removes leftovers)."""
    try:
        system.active.unlink(path)
    except OSError:
        pass


def rename(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
    """``os.replace``; an ``OSError`` names ``destination`` (what the caller was writing)."""
    try:
        system.active.replace(source, destination)
    except OSError as error:
        raise OSError(error.errno, error.strerror or str(error), os.fspath(destination)) from None


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make renames and new entries in ``directory`` durable. Platforms and
    file systems that cannot sync a directory are tolerated; a real failure
    (an I/O error, a full disk) is an ``OSError`` naming the directory."""
    try:
        descriptor = system.active.open(directory, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:  # platforms that cannot open directories
        return
    try:
        system.active.fsync(descriptor)
    except OSError as error:
        if error.errno not in _DIRECTORY_FSYNC_UNSUPPORTED:
            raise _named(error, directory) from None
    finally:
        system.active.close(descriptor)


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, rename it
    over ``path`` and fsync the directory: a reader sees the old file or the
    new one, never a part, and a crash leaves one of the two. ``InputError``
    naming the file when it cannot be written (the old content is kept)."""
    where = os.fspath(path)
    directory, name = os.path.split(os.path.abspath(where))
    temporary = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
    try:
        try:
            write_file(temporary, data, replace=True)
            rename(temporary, where)
        except BaseException:
            remove_quietly(temporary)
            raise
    except OSError as error:
        raise InputError(f"{where}: cannot write: {describe(error)}; the file was not changed") from None
    try:
        fsync_directory(directory)
    except OSError as error:
        raise InputError(
            f"{where}: written, but its directory could not be flushed to disk ({describe(error)}); "
            "the new content may not survive a crash"
        ) from None


def make_directory(path: str | os.PathLike[str], parents: bool = False, exist_ok: bool = False) -> None:
    """``Path.mkdir``, its system calls made through ``system.active``: create
    ``path`` (and, with ``parents``, its missing parents); an existing
    directory is accepted with ``exist_ok``. ``OSError`` otherwise."""
    where = os.fspath(path)
    try:
        system.active.mkdir(where, 0o777)
    except FileNotFoundError:
        parent = os.path.dirname(os.path.abspath(where))
        if not parents or parent == os.path.abspath(where):
            raise
        make_directory(parent, parents=True, exist_ok=True)
        make_directory(where, parents=False, exist_ok=exist_ok)
    except OSError:
        # as Path.mkdir: an existing directory is fine with exist_ok, whatever mkdir said
        if not exist_ok or not _is_directory(where):
            raise


def _is_directory(path: str) -> bool:
    try:
        return stat.S_ISDIR(system.active.stat(path).st_mode)
    except OSError:
        return False


def write_once(descriptor: int, data: bytes) -> None:
    """Write all of ``data`` with one ``write`` and ``fsync`` it (a ledger
    line: appended whole or not at all). A short write is an ``OSError``
    (``ENOSPC``, "only N of M bytes written")."""
    written = system.active.write(descriptor, data)
    if written != len(data):
        raise OSError(errno.ENOSPC, f"only {written} of {len(data)} bytes written")
    system.active.fsync(descriptor)


def truncate(descriptor: int, length: int, sync: bool = True) -> None:
    """Cut an open file to ``length`` bytes and (``sync``) ``fsync`` it."""
    system.active.ftruncate(descriptor, length)
    if sync:
        system.active.fsync(descriptor)


def link_or_copy(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
    """Make ``target`` a hard link to ``source`` (an immutable index file
    shared by two generations); where the file system cannot link (another
    device, no hard links), write a copy of its bytes. An ``OSError`` naming
    ``target`` on failure."""
    try:
        os.link(source, target)
        return
    except OSError as error:
        if error.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise _named(error, target) from None
    with open(source, "rb") as handle:
        data = handle.read()
    write_file(target, data)
