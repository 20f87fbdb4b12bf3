"""``regrag index CORPUS --out DIR --spark [MASTER] --shards S``: the sharded build's phases on Spark.

The driver checks the corpus and its ids; a streamed corpus (a ``.jsonl`` file or a BEIR
folder, ``regrag.corpus.stream``) is then read by the executors themselves, in contiguous
splits (``corpus_splits``: the driver keeps ids and byte offsets, never the documents);
any other corpus is loaded on the driver and handed to Spark. Then
- phase A, on the executors: the documents, partitioned by a SHA-256 of
  their id (``KeyPartitioner``), are analysed by ``analyse_partition`` into
  (shard, canonical record bytes) pairs;
- phase B: each partition's exact partial statistics (``partial_statistics``:
  integers and a fraction) are combined by ``treeReduce(merge_partials)``,
  associative and commutative, so any tree gives the same bytes; the driver
  rounds once (``reduce_statistics``);
- phase C, on the executors: the records partitioned by shard (the key is the
  shard number, partitioned by identity), each shard's files built by
  ``build_shard`` with the broadcast global statistics (canonical bytes) and,
  given a staging folder (``regrag.index.shard_staging``, in the index
  directory every executor sees), written there by the task itself, which
  returns only each file's (name, size, SHA-256); without one, returned as
  bytes through ``collect`` (the driver then holds the whole generation);
- the driver publishes them atomically (``commit_staged`` or ``commit_sharded``,
  the ``CURRENT`` commit).

Every task is a pure function of its partition and checks that its executor
runs the driver's Python, regrag and analyzer (``worker_identity``); what
crosses between tasks and the driver is canonical bytes, so a retried or
re-split task cannot change a byte.
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator, Sequence

from regrag.corpus.stream import StreamedDocuments
from regrag.distributed.corpus_splits import corpus_splits
from regrag.distributed.partitioning import KeyPartitioner
from regrag.errors import InputError, RegragError


def build_on_spark(documents: Iterable, analyzer, parameters, shards: int, master: str | None = None,
                   partitions: int | None = None, limits=None, carried: Sequence[tuple] = (),
                   skip: frozenset[str] = frozenset(), staging: str | os.PathLike[str] | None = None):
    """Phases A, B and C on Spark: ``(shard_files, statistics)``, the same bytes as
    ``regrag.index.sharded.build_sharded`` in one process. ``carried`` (an
    update): (shard, segment directory, name, ``segment.json`` record) of the
    previous generation's segments, on storage every executor reads; their
    documents whose id is not in ``skip`` keep their records, recovered on
    the executors (``shard_update.segment_records``), and only ``documents``
    are analysed. ``staging`` (``shard_staging.new_staging``'s folder, on
    storage every executor sees): the tasks write each shard's files there and
    ``shard_files`` maps each shard to its sorted (name, size, SHA-256) instead
    of its bytes (publish with ``shard_staging.commit_staged``)."""
    from regrag.distributed.spark_jobs import collect, spark_context
    from regrag.distributed.worker_identity import environment_identity
    from regrag.index.build import unique_documents
    from regrag.index.shard_phases import build_shard, check_shard_count, merge_partials, reduce_statistics
    from regrag.index.shard_staging import stage_shard

    check_shard_count(shards)
    streamed = isinstance(documents, StreamedDocuments)  # ids checked unique by its scan
    by_id = None if streamed else unique_documents(documents, limits)
    context = spark_context(master, "regrag index")
    count = partitions or context.defaultParallelism
    if count < 1:
        raise InputError(f"--partitions must be >= 1, got {count}")
    expected = environment_identity(analyzer.name)
    task = _Phase(analyzer.name, parameters, shards, expected, limits)
    if by_id is None:  # the executors read the corpus file: the driver holds ids and offsets only
        splits = corpus_splits(documents, count) or []
        records = context.parallelize(splits, max(1, len(splits))).mapPartitionsWithIndex(task.analyse_splits)
    else:
        keyed = context.parallelize([(key, by_id[key]) for key in sorted(by_id)], count)
        del by_id
        records = keyed.partitionBy(count, KeyPartitioner(count)).mapPartitionsWithIndex(task.analyse)
    if carried:
        segments = context.parallelize(sorted(carried, key=lambda entry: (entry[0], entry[2])), len(carried))
        records = records.union(segments.mapPartitionsWithIndex(_Recovery(task, context.broadcast(sorted(skip)))))
    from pyspark import StorageLevel  # importable: spark_context checked

    records = records.persist(StorageLevel.MEMORY_AND_DISK)  # spilled to local disk, never recomputed
    try:
        partial = _checked(lambda: records.mapPartitionsWithIndex(task.partial).treeReduce(merge_partials))
        statistics = reduce_statistics([partial], analyzer, parameters, shards)
        shared = context.broadcast(statistics.to_bytes())
        target = None if staging is None else os.fspath(staging)
        # partitionBy, not groupByKey: its map-side combine makes one list of a partition's records per
        # shard, which pyspark moves to the JVM as one serialized object (a 1 GB heap ran out on it at
        # S = 1, docs/distributed.md, "Memory"); partitionBy moves them in batches of about 1-10 MB
        built = records.partitionBy(shards, _shard_number).mapPartitionsWithIndex(_ShardBuilder(task, shared, target))
        files = {shard: (named if target else dict(named)) for shard, named in collect(built)}
    finally:
        records.unpersist()
    for shard in range(shards):  # a shard no document hashes to still has its (empty) files
        if shard not in files:
            empty = build_shard(shard, [], statistics, analyzer, parameters, limits)
            files[shard] = empty if target is None else stage_shard(target, shard, empty, f"driver-{os.getpid()}")
    return files, statistics


def _shard_number(shard: int) -> int:
    """Phase C's partitioner: the key already is the shard number (never Python's ``hash()``)."""
    return shard


def _checked(job):
    """Run ``job`` (an action other than ``collect``), a failed task reported as ``collect`` does."""
    from regrag.distributed.spark_jobs import reason_of

    try:
        return job()
    except RegragError:
        raise
    except Exception as error:  # noqa: BLE001 (Py4JJavaError, PythonException)
        raise RegragError(f"the Spark job failed: {reason_of(str(error))}") from None


class _Phase:
    """What every task of the build shares: the analyzer's name, the parameters, S, the driver's identity."""

    def __init__(self, analyzer_name: str, parameters, shards: int, expected: dict, limits) -> None:
        self.analyzer_name, self.parameters, self.shards = analyzer_name, parameters, shards
        self.expected, self.limits = expected, limits

    def start(self, partition: int):
        """The executor checked, the injected first-attempt failure (testing), the analyzer."""
        from regrag.distributed.spark_jobs import fail_on_first_attempt
        from regrag.distributed.worker_identity import check_executor
        from regrag.text.analyzer import Analyzer

        check_executor(self.expected, self.analyzer_name)
        fail_on_first_attempt(partition)
        return Analyzer(self.analyzer_name)

    def analyse(self, partition: int, documents: Iterator) -> Iterator[tuple[int, bytes]]:
        """Phase A over one partition: (shard, record bytes), sorted by (shard, document id)."""
        from regrag.index.shard_phases import analyse_partition

        analyzer = self.start(partition)
        ordered = [document for _key, document in sorted(documents, key=lambda pair: pair[0])]
        yield from _guarded(lambda: analyse_partition(ordered, analyzer, self.parameters, self.shards, self.limits))

    def analyse_splits(self, partition: int, splits: Iterator) -> Iterator[tuple[int, bytes]]:
        """Phase A over corpus splits this task reads from the corpus file itself (``corpus_splits``)."""
        from regrag.distributed.corpus_splits import split_documents
        from regrag.index.shard_phases import analyse_partition

        analyzer = self.start(partition)
        for split in splits:
            yield from _guarded(lambda: analyse_partition(split_documents(split), analyzer, self.parameters,
                                                          self.shards, self.limits))

    def partial(self, partition: int, records: Iterator[tuple[int, bytes]]) -> Iterator[bytes]:
        """Phase B's leaves: one exact partial per partition (an empty partition's too)."""
        from regrag.index.shard_phases import partial_statistics

        self.start(partition)
        yield from _guarded(lambda: [partial_statistics(sorted(data for _shard, data in records))])


class _Recovery:
    """An update's carried records: each listed segment's documents not in ``skip``, as (shard, record bytes)."""

    def __init__(self, phase: _Phase, skip) -> None:
        self.phase, self.skip = phase, skip

    def __call__(self, partition: int, entries: Iterator) -> Iterator[tuple[int, bytes]]:
        from pathlib import Path

        from regrag.index.segment_view import open_segment
        from regrag.index.shard_update import segment_records

        self.phase.start(partition)
        skip = frozenset(self.skip.value)
        for shard, directory, name, record in entries:
            segment = _guarded(lambda: open_segment(name, record, Path(directory)))
            yield from ((shard, data) for _key, data in _guarded(lambda: list(segment_records(segment, skip))))


class _ShardBuilder:
    """Phase C over one partition of shards: each shard's files, as sorted (name, bytes) pairs;
    with a staging folder, written there and listed as sorted (name, size, SHA-256)."""

    def __init__(self, phase: _Phase, statistics, staging: str | None = None) -> None:
        self.phase, self.statistics, self.staging = phase, statistics, staging

    def __call__(self, partition: int, pairs: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, list[tuple]]]:
        from regrag.distributed.spark_jobs import fail_on_first_attempt
        from regrag.index.shard_phases import build_shard

        analyzer = self.phase.start(partition)
        grouped: dict[int, list[bytes]] = {}
        for shard, data in pairs:  # the partition of shard ``partition`` (the partitioner is the identity)
            grouped.setdefault(shard, []).append(data)
        for shard in sorted(grouped):
            records = sorted(grouped.pop(shard))
            files = _guarded(lambda: build_shard(shard, records, self.statistics.value, analyzer,
                                                 self.phase.parameters, self.phase.limits))
            if self.staging is None:
                yield shard, sorted(files.items())
                continue
            listed = _staged(self.staging, shard, files, _attempt())
            del files
            fail_on_first_attempt(partition, staged=True)
            yield shard, listed


def _staged(staging: str, shard: int, files: dict, attempt: str) -> list[tuple[str, int, str]]:
    from regrag.index.shard_staging import stage_shard

    return _guarded(lambda: stage_shard(staging, shard, files, attempt))


def _attempt() -> str:
    """A name unique to this task attempt (Spark's task attempt id, this worker's process id)."""
    from pyspark import TaskContext

    task = TaskContext.get()
    return f"{task.taskAttemptId() if task is not None else 'driver'}-{os.getpid()}"


def _guarded(work):
    """``work()``, a ``RegragError`` re-raised so the driver shows its message alone."""
    from regrag.distributed.spark_jobs import task_error

    try:
        return work()
    except RegragError as error:
        raise task_error(error) from None
