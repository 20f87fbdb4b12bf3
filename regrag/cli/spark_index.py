"""``regrag index CORPUS --out DIR --spark [MASTER] --shards S``: build a sharded generation on
Spark and publish it from the driver (docs/distributed.md); the same bytes as one process.

``--spark-files storage`` (the default): the executors write the shard files into a staging
folder of ``DIR`` and the driver, which receives their names, sizes and SHA-256s only, checks
and publishes them (``regrag.index.shard_staging``); ``--spark-files driver``: the files come
back to the driver through Spark, for a ``DIR`` the executors cannot see."""

from __future__ import annotations

import argparse
import sys
import time

from regrag.cli.spark_options import add_spark_options
from regrag.cli.status import ExitStatus
from regrag.errors import InputError


def add_spark_index_options(parser: argparse.ArgumentParser) -> None:
    """``--spark [MASTER]``, ``--partitions N`` and ``--spark-files`` of ``index`` (``--shards S`` is ``index``'s own)."""
    add_spark_options(parser)
    parser.add_argument("--spark-files", choices=("storage", "driver"), default=None,
                        help="with --spark: how the shard files reach the index: 'storage' (the default) the "
                             "executors write them into --out DIR, which they must see at the driver's path "
                             "(shared storage; the driver receives sizes and SHA-256s only); 'driver' they come back "
                             "to the driver, which writes them (DIR on the driver only; its memory must hold the "
                             "whole generation)")


def _staging(arguments: argparse.Namespace, store):
    """The staging folder the executors write into (``--spark-files storage``), else None."""
    from regrag.index.shard_staging import new_staging

    return None if arguments.spark_files == "driver" else new_staging(store.root)


def run_spark_index(arguments: argparse.Namespace, store, load_corpus, refuse_empty) -> int:
    """The build on Spark and its publication; ``load_corpus``/``refuse_empty`` are ``index``'s own
    (the corpus read and checked as every ``regrag index`` does)."""
    from regrag.cli.options import analyzer, parameters
    from regrag.distributed.spark_build import build_on_spark
    from regrag.text.analyzer import Analyzer

    started = time.perf_counter()
    refused = [name for name, given in (("--ledger", arguments.ledger),
                                        ("--memory", arguments.memory is not None),
                                        ("--workers", arguments.workers != 1)) if given]
    if refused:
        raise InputError(f"{', '.join(refused)} cannot be combined with --spark (docs/distributed.md): "
                         "Spark's executors do the work")
    if arguments.partitions is not None and arguments.partitions < 1:
        raise InputError(f"--partitions must be >= 1, got {arguments.partitions}")
    if arguments.update:
        return run_spark_update(arguments, store, load_corpus, refuse_empty, started)
    shards = 1 if arguments.shards is None else arguments.shards
    base = store.current_number()
    corpus = load_corpus(arguments, arguments.corpus)
    refuse_empty(corpus, arguments)
    chosen = Analyzer(analyzer(arguments)), parameters(arguments)
    staging = _staging(arguments, store)
    try:
        files, statistics = build_on_spark(corpus.documents, *chosen, shards, arguments.spark or None,
                                           arguments.partitions, staging=staging)
        return _published(arguments, store, corpus, files, statistics, chosen, base, started, "built on Spark",
                          staging)
    finally:
        _removed(staging)


def run_spark_update(arguments: argparse.Namespace, store, load_corpus, refuse_empty, started: float) -> int:
    """``index --update --spark``: the current sharded generation updated on Spark, new and changed
    documents analysed on the executors, the others' records recovered there from its segments."""
    from regrag.cli.options import given_build_options
    from regrag.distributed.spark_build import build_on_spark
    from regrag.engine import Index
    from regrag.index import publishing
    from regrag.index.shard_update import changed_documents

    given = given_build_options(arguments) + (["--shards"] if arguments.shards is not None else [])
    if given:
        raise InputError(f"{', '.join(given)} cannot be combined with --update: the index keeps the analyzer, "
                         "parameters and shards it was built with")
    base = store.current_number()
    corpus = load_corpus(arguments, arguments.corpus)
    refuse_empty(corpus, arguments)
    current = Index.open(arguments.out)
    publishing.check_base(store.root, current.generation.number, base)
    inverted = current.inverted
    if not hasattr(inverted, "shard_views"):
        raise InputError(f"{arguments.out}: --update --spark updates a sharded generation (one written with "
                         "--shards or --spark); this one is not sharded")
    upserts, deletions = current.changes_to(corpus.documents)
    if not upserts and not deletions:
        print(f"no changes; generation {base} stays current (nothing was published or pruned)")
        return ExitStatus.OK
    publishing.check_deletions(store.root, base, len(deletions), current.document_count, arguments.allow_deletions)
    changed, skip = changed_documents(inverted, upserts, deletions, current.limits)
    carried = [(shard, str(segment.directory), segment.name, segment.record)
               for segment, shard in zip(inverted.segments, inverted.segment_shards)]
    chosen = inverted.analyzer, inverted.parameters
    staging = _staging(arguments, store)
    try:
        files, statistics = build_on_spark([changed[key] for key in sorted(changed)], *chosen, inverted.shard_count,
                                           arguments.spark or None, arguments.partitions, current.limits,
                                           carried=carried, skip=skip, staging=staging)
        return _published(arguments, store, corpus, files, statistics, chosen, base, started,
                          f"updated on Spark ({len(changed)} analysed)", staging)
    finally:
        _removed(staging)


def _removed(staging) -> None:
    """The staging folder removed, after a publish and after a failure alike."""
    if staging is not None:
        from regrag.index.shard_staging import remove_staging

        remove_staging(staging)


def _published(arguments, store, corpus, files, statistics, chosen, base: int, started: float, how: str,
               staging=None) -> int:
    from regrag.index.shard_staging import commit_staged
    from regrag.index.sharded import commit_sharded

    shards = statistics.shards
    options = {"keep": arguments.keep, "base": base, "allow_clock_skew": arguments.allow_clock_skew}
    if staging is None:
        result = commit_sharded(store, files, statistics, *chosen, **options)
    else:
        result = commit_staged(store, staging, files, statistics, *chosen, **options)
    generation = result.generation
    for path, why in corpus.skipped:
        print(f"regrag: note: not indexed: {path} ({why})", file=sys.stderr)
    print(f"generation {generation.number}  ·  {statistics.document_count} documents  ·  "
          f"{statistics.passage_count} passages  ·  {shards} shard(s), {how}")
    print(f"index id     {generation.index_id}")
    print(f"corpus root  {generation.corpus_root}")
    print(f"published    {generation.published}  ({time.perf_counter() - started:.2f} s)")
    if arguments.keep is not None:
        from regrag.index import publishing

        print(f"pruned       {publishing.numbers_text(result.pruned) if result.pruned else 'nothing'} (--keep {arguments.keep})")
    return ExitStatus.OK
