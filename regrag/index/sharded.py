"""The Python API of sharded generations (docs/index-format.md, "Sharded
generations"): ``build_sharded`` (phases A, B and C in this process),
``publish_sharded`` / ``commit_sharded`` (the store's atomic ``CURRENT``
commit), ``commit_staged`` (the same commit of shard files staged in the
index directory, ``regrag.index.shard_staging``), and ``ShardedIndex``,
what ``Index.open`` gives for one. The phases themselves are in
``regrag.index.shard_phases``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from regrag.index.parameters import IndexParameters
from regrag.index.shard_generation import (  # noqa: F401 (the API, in one place)
    SHARDED_FORMAT, ShardedFiles, ShardedIndex, build_sharded, load_sharded, shard_folder, sharded_files,
)
from regrag.index.shard_staging import (  # noqa: F401 (shard files staged by the tasks that build them)
    check_staged, commit_staged, new_staging, remove_staging, stage_shard,
)
from regrag.index.shard_statistics import GlobalStatistics
from regrag.text.analyzer import Analyzer


def publish_sharded(directory: str | Path, shard_files: Mapping[int, Mapping[str, bytes]],
                    statistics: GlobalStatistics, analyzer: Analyzer, parameters: IndexParameters,
                    keep: int | None = None, engine_version: str | None = None):
    """Write a sharded generation into index directory ``directory`` and make
    it current with the store's atomic ``CURRENT`` commit (returns the
    ``PublishedGeneration``)."""
    from regrag.index.directory import IndexStore

    return commit_sharded(IndexStore(directory), shard_files, statistics, analyzer, parameters, keep=keep,
                          engine_version=engine_version).generation


def commit_sharded(store, shard_files: Mapping[int, Mapping[str, bytes]], statistics: GlobalStatistics,
                   analyzer: Analyzer, parameters: IndexParameters, keep: int | None = None, *,
                   base: int | None = None, protect: Iterable[int] = (), allow_clock_skew: bool = False,
                   engine_version: str | None = None):
    """``publish_sharded`` into an ``IndexStore`` with ``IndexStore.commit``'s
    options (``base``, ``protect``, ``allow_clock_skew``): the ``Publication``."""
    from regrag._version import __version__
    from regrag.index import publishing

    written = sharded_files(shard_files, statistics, analyzer, parameters, engine_version or __version__)
    publishing.check_publish_arguments(keep, base, None)
    with store.writer_lock():
        return store._publish_locked(written, written.files, keep, None, base, frozenset(protect), allow_clock_skew)
