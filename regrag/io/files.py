"""Opening, reading, listing and removing files.

Readers of untrusted paths (index files, corpus files, ledgers) open them
without blocking and check the open descriptor, so a FIFO or device put in
place of a file can neither hang the reader nor be read; reads are bounded
so a damaged or planted file cannot make a reader allocate without bound.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from regrag.io import system

CLOSE_ON_EXEC = getattr(os, "O_CLOEXEC", 0)
NON_BLOCKING = getattr(os, "O_NONBLOCK", 0)
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CHUNK = 1 << 20


def open_without_blocking(path: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = 0o666,
                          follow_symlinks: bool = True) -> int:
    """A descriptor for ``path`` opened with ``flags`` plus non-blocking and
    close-on-exec (and, without ``follow_symlinks``, not through a final
    symbolic link). ``OSError`` as ``os.open``."""
    extra = NON_BLOCKING | CLOSE_ON_EXEC | (0 if follow_symlinks else NO_FOLLOW)
    return system.active.open(path, flags | extra, mode)


def status(descriptor: int) -> os.stat_result:
    """``fstat`` of an open file."""
    return system.active.fstat(descriptor)


def status_of(path: str | os.PathLike[str]) -> os.stat_result:
    """``stat`` of a path (symbolic links followed)."""
    return system.active.stat(path)


def not_regular(mode: int) -> str | None:
    """None for a regular file, else what it is instead: ``"directory"`` or ``"special"`` (FIFO, device, socket)."""
    if stat.S_ISREG(mode):
        return None
    return "directory" if stat.S_ISDIR(mode) else "special"


def reader(descriptor: int) -> BinaryIO:
    """A buffered binary reader over ``descriptor`` (made blocking again: it is a regular file), owning it."""
    if NON_BLOCKING:
        system.active.set_blocking(descriptor, True)
    return system.active.fdopen(descriptor, "rb")


def wrap(descriptor: int) -> BinaryIO:
    """A buffered binary reader over an open descriptor, owning it (closing it closes the descriptor)."""
    return system.active.fdopen(descriptor, "rb")


def open_text_for_writing(path: str | os.PathLike[str]) -> Any:
    """``path`` created or truncated and opened for UTF-8 text with ``\\n`` line ends, as
    ``open(path, "w", encoding="utf-8", newline="\\n")`` (not atomic, not synced: for exports)."""
    descriptor = system.active.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | CLOSE_ON_EXEC, 0o666)
    try:
        return system.active.fdopen(descriptor, "w", encoding="utf-8", newline="\n")
    except BaseException:
        close_quietly(descriptor)
        raise


def open_binary(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for binary reading, as the built-in ``open(path, "rb")``
    (blocking, so a pipe can be read; ``IsADirectoryError`` for a directory)."""
    descriptor = system.active.open(path, os.O_RDONLY | CLOSE_ON_EXEC, 0o666)
    try:
        if stat.S_ISDIR(system.active.fstat(descriptor).st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        return system.active.fdopen(descriptor, "rb")
    except BaseException:
        close_quietly(descriptor)
        raise


def open_failure(error: OSError, missing: str = "file not found", directory: str = "is a directory, not a file",
                 doing: str = "cannot read", describe: Callable[[OSError], str] | None = None) -> str:
    """Why a file could not be opened or read, in the words regrag's errors
    use after ``PATH: ``: ``missing`` when nothing is there, ``directory``
    for a directory, else ``doing`` and the reason (``describe``, by default
    the system's words)."""
    if isinstance(error, FileNotFoundError):
        return missing
    if isinstance(error, IsADirectoryError):
        return directory
    return f"{doing} ({describe(error) if describe else error.strerror or error})"


def point_at_null(descriptor: int) -> None:
    """Make an open descriptor (a failed standard stream) write to ``os.devnull``: later writes succeed and go nowhere."""
    null = system.active.open(os.devnull, os.O_WRONLY, 0o666)
    try:
        system.active.dup2(null, descriptor)
    finally:
        system.active.close(null)


def read_up_to(descriptor: int, count: int) -> bytes:
    """The next bytes of an open file, until its end or ``count`` bytes (read in 1 MiB chunks)."""
    chunks: list[bytes] = []
    left = count
    while left > 0:
        chunk = system.active.read(descriptor, min(_CHUNK, left))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_whole(path: str | os.PathLike[str]) -> bytes:
    """All the bytes of ``path`` (as ``Path.read_bytes``)."""
    with open_binary(path) as handle:
        return handle.read()


def close(descriptor: int) -> None:
    system.active.close(descriptor)


def close_quietly(descriptor: int) -> None:
    """Close; an error here comes after the data were synced (or after the real error)."""
    try:
        system.active.close(descriptor)
    except OSError:
        pass


# errno values that mean "nothing is there" (as pathlib's is_file, is_dir, exists treat them)
_NOT_THERE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def _mode(path: str | os.PathLike[str], follow_symlinks: bool, quiet: bool) -> int | None:
    """The mode of ``path``, or None when nothing is there. Other errors
    (``EACCES`` on a parent, say) raise, as in pathlib, unless ``quiet``
    (as in ``os.path``: every error means no)."""
    try:
        return system.active.stat(path, follow_symlinks=follow_symlinks).st_mode
    except ValueError:  # an embedded NUL
        return None
    except OSError as error:
        if quiet or error.errno in _NOT_THERE:
            return None
        raise


def exists(path: str | os.PathLike[str], quiet: bool = False) -> bool:
    """Whether ``path`` names something (symbolic links followed), as ``Path.exists`` (``quiet``: ``os.path.exists``)."""
    return _mode(path, True, quiet) is not None


def is_file(path: str | os.PathLike[str], quiet: bool = False) -> bool:
    """Whether ``path`` is a regular file (links followed), as ``Path.is_file`` (``quiet``: ``os.path.isfile``)."""
    mode = _mode(path, True, quiet)
    return mode is not None and stat.S_ISREG(mode)


def is_directory(path: str | os.PathLike[str], quiet: bool = False) -> bool:
    """Whether ``path`` is a directory (links followed), as ``Path.is_dir`` (``quiet``: ``os.path.isdir``)."""
    mode = _mode(path, True, quiet)
    return mode is not None and stat.S_ISDIR(mode)


def is_symlink(path: str | os.PathLike[str], quiet: bool = False) -> bool:
    """Whether ``path`` is a symbolic link, as ``Path.is_symlink`` (``quiet``: ``os.path.islink``)."""
    mode = _mode(path, False, quiet)
    return mode is not None and stat.S_ISLNK(mode)


def resolved(path: str | os.PathLike[str]) -> Path:
    """``Path(path).resolve()``: absolute, symbolic links followed."""
    return Path(path).resolve()


def matching(directory: str | os.PathLike[str], pattern: str) -> list[Path]:
    """The entries of ``directory`` matching the glob ``pattern``, sorted."""
    return sorted(Path(directory).glob(pattern))


@contextmanager
def listing(directory: str | os.PathLike[str]) -> Iterator[Any]:
    """``os.scandir(directory)``: its entries, in file-system order (sort them)."""
    with system.active.scandir(directory) as entries:
        yield entries


def names_in(directory: str | os.PathLike[str]) -> list[str]:
    """The names of the entries of ``directory``, sorted."""
    with listing(directory) as entries:
        return sorted(entry.name for entry in entries)


def remove(path: str | os.PathLike[str]) -> None:
    """Remove a file (``OSError`` if that fails)."""
    system.active.unlink(path)


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Remove a directory and everything in it; failures are ignored (the next writer removes leftovers)."""
    system.active.remove_tree(path)


def open_file(path: str | os.PathLike[str], flags: int, mode: int = 0o666) -> int:
    """A descriptor for ``path`` opened with ``flags`` plus close-on-exec (``OSError`` as ``os.open``)."""
    return system.active.open(path, flags | CLOSE_ON_EXEC, mode)
