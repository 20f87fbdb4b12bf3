"""Shard files staged in the index directory by the tasks that build them,
checked and published by a driver that never holds them
(docs/distributed.md, "Design"; docs/index-format.md, "Layout").

A distributed build (``regrag index --spark``) makes a staging folder
``DIR/generations/.staging-…`` before its job (``new_staging``). Each
phase-C task writes its shard's files there (``stage_shard``) and reports
only (name, size, SHA-256) of each. The driver checks that every file its
shard's ``shard.json`` and ``segment.json`` name is there with the reported
size and digest (streamed hashing), writes the manifest from those two
small files alone (``sharded_manifest``: the function a driver holding every
byte uses, so the same manifest), and publishes by renaming the staged files
into the new generation's folder inside the store's atomic ``CURRENT`` commit
(``commit_staged``). ``remove_staging`` removes the folder after success and
after failure. Readers ignore the folder, as they ignore ``.tmp-…``; other
writers' leftover clean-up does not touch it (a build in progress must not
lose its files to another publish).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from regrag.errors import InputError
from regrag.index.shard_generation import check_shard_numbers, shard_folder, sharded_manifest
from regrag.index.shard_statistics import SHARD_MANIFEST, shard_manifest_problem
from regrag.io import files as io_files, system, writes

STAGING_PREFIX = ".staging-"
_COMPONENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
_CHUNK = 1 << 20

StagedFile = tuple[str, int, str]  # (name within the shard's folder, size in bytes, SHA-256 hex)


@dataclass(frozen=True)
class StagedGeneration:
    """What ``IndexStore._publish_locked`` records of a generation it did not hold in memory."""

    index_id: str
    corpus_root: str
    manifest: bytes


def new_staging(root: str | os.PathLike[str]) -> Path:
    """A new, empty staging folder in index directory ``root`` (made if missing),
    its name unique to this build (process id and 48 random bits: a name only,
    never part of a published byte). ``InputError`` naming it if it cannot be made."""
    generations = Path(root) / "generations"
    folder = generations / f"{STAGING_PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
    try:
        writes.make_directory(generations, parents=True, exist_ok=True)
        writes.make_directory(folder)
        writes.fsync_directory(generations)
    except OSError as error:
        raise writes.write_failure(error, "nothing was built or published", folder) from None
    return folder


def stage_shard(folder: str | os.PathLike[str], shard: int, files: Mapping[str, bytes],
                attempt: str) -> list[StagedFile]:
    """Write shard ``shard``'s ``files`` (``build_shard``'s) under ``folder``
    (``new_staging``'s, which must exist: the task's storage is the driver's),
    each to a temporary name unique to the task attempt ``attempt``, fsynced and
    renamed into place (``os.replace``), its directories fsynced; returns the
    sorted (name, size, SHA-256). A retried or speculative attempt of the same
    task writes the same bytes (tasks are pure), so its rename over a file an
    earlier attempt placed changes nothing, and the temporary names of two
    attempts never collide. ``InputError`` naming the file on a write failure."""
    base = Path(folder)
    if not io_files.exists(base):
        raise InputError(f"{base}: the staging folder is not visible here: every executor must see the index "
                         "directory (--out) at the path the driver sees it (shared storage), or build with "
                         "--spark-files driver")
    listed: list[StagedFile] = []
    made: set[Path] = set()
    try:
        for name in sorted(files):
            _check_name(name)
            target = base / shard_folder(shard) / name
            _make_parents(base, target.parent, made)
            data = files[name]
            temporary = target.with_name(f".{target.name}.{attempt}.tmp")
            try:
                writes.write_file(temporary, data, replace=True)
                writes.rename(temporary, target)
            except BaseException:
                writes.remove_quietly(temporary)
                raise
            listed.append((name, len(data), hashlib.sha256(data).hexdigest()))
        for directory in sorted(made, key=lambda path: (-len(path.parts), str(path))):
            writes.fsync_directory(directory)
    except OSError as error:
        raise writes.write_failure(error, "the build stops; nothing was published", base) from None
    return listed


def _make_parents(base: Path, directory: Path, made: set[Path]) -> None:
    """Make ``directory`` and its parents below ``base`` (never ``base`` itself: a removed
    staging folder must make a late task fail, not come back)."""
    if base not in directory.parents and directory != base:
        raise InputError(f"{directory}: not inside the staging folder {base}")
    missing = []
    while directory != base and directory not in made:
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        writes.make_directory(path, exist_ok=True)
        made.add(path)


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not all(_COMPONENT.match(part) for part in name.split("/")):
        raise InputError(f"{name!r} is not the name of a shard file")


def file_digest(path: Path, size: int) -> str | None:
    """The SHA-256 of regular file ``path`` if it holds ``size`` bytes, read in
    1 MiB chunks (never whole); None when it is missing, not a regular file
    (a link included) or of another size."""
    digest = hashlib.sha256()
    return digest.hexdigest() if _read(path, size, digest.update) else None


def _read_checked(path: Path, size: int, sha256: str) -> bytes:
    """A small staged file (``shard.json``, ``segment.json``), read once and checked against its listing."""
    parts: list[bytes] = []
    if not _read(path, size, parts.append) or hashlib.sha256(b"".join(parts)).hexdigest() != sha256:
        raise InputError(f"{path}: missing, or not the {size:,} bytes with the SHA-256 its task reported")
    return b"".join(parts)


def _read(path: Path, size: int, take) -> bool:
    """Feed regular file ``path``'s bytes to ``take`` in chunks; False (having fed
    nothing or a part) unless it is a regular file of ``size`` bytes, read whole."""
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        if not stat.S_ISREG(system.active.stat(path, follow_symlinks=False).st_mode):
            return False  # a link, a folder, a FIFO (never opened: it would block)
        descriptor = system.active.open(path, flags)
    except OSError:
        return False
    try:
        info = system.active.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size != size:
            return False
        read = 0
        while chunk := system.active.read(descriptor, _CHUNK):
            read += len(chunk)
            take(chunk)
        return read == size
    except OSError:
        return False
    finally:
        system.active.close(descriptor)


def check_staged(folder: str | os.PathLike[str], shards: int,
                 staged: Mapping[int, Sequence[StagedFile]]) -> tuple[list[bytes], dict[tuple[int, str], bytes]]:
    """Check every shard's staged files: each file its ``shard.json`` and
    ``segment.json`` name is listed, no other, each listed file is in
    ``folder`` as a regular file of that size with that SHA-256, and the
    sizes and digests are those the manifests record. Returns the
    ``shard.json`` bytes in shard order and each ``segment.json``'s, keyed by
    (shard, name). ``InputError`` naming the first file that is not."""
    from regrag.index.segment_files import SEGMENT_MANIFEST, segment_manifest_problem

    base = Path(folder)
    check_shard_numbers(staged, shards)
    records: list[bytes] = []
    segments: dict[tuple[int, str], bytes] = {}
    for shard in range(shards):
        where = base / shard_folder(shard)
        listed = {}
        for name, size, sha256 in staged[shard]:
            _check_name(name)
            listed[name] = (size, sha256)
        if SHARD_MANIFEST not in listed:
            raise InputError(f"{where}: its task reported no {SHARD_MANIFEST}")
        data = _read_checked(where / SHARD_MANIFEST, *listed[SHARD_MANIFEST])
        record = _parsed(data, where / SHARD_MANIFEST)
        problem = shard_manifest_problem(record, shard)
        if problem:
            raise InputError(f"{where / SHARD_MANIFEST}: {problem}")
        expected = {SHARD_MANIFEST: listed[SHARD_MANIFEST]}
        expected.update({name: (entry["bytes"], entry["sha256"]) for name, entry in record["files"].items()})
        for segment in record["segments"]:
            name = f"segments/{segment['name']}/{SEGMENT_MANIFEST}"
            if name not in listed:
                raise InputError(f"{where / name}: its task reported no such file")
            size = listed[name][0]
            segment_bytes = _read_checked(where / name, size, segment["name"])  # a segment is named by its digest
            segment_record = _parsed(segment_bytes, where / name)
            problem = segment_manifest_problem(segment_record)
            if problem:
                raise InputError(f"{where / name}: {problem}")
            expected[name] = (size, segment["name"])
            expected.update({f"segments/{segment['name']}/{file}": (entry["bytes"], entry["sha256"])
                             for file, entry in segment_record["files"].items()})
            segments[(shard, name)] = segment_bytes
        if sorted(listed) != sorted(expected):
            extra = sorted(set(listed) ^ set(expected))
            raise InputError(f"{where}: its task reported other files than its manifests name ({extra[0]})")
        for name in sorted(expected):
            if listed[name] != expected[name]:
                raise InputError(f"{where / name}: its task reported another size or SHA-256 than its manifest records")
            if name != SHARD_MANIFEST and file_digest(where / name, expected[name][0]) != expected[name][1]:
                raise InputError(f"{where / name}: missing, or not the {expected[name][0]:,} bytes with the SHA-256 "
                                 "its manifest records")
        records.append(data)
    return records, segments


def _parsed(data: bytes, path: Path) -> dict:
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InputError(f"{path}: not valid JSON") from None
    return record


def commit_staged(store, folder: str | os.PathLike[str], staged: Mapping[int, Sequence[StagedFile]], statistics,
                  analyzer, parameters, keep: int | None = None, *, base: int | None = None,
                  protect: Iterable[int] = (), allow_clock_skew: bool = False, engine_version: str | None = None):
    """Publish the staged shards (``check_staged``) as a new generation of
    ``store`` with ``IndexStore.commit``'s checks and options: the manifest
    written as ``commit_sharded`` writes it, every staged file renamed into
    the new generation's temporary folder, which the store fsyncs, renames
    into place and commits with ``CURRENT``. The same generation, byte for
    byte, as ``commit_sharded`` of the same shards' bytes. Returns the ``Publication``."""
    from regrag._version import __version__
    from regrag.index import publishing

    publishing.check_publish_arguments(keep, base, None)
    if base is not None:  # another publish meanwhile: say so, before reading a staged file
        publishing.check_base(store.root, store.current_number(), base)
    records, segments = check_staged(folder, statistics.shards, staged)
    own = sharded_manifest(records, lambda shard, name: segments[(shard, name)], statistics, analyzer, parameters,
                           engine_version or __version__)
    moves = {f"{shard_folder(shard)}/{name}": Path(folder) / shard_folder(shard) / name
             for shard in range(statistics.shards) for name, _size, _sha256 in staged[shard]}
    generation = StagedGeneration(statistics.index_id, statistics.corpus_root, own["manifest.json"])

    def write(directory: Path) -> StagedGeneration:
        from regrag.index.segment_links import segment_directories, sync_segment_directories

        segment_directories(directory, {**own, **moves}, {})
        for name in sorted(moves):
            writes.rename(moves[name], directory / name)
        for name in sorted(own):
            writes.write_file(directory / name, own[name])
        sync_segment_directories(directory, {**own, **moves}, {})
        writes.fsync_directory(directory)
        return generation

    with store.writer_lock():
        return store._publish_locked(None, write, keep, None, base, frozenset(protect), allow_clock_skew)


def remove_staging(folder: str | os.PathLike[str]) -> None:
    """Remove a staging folder and what is in it: first renamed aside, so a task
    still running (a cancelled or speculative attempt) cannot write into it any
    more (``stage_shard`` never makes the folder itself), then removed. Quiet:
    what cannot be removed is left (docs/distributed.md says where)."""
    path = Path(folder)
    aside = path.with_name(path.name + ".removed")
    try:
        writes.rename(path, aside)
    except OSError:
        aside = path
    io_files.remove_tree(aside)
