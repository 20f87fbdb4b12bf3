"""Open the files of one generation directory as an index: whichever format
its manifest names (one index, segments, shards), every listed file checked
as it is read. Used by ``IndexStore.load`` (after the manifest's SHA-256 was
checked against ``CURRENT``) and by a publish, which reads back the
generation it has just written to compute its entity table
(``entity_files.attach_table``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from regrag.errors import CorruptIndexError, InputError
from regrag.io import files as io_files
from regrag.index import attachments, codec, loading
from regrag.index.build import InvertedIndex
from regrag.index.checks import manifest_problem
from regrag.index.segmented import load_segmented, segmented_manifest_problem
from regrag.index.shard_generation import load_sharded, sharded_manifest_problem


def open_generation_files(directory: Path, manifest: dict[str, Any], memory_map: bool = True) -> InvertedIndex:
    """The generation in ``directory`` whose parsed manifest is ``manifest``;
    ``CorruptIndexError`` naming the file for anything malformed or damaged."""
    where = directory / codec.MANIFEST
    sharded = manifest.get("format") == codec.SHARDED_FORMAT
    segmented = sharded or manifest.get("format") == codec.SEGMENTED_FORMAT
    check = sharded_manifest_problem if sharded else segmented_manifest_problem if segmented else manifest_problem
    problem = attachments.checked(manifest, check)  # attached files (dense vectors): checked where they are read
    if problem:
        raise CorruptIndexError(f"{where}: {problem}")
    for name in () if segmented else codec.DATA_FILES:  # a FIFO or device would block or never end when read
        check_regular_file(directory / name)
    try:
        if sharded:  # every file it reads is opened without blocking and must be regular
            return load_sharded(directory, manifest, memory_map)
        if segmented:
            return load_segmented(directory, manifest, memory_map)
        return loading.load_generation(directory, manifest, memory_map)
    except CorruptIndexError:
        raise
    except InputError as error:  # a value in the manifest that this regrag refuses
        raise CorruptIndexError(f"{where}: {error}") from None


def check_mode(path: Path, info: os.stat_result, limit: int | None) -> None:
    kind = io_files.not_regular(info.st_mode)
    if kind == "directory":
        raise CorruptIndexError(f"{path}: is a directory, not a file")
    if kind is not None:
        raise CorruptIndexError(f"{path}: not a regular file (a FIFO, device or socket)")
    if limit is not None and info.st_size > limit:
        raise CorruptIndexError(f"{path}: {info.st_size:,} bytes, larger than the {limit:,} it may have (damaged)")


def check_regular_file(path: Path, limit: int | None = None) -> None:
    """``CorruptIndexError`` unless ``path`` (symbolic links followed) is a
    regular file of at most ``limit`` bytes; a missing or unreadable file is
    left for the reader to report."""
    try:
        info = io_files.status_of(path)
    except OSError:
        return
    check_mode(path, info, limit)
