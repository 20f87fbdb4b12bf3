"""Dense vectors stored in the generation they belong to (docs/dense.md, "Storage").

A generation with vectors carries ``dense/vectors.i8``, ``dense/text_sha256.bin``
and ``dense/manifest.json`` (``regrag.dense.store``) as attached files: its
``manifest.json`` lists and checksums them (``regrag.index.attachments``),
``CURRENT`` holds that manifest's SHA-256, ``regrag verify`` checks every
byte, and pruning the generation removes them. One file for the whole
generation holds a row per live passage in global position order, also for
a segmented generation (whose positions are a rebuild's): vectors follow
the global order rather than the segments, so scoring needs no mapping and
an update writes every live row again (384 bytes a passage with e5), of
which only new and changed passages are embedded.

``regrag embed DIR`` publishes a new generation: the current one's index
(same files, same index id) with vectors attached. ``regrag index --update``
on a directory whose current generation has vectors carries them over:
rows of unchanged passages are reused, new and changed passages are embedded
by the embedder the stored identity names (``carried_over``).
"""

from __future__ import annotations

import hashlib
import os
import sys
from typing import Any, Callable, Iterable

from regrag.dense.store import (
    MANIFEST, TEXT_HASHES, VECTORS, CorruptDenseError, DenseVectors, embed_index, file_blobs, from_files,
)
from regrag.errors import CorruptIndexError, InputError, RegragError

FOLDER = "dense"
NAMES = (MANIFEST, TEXT_HASHES, VECTORS)


def attached_files(vectors: DenseVectors) -> dict[str, bytes]:
    """The files a generation carries for ``vectors``, by name within the generation."""
    return {f"{FOLDER}/{name}": blob for name, blob in sorted(file_blobs(vectors).items())}


def stored_in(directory: str | os.PathLike[str], entry: Any) -> DenseVectors | None:
    """The vectors generation ``entry`` (a ``PublishedGeneration``) of ``directory`` carries, every byte checked
    against its manifest (whose SHA-256 ``CURRENT`` holds); None when it carries none."""
    from regrag.index import attachments, codec
    from regrag.index.directory import IndexStore

    folder = IndexStore(directory).generation_path(entry.number)
    manifest, data = codec.read_manifest(folder)
    if hashlib.sha256(data).hexdigest() != entry.manifest_sha256:
        raise CorruptIndexError(f"{folder / codec.MANIFEST}: SHA-256 does not match {directory}/CURRENT (altered or swapped)")
    problem = attachments.problem(manifest)
    if problem:
        raise CorruptIndexError(f"{folder / codec.MANIFEST}: {problem}")
    listed = attachments.listed(manifest, FOLDER)
    if not listed:
        return None
    if sorted(listed) != sorted(NAMES):
        raise CorruptDenseError(f"{folder / codec.MANIFEST}: lists {', '.join(sorted(listed))} under {FOLDER}/, "
                                f"not the files of dense vectors ({', '.join(NAMES)})")
    blobs = {name: attachments.read_checked(folder, f"{FOLDER}/{name}", listed[name]) for name in NAMES}
    return from_files(blobs, str(folder / FOLDER))


def load(directory: str | os.PathLike[str], index: Any) -> DenseVectors:
    """The vectors of ``index`` (an ``Index`` opened from ``directory``): those its generation carries."""
    entry = index.generation
    if entry is None:
        raise InputError("dense vectors are read from the generation of an index directory (Index.open(DIR))")
    vectors = stored_in(directory, entry)
    if vectors is None:
        raise InputError(f"{directory}: generation {entry.number} has no dense vectors "
                         f"(store them with: regrag embed {directory})")
    if (vectors.index_id, vectors.corpus_root) != (index.index_id, index.corpus_root) \
            or vectors.passage_count != index.passage_count:
        raise CorruptDenseError(f"{directory}/generations/{entry.number:06d}/{FOLDER}/{MANIFEST}: made for another "
                                f"index (id {vectors.index_id[:16]})")
    return vectors


def previous(directory: str | os.PathLike[str], identity: dict[str, Any] | None = None) -> DenseVectors | None:
    """The vectors of the newest retained generation that carries some (made by ``identity``, when given): what
    an update or ``regrag embed`` reuses rows from. Damaged ones are passed over (their passages are re-embedded)."""
    from regrag.index.directory import IndexStore

    _current, generations = IndexStore(directory).history()
    for entry in reversed(generations):
        try:
            vectors = stored_in(directory, entry)
        except (CorruptIndexError, InputError, OSError):
            continue
        if vectors is not None and (identity is None or vectors.identity == identity):
            return vectors
    return None


