"""Ranking many queries at once, in this process or fanned out on Spark, with the same result.

A ``RankingRequest`` is one ``Index.ranking`` call (text, k, method); the
options every request shares (filters, RRF depth, entity step) travel with
the job. ``rank_here`` runs the requests in this process; ``rank_on_spark``
partitions them by a SHA-256 of their canonical key, each task opens the
index directory itself (the generation the driver fixed), checks that its
executor matches the driver (``worker_identity``) and that it opened the
same index id, and returns canonical JSON lines. The driver parses them
(JSON floats round-trip exactly) and keys them by request, so the rankings
are those of one process, bit for bit, whatever the partitions or retries.

``search_run`` and ``write_run`` make the TREC run file of
``regrag search --topics FILE --output RUN --hits N``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, Sequence

from regrag.audit.canonical import canonical_json
from regrag.distributed.partitioning import KeyPartitioner
from regrag.errors import InputError, RegragError
from regrag.limits import DEFAULT_LIMITS

Ranking = tuple[tuple[str, str, float], ...]


@dataclass(frozen=True, order=True)
class RankingRequest:
    """One ``Index.ranking(text, k=k, method=method)`` call."""

    text: str
    k: int
    method: str

    @property
    def key(self) -> str:
        """Canonical JSON of the request: its partition key and its sort key."""
        return canonical_json([self.method, self.k, self.text])


@dataclass(frozen=True)
class IndexLocation:
    """Where every executor opens the index: a directory on shared storage, one generation, its id."""

    directory: str
    generation: int
    index_id: str
    analyzer: str


def rank_here(index, requests: Iterable[RankingRequest], options: Mapping[str, Any]) -> dict[RankingRequest, Ranking]:
    """Each distinct request ranked by ``index`` in this process."""
    return {request: _ranking(index, request, options) for request in sorted(set(requests))}


def rank_on_spark(location: IndexLocation, requests: Iterable[RankingRequest], options: Mapping[str, Any],
                  master: str | None, partitions: int | None = None) -> dict[RankingRequest, Ranking]:
    """Each distinct request ranked on Spark executors; the same values as ``rank_here``."""
    from regrag.distributed.spark_jobs import collect, spark_context
    from regrag.distributed.worker_identity import environment_identity

    unique = sorted(set(requests))
    if not unique:
        return {}
    context = spark_context(master, "regrag batch search")
    count = partitions or context.defaultParallelism
    if count < 1:
        raise InputError(f"--partitions must be >= 1, got {count}")
    by_key = {request.key: request for request in unique}
    job = _RankingTask(location, dict(options), environment_identity(location.analyzer))
    records = context.parallelize([(key, [r.text, r.k, r.method]) for key, r in sorted(by_key.items())], count)
    lines = collect(records.partitionBy(count, KeyPartitioner(count)).mapPartitionsWithIndex(job))
    found: dict[RankingRequest, Ranking] = {}
    for line in lines:
        key, triples = json.loads(line)
        found[by_key[key]] = tuple((document, passage, float(score)) for document, passage, score in triples)
    if len(found) != len(unique):
        raise RegragError(f"the Spark job returned {len(found)} rankings for {len(unique)} requests")
    return found


class _RankingTask:
    """The function each Spark task runs over its partition: pure, given the index directory."""

    def __init__(self, location: IndexLocation, options: dict, expected: dict) -> None:
        self.location, self.options, self.expected = location, options, expected

    def __call__(self, partition: int, records: Iterator[tuple[str, list]]) -> Iterator[str]:
        from regrag.distributed.spark_jobs import fail_on_first_attempt, task_error
        from regrag.distributed.worker_identity import check_executor

        check_executor(self.expected, self.location.analyzer)
        fail_on_first_attempt(partition)
        try:
            index = _opened(self.location)
            for key, (text, k, method) in sorted(records):
                triples = _ranking(index, RankingRequest(text, k, method), self.options)
                yield canonical_json([key, [list(triple) for triple in triples]])
        except RegragError as error:
            raise task_error(error) from None


_OPEN_INDEXES: dict[IndexLocation, Any] = {}  # per Python worker: Spark reuses workers across tasks


def _opened(location: IndexLocation):
    from regrag.engine import Index

    index = _OPEN_INDEXES.get(location)
    if index is None:
        index = Index.open(location.directory, generation=location.generation)
        if index.index_id != location.index_id:
            raise RegragError(f"{location.directory} generation {location.generation} has index id "
                              f"{index.index_id} on this executor but {location.index_id} on the driver; "
                              "the executors must read the driver's index directory (shared storage)")
        _OPEN_INDEXES.clear()
        _OPEN_INDEXES[location] = index
    return index


def _ranking(index, request: RankingRequest, options: Mapping[str, Any]) -> Ranking:
    return tuple(index.ranking(request.text, k=request.k, method=request.method, **options))


# The TREC run file ----------------------------------------------------------------------


def search_run(rank, topics: Sequence[tuple[str, str]], hits: int, method: str, unit: str = "document"
               ) -> dict[str, list[tuple[str, float]]]:
    """Each topic's top ``hits`` ids and scores: documents (each at its best
    passage's score, as ``regrag eval`` ranks them) or passages. ``rank`` maps a
    list of ``RankingRequest`` to their rankings (``rank_here`` or ``rank_on_spark``,
    bound to an index); a topic with fewer than ``hits`` documents among its
    passages is asked again at twice the depth, until it has them, the
    ranking is exhausted or the depth reaches the limit on k."""
    if hits < 1:
        raise InputError(f"--hits must be >= 1, got {hits}")
    depth = {topic_id: hits for topic_id, _text in topics}
    run: dict[str, list[tuple[str, float]]] = {}
    pending = list(topics)
    while pending:
        rankings = rank([RankingRequest(text, depth[topic_id], method) for topic_id, text in pending])
        again = []
        for topic_id, text in pending:
            ranking = rankings[RankingRequest(text, depth[topic_id], method)]
            chosen = _best_per_document(ranking, hits) if unit == "document" else [(p, s) for _d, p, s in ranking]
            deeper = min(2 * depth[topic_id], DEFAULT_LIMITS.k)
            if len(chosen) < hits and len(ranking) == depth[topic_id] and deeper > depth[topic_id]:
                depth[topic_id] = deeper
                again.append((topic_id, text))
            else:
                run[topic_id] = chosen[:hits]
        pending = again
    return run


def _best_per_document(ranking: Ranking, hits: int) -> list[tuple[str, float]]:
    seen: set[str] = set()
    chosen = []
    for document, _passage, score in ranking:
        if document not in seen:
            seen.add(document)
            chosen.append((document, score))
            if len(chosen) == hits:
                break
    return chosen


def write_run(path: str, run: Mapping[str, Sequence[tuple[str, float]]], tag: str) -> None:
    """The run in TREC format (``regrag.eval.beir.write_run_trec``): topics by id, hits in rank order, repr scores."""
    from regrag.eval.beir import write_run_trec

    write_run_trec(path, run, tag)
