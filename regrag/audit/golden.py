"""Golden-file regression audits: record rankings once, verify them forever.

A golden file holds, for a fixed set of queries, the exact top-``k`` ranking
that each retrieval method gave on one index: rank, document id, passage id
and the score as a float written with ``repr`` (so it reads back bit for bit).
Verifying re-runs every recorded query and compares ranks and scores exactly;
any change, however small, is reported as "passage P of query Q moved from
rank a (score x) to rank b (score y)".

The file is JSON Lines, one canonical JSON object per line (sorted keys,
``,``/``:`` separators, UTF-8, ``repr`` floats, no NaN): a header line, then
per query (sorted by id) a query line followed by one line per ranking entry.
A changed ranking therefore shows in code review as a few changed lines, each
naming its query, method, rank and passage. A SHA-256 fingerprint over the
content, stored in the header, makes hand edits (tampering) detectable.
``docs/golden.md`` describes the format field by field.

The code is split into ``golden_model`` (constants and report records),
``golden_queries`` (query files), ``golden_file`` (the file form and its
validation) and ``golden_verify`` (record, verify, report); every public
name is importable from here.

Typical use (the ``python -m regrag golden record|verify`` commands wrap this)::

    queries = load_golden_queries("corpora/regulations/queries.jsonl")   # or a .txt, one query per line
    golden = record_golden(Index.from_path("corpora/regulations/documents"), queries, ("bm25",))
    write_golden("golden/regulations.bm25.golden", golden)
    report = verify_golden(Index.from_path(...), read_golden("golden/regulations.bm25.golden"))
    print(format_report(report))          # report.ok is True when nothing moved
"""

from __future__ import annotations

from regrag.audit.golden_file import dumps_golden, golden_fingerprint, loads_golden, read_golden, write_golden
from regrag.audit.golden_model import (
    DEFAULT_K,
    DEFAULT_METHODS,
    FORMAT,
    Golden,
    GoldenDifference,
    GoldenReport,
    PathLike,
    Queries,
    RankingIndex,
)
from regrag.audit.golden_queries import QUERY_FORMATS, load_golden_queries, plain_text_query_id
from regrag.audit.golden_verify import format_report, record_golden, verify_golden

__all__ = [
    "DEFAULT_K",
    "DEFAULT_METHODS",
    "FORMAT",
    "QUERY_FORMATS",
    "Golden",
    "GoldenDifference",
    "GoldenReport",
    "PathLike",
    "Queries",
    "RankingIndex",
    "dumps_golden",
    "format_report",
    "golden_fingerprint",
    "load_golden_queries",
    "loads_golden",
    "plain_text_query_id",
    "read_golden",
    "record_golden",
    "verify_golden",
    "write_golden",
]
