"""Replace a file only once its new content is complete."""

from __future__ import annotations

import os

from regrag.errors import InputError


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over
    ``path``: a reader sees the old file or the new one, never a part.
    ``InputError`` naming the file when it cannot be written."""
    where = os.fspath(path)
    directory, name = os.path.split(os.path.abspath(where))
    temporary = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
    try:
        try:
            with open(temporary, "wb") as handle:
                handle.write(data)
            os.replace(temporary, where)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
    except OSError as error:
        raise InputError(f"{where}: cannot write ({error.strerror or error})") from None
