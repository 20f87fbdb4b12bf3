"""An index directory: published generations, the pointer to the current
one, a writer lock, the commit protocol, and point-in-time lookup.

Layout (docs/index-format.md)::

    DIR/CURRENT                 canonical JSON: current generation and history
    DIR/LOCK                    writers hold an exclusive lock on it
    DIR/generations/000001/     one complete generation (codec.py)
    DIR/generations/.tmp-.../   a generation being written (ignored by readers)

Publishing writes the new generation in a temporary directory, fsyncs every
file and the directory, renames it into place, then replaces ``CURRENT`` by
writing ``CURRENT.tmp``, fsyncing it and renaming it over ``CURRENT``. That
last rename is the single commit point: a crash before it leaves the old
generation current, after it the new one, and never a mix. Readers read
``CURRENT`` once and load the generation it names, so a writer publishing
meanwhile does not disturb them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from regrag.io import files as io_files, locks, writes
from regrag.io.clock import format_timestamp, now as clock_now, parse_timestamp  # noqa: F401 (public here too)
from regrag.audit.canonical import canonical_bytes
from regrag.errors import CorruptIndexError, InputError, LockedError
from regrag.index.generation_open import check_mode as _check_mode, check_regular_file as _check_regular_file, open_generation_files
from regrag.index.segmented import SegmentedIndex, serialise_segmented
from regrag.index.segment_links import segment_directories, sync_segment_directories
from regrag.index import attachments, codec, entity_files, publishing
from regrag.index.build import InvertedIndex
from regrag.index.checks import (  # noqa: F401 (STORE_FORMAT, MAX_GENERATION, state_checksum: public here too)
    MAX_GENERATION, STORE_FORMAT, manifest_problem, state_checksum, state_problem,
)
from regrag.index.publishing import ClockError, Publication, StaleBaseError  # noqa: F401 (public here too)
from regrag.limits import Limits

CURRENT = "CURRENT"
LOCK = "LOCK"
GENERATIONS = "generations"
_GENERATION_NAME = re.compile(r"^[0-9]{6,}$")
# Caps on what a reader accepts from the directory (docs/index-format.md,
# "Hostile directories"): far above real use, low enough that a damaged or
# planted file cannot make a reader allocate without bound.
MAX_CURRENT_BYTES = 64 * 1024 * 1024  # about 200,000 generations
MAX_MANIFEST_BYTES = 1024 * 1024  # a real manifest is about 2 KB


@dataclass(frozen=True)
class PublishedGeneration:
    """One published generation as recorded in ``CURRENT``."""

    number: int
    published: str  # UTC, ISO 8601 with microseconds and "Z"
    index_id: str
    corpus_root: str
    manifest_sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus_root": self.corpus_root,
            "generation": self.number,
            "index_id": self.index_id,
            "manifest_sha256": self.manifest_sha256,
            "published": self.published,
        }


class IndexStore:
    """The generations of one index directory."""

    def __init__(self, root: str | os.PathLike[str], memory_map: bool = True) -> None:
        self.root = Path(root)
        # Read posting columns in place (docs/index-format.md, "Memory mapping").
        self.memory_map = memory_map

    # reading ------------------------------------------------------------
    def history(self) -> tuple[int, tuple[PublishedGeneration, ...]]:
        """The current generation number and every retained generation."""
        path = self.root / CURRENT
        try:
            data = _read_small_file(path, MAX_CURRENT_BYTES)
        except FileNotFoundError:
            if not io_files.exists(self.root):
                raise InputError(f"{self.root}: no such index directory") from None
            raise InputError(f"{self.root}: not an index directory (no {CURRENT} file; create one with 'regrag index')") from None
        except OSError as error:
            raise CorruptIndexError(f"{path}: cannot read ({error.strerror or error})") from None
        try:
            state = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise CorruptIndexError(f"{path}: damaged (not valid JSON)") from None
        problem = state_problem(state)
        if problem:
            raise CorruptIndexError(f"{path}: {problem}")
        if canonical_bytes(state) + b"\n" != data:  # publish writes exactly this: anything else was edited or cut
            raise CorruptIndexError(f"{path}: damaged (not in canonical form, or its last line is cut short)")
        generations = tuple(
            PublishedGeneration(g["generation"], g["published"], g["index_id"], g["corpus_root"], g["manifest_sha256"])
            for g in state["generations"]
        )
        return state["current"], generations

    def generation_for(self, generation: int | None = None, as_of: str | datetime | None = None) -> PublishedGeneration:
        """The current generation, generation ``generation``, or the one that
        was current at ``as_of`` (the latest published at or before it)."""
        current, generations = self.history()
        if generation is not None and as_of is not None:
            raise InputError("give a generation or a time (--as-of), not both")
        if generation is not None:
            for entry in generations:
                if entry.number == generation:
                    return entry
            kept = ", ".join(str(g.number) for g in generations)
            raise InputError(f"{self.root}: generation {generation} is not retained (kept: {kept})")
        if as_of is not None:
            moment = parse_timestamp(as_of) if isinstance(as_of, str) else as_of  # format_timestamp rejects naive times
            wanted = format_timestamp(moment)
            earlier = [g for g in generations if g.published <= wanted]
            if not earlier:
                first = generations[0].published if generations else "never"
                raise InputError(f"{self.root}: no generation was published by {wanted} (oldest retained: {first})")
            return max(earlier, key=lambda g: (g.published, g.number))
        return next(g for g in generations if g.number == current)

    def load(self, generation: int | None = None, as_of: str | datetime | None = None) -> tuple[PublishedGeneration, InvertedIndex]:
        """Load and verify (sizes and SHA-256 of every file) one generation.
        A generation pruned by a writer between reading ``CURRENT`` and
        reading its files is not damage: the lookup is made again."""
        for _attempt in range(3):
            entry = self.generation_for(generation, as_of)
            try:
                return entry, self._load_generation(entry)
            except CorruptIndexError:
                _current, retained = self.history()
                if any(g == entry for g in retained):
                    raise  # still published: real damage
        raise CorruptIndexError(f"{self.root}: generations keep disappearing while being read (a writer is pruning)")

    def _load_generation(self, entry: PublishedGeneration) -> InvertedIndex:
        directory = self.generation_path(entry.number)
        where = directory / codec.MANIFEST
        _check_regular_file(where, MAX_MANIFEST_BYTES)
        manifest, manifest_bytes = codec.read_manifest(directory)
        if hashlib.sha256(manifest_bytes).hexdigest() != entry.manifest_sha256:
            raise CorruptIndexError(f"{where}: SHA-256 does not match {self.root / CURRENT} (altered or swapped)")
        inverted = open_generation_files(directory, manifest, self.memory_map)
        if inverted.index_id != entry.index_id or inverted.corpus_root != entry.corpus_root:
            raise CorruptIndexError(f"{directory / codec.MANIFEST}: index id or corpus root differ from {self.root / CURRENT}")
        return inverted

    def generation_path(self, number: int) -> Path:
        return self.root / GENERATIONS / f"{number:06d}"

    # writing --------------------------------------------------------------
    @contextmanager
    def writer_lock(self) -> Iterator[None]:
        """Exclusive, non-blocking writer lock (``LockedError`` if held)."""
        path = self.root / LOCK
        try:
            writes.make_directory(self.root, parents=True, exist_ok=True)
            descriptor = io_files.open_file(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise writes.write_failure(error, "nothing was published", path) from None
        try:
            try:
                acquired = locks.acquire(descriptor, locks.EXCLUSIVE)
            except OSError as error:
                raise InputError(f"{path}: cannot lock ({error.strerror or error}); nothing was published") from None
            if not acquired:
                raise LockedError(f"{path}: another process is writing to this index; try again when it has finished")
            try:
                yield
            finally:
                locks.release(descriptor)
        finally:
            io_files.close(descriptor)

    def publish(self, inverted: InvertedIndex, engine_version: str, keep: int | None = None,
                now: datetime | None = None, **options: Any) -> PublishedGeneration:
        """Write ``inverted`` as a new generation and make it current.
        ``keep``: retain only the newest ``keep`` generations (default: all);
        ``options`` as for ``commit``."""
        return self.commit(inverted, engine_version, keep, now, **options).generation

    def commit(self, inverted: InvertedIndex, engine_version: str, keep: int | None = None,
               now: datetime | None = None, *, base: int | None = None, protect: Iterable[int] = (),
               limits: Limits | None = None, allow_clock_skew: bool = False, shards: int | None = None, attached: dict[str, bytes] | None = None) -> Publication:
        """``publish``, and what it did (``Publication``: pruned generations).
        ``shards``: write ``inverted``'s documents as a sharded generation of that many shards.

        ``base``: publish only if generation ``base`` (0: none) is still
        current, else ``StaleBaseError`` (an update computed from an older
        generation must not revert a newer one); None publishes regardless.
        ``protect``: generation numbers ``keep`` never prunes. ``limits``: the
        caps checked before anything is written (default ``Limits()``).
        ``allow_clock_skew``: publish even when the clock is more than
        ``publishing.CLOCK_SKEW_TOLERANCE`` behind the newest stamp. ``attached``: see ``attachments``."""
        publishing.check_publish_arguments(keep, base, now)
        links: dict[str, Path] = {}
        if shards is not None:  # docs/index-format.md, "Sharded generations"
            from regrag.index.shard_generation import sharded_files_of

            inverted = sharded_files_of(inverted, shards, engine_version, limits)  # type: ignore[assignment]
            files = inverted.files  # type: ignore[attr-defined]
        elif isinstance(inverted, SegmentedIndex):  # segments kept from earlier generations are linked, not copied
            files, links = serialise_segmented(inverted, engine_version, limits)
        else:
            files = codec.serialise(inverted, engine_version, limits)  # LimitError before anything is written
        with self.writer_lock():
            return self._publish_locked(inverted, attachments.attach(files, attached or {}), keep, now, base, frozenset(protect), allow_clock_skew, links)

    def current_number(self) -> int:
        """The current generation, or 0 when the directory has none yet."""
        if not io_files.exists(self.root / CURRENT):
            return 0
        return self.history()[0]

    def _publish_locked(self, inverted: InvertedIndex | None, files: dict[str, bytes] | Callable[[Path], Any],
                        keep: int | None, now: datetime | None, base: int | None, protect: frozenset[int],
                        allow_clock_skew: bool, links: dict[str, Path] | None = None) -> Publication:
        """Check, write, rename, commit ``CURRENT``, prune. Every check (base,
        clock, caps) is made before anything is written. A write that fails
        before the commit (a full disk, an I/O error), or an interruption
        (Ctrl-C) before it, removes what it wrote: the previous generation
        stays current; a write failure is an ``InputError`` naming the file.
        ``files`` may be ``write(directory)``, which writes the generation and
        returns its ``index_id``, ``corpus_root`` and ``manifest`` bytes
        (``regrag.index.bounded_build.commit_written``; ``inverted`` None)."""
        generations_dir = self.root / GENERATIONS
        pending = self.root / (CURRENT + ".tmp")
        current = 0
        history: tuple[PublishedGeneration, ...] = ()
        written: list[Path] = []  # the new generation's directory, under its temporary then final name
        state_bytes = b""
        if io_files.exists(self.root / CURRENT):
            current, history = self.history()
        publishing.check_base(self.root, current, base)
        try:
            writes.make_directory(generations_dir, exist_ok=True)
            self._remove_leftovers(generations_dir)
            existing = [int(name) for name in io_files.names_in(generations_dir) if _GENERATION_NAME.match(name)]
            number = max([current, *existing, *(g.number for g in history)]) + 1
            if number > MAX_GENERATION:
                raise InputError(f"{self.root}: generation {number} would exceed {MAX_GENERATION:,}, the largest "
                                 "generation number readers accept; nothing was published. Re-index into a new directory")
            newest = (history[-1].number, history[-1].published) if history else None
            published = publishing.next_stamp(self.root, newest, now or clock_now(),
                                              allow_clock_skew, format_timestamp)
            def entry_and_state(index_id: str, corpus_root: str, manifest: bytes):
                entry = PublishedGeneration(number, published, index_id, corpus_root, hashlib.sha256(manifest).hexdigest())
                retained, pruned, protected = publishing.retained_after(history, entry, keep, protect)
                state = {"current": number, "format": STORE_FORMAT, "generations": [g.to_dict() for g in retained]}
                state["checksum"] = state_checksum(state)
                return entry, retained, pruned, protected, canonical_bytes(state) + b"\n"

            if callable(files):  # written below: the same sizes (hex digests) stand in for the size check
                entry, retained, pruned, protected, state_bytes = entry_and_state("0" * 64, "0" * 64, b"")
            else:
                entry, retained, pruned, protected, state_bytes = entry_and_state(
                    inverted.index_id, inverted.corpus_root, files[codec.MANIFEST])
            if len(state_bytes) > MAX_CURRENT_BYTES:  # readers would refuse it, and every command after it
                raise InputError(
                    f"{self.root / CURRENT}: would be {len(state_bytes):,} bytes with {len(retained):,} generations, "
                    f"more than the {MAX_CURRENT_BYTES:,} readers accept; nothing was published. "
                    "Retain fewer generations (--keep N)"
                )

            temporary = generations_dir / f".tmp-{number:06d}-{os.getpid()}"
            writes.make_directory(temporary)
            written.append(temporary)
            if callable(files):  # the bounded build writes the generation itself
                result = files(temporary)
                identity = (result.index_id, result.corpus_root, result.manifest)
            else:
                if links or any("/" in name for name in files):
                    segment_directories(temporary, files, links or {})
                codec.write_files(temporary, files)
                if links or any("/" in name for name in files):
                    sync_segment_directories(temporary, files, links or {})
                identity = (inverted.index_id, inverted.corpus_root, files[codec.MANIFEST])
            # every publish stores the entity table of what it wrote (docs/entities.md)
            amended = entity_files.attach_table(temporary, identity[2])
            entry, retained, pruned, protected, state_bytes = entry_and_state(identity[0], identity[1], amended)
            final = self.generation_path(number)
            writes.rename(temporary, final)
            written.append(final)
            codec.fsync_directory(generations_dir)

            writes.write_file(pending, state_bytes, replace=True)
            writes.rename(pending, self.root / CURRENT)  # the commit point
        except BaseException as error:
            if isinstance(error, OSError) or not self._committed(state_bytes):
                for path in reversed(written):  # never published: remove it now (or the next publish will)
                    io_files.remove_tree(path)
                writes.remove_quietly(pending)
            if not isinstance(error, OSError):
                raise  # a refusal (InputError) or an interruption (KeyboardInterrupt), after cleaning up
            still = f"generation {current} is still current" if current else "the directory still has no generation"
            raise writes.write_failure(error, f"nothing was published ({still})", generations_dir) from None
        try:
            codec.fsync_directory(self.root)
        except OSError as error:
            raise InputError(
                f"{self.root}: generation {number} was published, but the directory could not be flushed to disk "
                f"({writes.describe(error)}): the publication may not survive a crash"
            ) from None

        kept_numbers = {g.number for g in retained}
        try:
            for name in io_files.names_in(generations_dir):
                if _GENERATION_NAME.match(name) and int(name) not in kept_numbers:
                    io_files.remove_tree(generations_dir / name)
        except OSError:
            pass  # pruning is tidying: what is left is pruned by the next publish
        return Publication(entry, current, pruned, protected)

    def _committed(self, state_bytes: bytes) -> bool:
        """Whether ``CURRENT`` already holds ``state_bytes`` (an interruption
        right after the commit point must not remove the published
        generation); when in doubt, yes (the next publish removes leftovers)."""
        if not state_bytes:
            return False
        try:
            return _read_small_file(self.root / CURRENT, MAX_CURRENT_BYTES) == state_bytes
        except FileNotFoundError:
            return False
        except (OSError, CorruptIndexError):
            return True

    def _remove_leftovers(self, generations_dir: Path) -> None:
        """Temporary directories of writers that crashed (we hold the lock)."""
        for name in io_files.names_in(generations_dir):
            if name.startswith(".tmp-"):
                io_files.remove_tree(generations_dir / name)
        pending = self.root / (CURRENT + ".tmp")
        if io_files.exists(pending):
            io_files.remove(pending)


def _read_small_file(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes.
    ``CorruptIndexError`` for a directory, FIFO, device or larger file (opened
    without blocking, so a FIFO cannot hang the reader); ``OSError`` when it
    cannot be opened or read."""
    descriptor = io_files.open_without_blocking(path)
    try:
        _check_mode(path, io_files.status(descriptor), limit)
        data = io_files.read_up_to(descriptor, limit + 1)
        if len(data) > limit:
            raise CorruptIndexError(f"{path}: larger than {limit:,} bytes (damaged)")
        return data
    finally:
        io_files.close(descriptor)
