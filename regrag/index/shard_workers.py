"""``regrag index --shards S --workers N``: phases A and C of a sharded build
in N processes (``regrag.index.parallel``'s process pool: forked where
safe, else spawned). Workers exchange only the phases' canonical bytes;
results are taken in a fixed order (ranges, then shard numbers), so the
bytes are those of one process (tests/index/test_shards.py)."""

from __future__ import annotations

from collections.abc import Sequence

from regrag.corpus.model import Document
from regrag.index.parameters import IndexParameters
from regrag.text.analyzer import Analyzer

_INPUTS: tuple = ()


def _set_inputs(*inputs) -> None:
    global _INPUTS
    _INPUTS = inputs


def _analyse(start: int, end: int) -> list[tuple[int, bytes]]:
    from regrag.index.shard_phases import analyse_partition

    documents, analyzer, parameters, shards, limits = _INPUTS
    return analyse_partition(documents[start:end], analyzer, parameters, shards, limits)


def _build(shard: int, records: list[bytes], statistics: bytes) -> dict[str, bytes]:
    from regrag.index.shard_phases import build_shard

    _documents, analyzer, parameters, _shards, limits = _INPUTS
    return build_shard(shard, records, statistics, analyzer, parameters, limits)


def _pool(documents, analyzer, parameters, shards, limits, workers):
    from concurrent.futures import ProcessPoolExecutor

    from regrag.index.parallel import _context

    return ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_set_inputs,
                               initargs=(documents, analyzer, parameters, shards, limits))


def analyse_in_workers(documents: Sequence[Document], analyzer: Analyzer, parameters: IndexParameters, shards: int,
                       limits, workers: int) -> list[tuple[int, bytes]]:
    """Phase A over contiguous ranges of ``documents`` in ``workers`` processes:
    the (shard, record) pairs sorted by (shard, document id)."""
    from concurrent.futures.process import BrokenProcessPool

    from regrag.index.parallel import WorkerError, range_bounds

    bounds = range_bounds(documents, workers)
    try:
        with _pool(documents, analyzer, parameters, shards, limits, len(bounds)) as pool:
            futures = [pool.submit(_analyse, start, end) for start, end in bounds]
            keyed = [pair for future in futures for pair in future.result()]
    except BrokenProcessPool as error:
        raise WorkerError(f"an indexing worker process died before it finished ({error}); nothing was built") from None
    keyed.sort(key=lambda pair: pair[0])  # stable: within a shard, ranges ascend by id, so ids stay sorted
    return keyed


def build_in_workers(grouped: dict[int, list[bytes]], statistics: bytes, analyzer: Analyzer,
                     parameters: IndexParameters, limits, workers: int) -> dict[int, dict[str, bytes]]:
    """Phase C of every shard, in ``workers`` processes."""
    from concurrent.futures.process import BrokenProcessPool

    from regrag.index.parallel import WorkerError

    try:
        with _pool((), analyzer, parameters, len(grouped), limits, workers) as pool:
            futures = {shard: pool.submit(_build, shard, grouped[shard], statistics) for shard in sorted(grouped)}
            return {shard: futures[shard].result() for shard in sorted(futures)}
    except BrokenProcessPool as error:
        raise WorkerError(f"an indexing worker process died before it finished ({error}); nothing was built") from None