def publish_vectors(directory: str | os.PathLike[str], index: Any, vectors: DenseVectors, keep: int | None = None,
                    protect: Iterable[int] = ()) -> Any:
    """Publish ``index`` (opened from ``directory``, still current) again, with ``vectors`` attached: the new
    generation has the same files and index id, and its manifest lists the vectors (a ``Publication``)."""
    from regrag.index.directory import IndexStore

    if (vectors.index_id, vectors.passage_count) != (index.index_id, index.passage_count):
        raise InputError(f"these vectors were made for index {vectors.index_id[:16]}, not {index.index_id[:16]}")
    base = index.generation.number if index.generation is not None else None
    return index.commit_to(IndexStore(directory), keep=keep, base=base, protect=tuple(protect),
                           attached=attached_files(vectors))


def carried_over(directory: str | os.PathLike[str], base: Any, updated: Any,
                 progress: Callable[[int, int], None] | None = None, embedder: Any = None) -> dict[str, bytes]:
    """The attached files an update of ``directory`` publishes: when generation ``base`` (the ``Index`` the
    update started from) carries vectors, the ``updated`` index's vectors, rows of unchanged passages reused
    and the rest embedded by the embedder the stored identity names; nothing otherwise. When that embedder
    cannot be made here, a warning says so and the new generation carries no vectors. ``embedder``: the one
    to use instead (tests)."""
    from regrag.adapters.choose import embedder_for

    if base.generation is None:
        return {}
    try:
        before = stored_in(directory, base.generation)
    except (CorruptIndexError, InputError) as error:
        print(f"regrag: warning: the dense vectors of generation {base.generation.number} were not carried over "
              f"({error}); store them again with: regrag embed {directory}", file=sys.stderr)
        return {}
    if before is None:
        return {}
    try:
        embedder = embedder if embedder is not None else embedder_for(before.identity)
    except RegragError as error:
        print(f"regrag: warning: the new generation carries no dense vectors: {error}; once the embedder is "
              f"installed, store them with: regrag embed {directory}", file=sys.stderr)
        return {}
    return attached_files(embed_index(updated, embedder, before, progress))


def identity_at(directory: str | os.PathLike[str], number: int | None) -> dict[str, Any] | None:
    """The embedder identity of the vectors generation ``number`` of ``directory`` carries (None when it
    carries none, is damaged, or there is no such generation): read before a full rebuild replaces it."""
    from regrag.index.directory import IndexStore

    if not number:
        return None
    try:
        _current, generations = IndexStore(directory).history()
        entry = next((e for e in generations if e.number == number), None)
        vectors = stored_in(directory, entry) if entry is not None else None
    except (CorruptIndexError, InputError, OSError):
        return None
    return None if vectors is None else vectors.identity


def publish_after_rebuild(directory: str | os.PathLike[str], identity: dict[str, Any], keep: int | None = None,
                          protect: Iterable[int] = (), progress: Callable[[int, int], None] | None = None,
                          embedder: Any = None) -> tuple[Any, int] | None:
    """After ``regrag index`` (a full rebuild) published a generation without vectors over one that had
    vectors of ``identity``: publish the new index again with vectors attached, rows of unchanged passages
    reused from the newest retained generation with vectors of that embedder, the rest embedded.
    ``(publication, rows reused)``; None, with a warning, when that embedder cannot be made here."""
    from regrag.adapters.choose import embedder_for
    from regrag.engine import Index

    try:
        embedder = embedder if embedder is not None else embedder_for(identity)
    except RegragError as error:
        print(f"regrag: warning: the previous generation's dense vectors were not carried over: {error}; once the "
              f"embedder is installed, store them with: regrag embed {directory}", file=sys.stderr)
        return None
    index = Index.open(directory)
    earlier = previous(directory, identity)
    vectors = embed_index(index, embedder, earlier, progress)
    reused = reused_rows(earlier, vectors)
    return publish_vectors(directory, index, vectors, keep=keep, protect=protect), reused


def reused_rows(earlier: DenseVectors | None, vectors: DenseVectors) -> int:
    """How many rows of ``vectors`` have a passage text hash that ``earlier`` has too (were not embedded)."""
    if earlier is None:
        return 0
    before = {earlier.text_hashes[p * 32 : p * 32 + 32] for p in range(earlier.passage_count)}
    return sum(1 for p in range(vectors.passage_count) if vectors.text_hashes[p * 32 : p * 32 + 32] in before)
