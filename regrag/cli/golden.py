"""``regrag golden record|verify``: record the canonical rankings of a query
set once, verify them forever (docs/golden.md)."""

from __future__ import annotations

import argparse

from regrag.cli.options import add_index_options, load_index
from regrag.cli.output import progress
from regrag.cli.spark_options import add_spark_options, with_spark_rankings
from regrag.cli.status import ExitStatus
from regrag.engine import Index
from regrag.retrieval.methods import METHODS


def register(commands) -> None:
    golden = commands.add_parser("golden", help="record rankings once, verify them forever (docs/golden.md)")
    golden_commands = golden.add_subparsers(dest="golden_command", required=True, parser_class=type(golden))
    record = golden_commands.add_parser("record", help="write the canonical rankings of a query set")
    record.add_argument("queries", help="a BEIR queries.jsonl (one {\"_id\", \"text\"} object per line), a BEIR folder, "
                                        "or a .txt file of one query per line (ids from the text's hash; docs/golden.md)")
    record.add_argument("--out", required=True, metavar="FILE")
    record.add_argument("--method", choices=METHODS + ("all",), default="all", help="retriever, or all three (default)")
    record.add_argument("-k", type=int, default=10, help="results per query (default 10)")
    add_index_options(record)
    add_spark_options(record)
    record.set_defaults(handler=run_record)
    check = golden_commands.add_parser("verify", help="re-run a golden file (exit 0 identical, 1 changed)")
    check.add_argument("golden_file", metavar="FILE")
    add_index_options(check)
    add_spark_options(check)
    check.set_defaults(handler=run_verify_golden)


class _CountingRankings:
    """``index`` for ``record_golden``, telling ``progress`` of each query once all its methods are ranked."""

    def __init__(self, index: Index, methods: int, queries: int, progress) -> None:
        self._index, self._methods, self._queries, self._progress = index, methods, queries, progress
        self._calls = 0

    def ranking(self, *args, **kwargs):
        result = self._index.ranking(*args, **kwargs)
        self._calls += 1
        if self._calls % self._methods == 0:
            self._progress(self._calls // self._methods, self._queries)
        return result

    def __getattr__(self, name: str):
        return getattr(self._index, name)


def run_record(arguments: argparse.Namespace) -> int:
    from regrag.audit import golden

    index = load_index(arguments)
    methods = METHODS if arguments.method == "all" else (arguments.method,)
    queries = golden.load_golden_queries(arguments.queries)
    index = with_spark_rankings(arguments, index, spark_requests(queries, methods, arguments.k))
    with progress(arguments, "recording", "queries", finishing="") as shown:
        recorded = golden.record_golden(_CountingRankings(index, len(methods), len(queries), shown),
                                        queries, methods=methods, k=arguments.k)
    golden.write_golden(arguments.out, recorded)
    print(f"recorded {len(queries)} queries × {len(methods)} method(s), top {arguments.k}, "
          f"index {index.index_id[:16]} -> {arguments.out}")
    return ExitStatus.OK


def run_verify_golden(arguments: argparse.Namespace) -> int:
    from regrag.audit import golden

    index = load_index(arguments)
    recorded = golden.read_golden(arguments.golden_file)
    queries = [(record["id"], record["text"]) for record in recorded["queries"]]
    index = with_spark_rankings(arguments, index, spark_requests(queries, recorded["methods"], recorded["k"]))
    report = golden.verify_golden(index, recorded)
    print(golden.format_report(report), end="")  # the report ends with its own newline
    return ExitStatus.OK if report.ok else ExitStatus.CHECK_FAILED


def spark_requests(queries, methods, k):
    """The ``ranking`` calls ``record_golden``/``verify_golden`` make, to run on Spark beforehand (``--spark``)."""
    from regrag.distributed.batch_search import RankingRequest

    return [RankingRequest(text, k, method) for _qid, text in queries for method in methods]
