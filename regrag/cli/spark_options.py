"""``--spark [MASTER]`` and ``--partitions N``: the options of the commands that fan out on Spark.

``search --topics``, ``eval`` and ``golden record|verify`` take them; the
rankings are computed on Spark executors that open the same ``--index DIR``
(shared storage on a cluster) and come back byte-identical to one process
(docs/distributed.md).
"""

from __future__ import annotations

import argparse

from regrag.errors import InputError


def add_spark_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spark", nargs="?", const="", default=None, metavar="MASTER",
                        help="rank the queries on Apache Spark (pip install 'regrag[spark]'): MASTER such as "
                             "local[2] or spark://host:7077; without it, what spark-submit configured, else local[*]. "
                             "Needs --index DIR on storage every executor reads; the output is the same, byte for byte")
    parser.add_argument("--partitions", type=int, default=None, metavar="N",
                        help="with --spark: split the queries into N partitions (default: Spark's default parallelism)")


def spark_ranker(arguments: argparse.Namespace, index):
    """``rank(requests) -> rankings``: on Spark with ``--spark``, else in this process."""
    from regrag.distributed.batch_search import rank_here

    options = search_options(arguments)
    if getattr(arguments, "spark", None) is None:
        if getattr(arguments, "partitions", None) is not None:
            raise InputError("--partitions applies to --spark")
        return lambda requests: rank_here(index, requests, options)
    from regrag.distributed.batch_search import rank_on_spark

    location = index_location(arguments, index)
    return lambda requests: rank_on_spark(location, requests, options, arguments.spark or None, arguments.partitions)


def index_location(arguments: argparse.Namespace, index):
    """Where the executors open the index: ``--index DIR`` at the generation the driver opened."""
    from regrag.distributed.batch_search import IndexLocation

    if getattr(arguments, "index", None) is None or index.generation is None:
        raise InputError("--spark needs --index DIR (a directory written by 'regrag index' on storage every "
                         "executor reads), not --corpus")
    if getattr(arguments, "partitions", None) is not None and arguments.partitions < 1:
        raise InputError(f"--partitions must be >= 1, got {arguments.partitions}")
    return IndexLocation(str(arguments.index), index.generation.number, index.index_id, index.analyzer.name)


def search_options(arguments: argparse.Namespace) -> dict:
    """The ranking options besides text, k and method that ``search`` takes (none for eval and golden)."""
    options = {}
    if getattr(arguments, "filter", None):
        options["filters"] = list(arguments.filter)
    if hasattr(arguments, "rrf_depth"):
        options["rrf_depth"] = arguments.rrf_depth
    if getattr(arguments, "no_entities", False):
        options["entities"] = False
    return options


def with_spark_rankings(arguments: argparse.Namespace, index, requests):
    """``index`` itself without ``--spark``; with it, ``index`` whose ``ranking``
    answers ``requests`` from rankings computed on Spark beforehand (``eval`` and ``golden``)."""
    if getattr(arguments, "spark", None) is None:
        if getattr(arguments, "partitions", None) is not None:
            raise InputError("--partitions applies to --spark")
        return index
    from regrag.distributed.batch_search import rank_on_spark
    from regrag.distributed.precomputed import PrecomputedRankings

    location = index_location(arguments, index)
    return PrecomputedRankings(index, rank_on_spark(location, list(requests), {}, arguments.spark or None,
                                                    arguments.partitions))
