"""``regrag search --topics FILE --output RUN --hits N``: a TREC run file for a topics file,
in this process or on Spark (``--spark``), the same bytes either way (docs/distributed.md)."""

from __future__ import annotations

import argparse

from regrag.cli.options import load_index
from regrag.cli.spark_options import add_spark_options, spark_ranker
from regrag.cli.status import ExitStatus
from regrag.errors import InputError
from regrag.retrieval.methods import VECTOR_METHODS


def add_topics_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--topics", metavar="FILE", default=None,
                        help="batch search: a BEIR queries.jsonl (or folder) or TSV id<TAB>text; instead of QUERY")
    parser.add_argument("--output", metavar="RUN", default=None, help="with --topics: the TREC run file to write")
    parser.add_argument("--hits", type=int, default=1000, metavar="N",
                        help="with --topics: results per topic (default 1000)")
    parser.add_argument("--unit", choices=("document", "passage"), default="document",
                        help="with --topics: rank documents (each at its best passage, default) or passages")
    add_spark_options(parser)


def check_single_query(arguments: argparse.Namespace) -> None:
    """Refuse the batch options on a one-query search."""
    if arguments.query is None:
        raise InputError("give a QUERY or --topics FILE")
    given = [f"--{name}" for name in ("output", "spark", "partitions") if getattr(arguments, name) is not None]
    if given:
        raise InputError(f"{', '.join(given)} applies to --topics FILE")


def run_batch_search(arguments: argparse.Namespace) -> int:
    from regrag.distributed.batch_search import search_run, write_run
    from regrag.distributed.topics import load_topics

    if arguments.query is not None:
        raise InputError("give a QUERY or --topics FILE, not both")
    if arguments.output is None:
        raise InputError("--topics needs --output RUN (the TREC run file to write)")
    if arguments.method in VECTOR_METHODS:
        raise InputError(f"--topics ranks with bm25, tfidf or hybrid, not {arguments.method}")
    if arguments.json or arguments.ledger:
        raise InputError("--json and --ledger apply to a single QUERY, not to --topics")
    topics = load_topics(arguments.topics)
    index = load_index(arguments)
    run = search_run(spark_ranker(arguments, index), topics, arguments.hits, arguments.method, arguments.unit)
    write_run(arguments.output, run, f"regrag-{arguments.method}")
    lines = sum(len(hits) for hits in run.values())
    print(f"{len(topics)} topics  ·  {lines} lines  ·  index {index.index_id[:16]}  ·  method {arguments.method} "
          f"-> {arguments.output}")
    return ExitStatus.OK
