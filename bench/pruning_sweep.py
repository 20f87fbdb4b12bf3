"""Rank-safe pruning against exhaustive scoring, swept over query length.

    python3 bench/pruning_sweep.py ../shared/data/scifact
    python3 bench/pruning_sweep.py /tmp/scale/scale-100000 --queries 1 --max-seconds 120

The argument is a corpus (a BEIR folder, a JSONL file or a folder of
Markdown files, indexed first) or an index directory (opened). For each
query length (``--lengths``, default 1, 3, 10, 30, 100, 300, 1000 terms),
two kinds of queries are made from the index's own vocabulary (so every
term is known and no analysis stands in between):

- ``frequent``: the terms with the most postings (ties by term), query ``i``
  taking ranks ``i*L .. i*L+L-1``;
- ``random``: ``L`` terms drawn uniformly from the sorted vocabulary by a
  ``random.Random`` seeded with a string (the same queries on every run).

Each query is ranked by ``regrag.retrieval.ranking.rank`` for ``bm25`` and
``tfidf``, top-10 and top-1000 (``--ks``), pruned and exhaustive; the two
results must be equal (the script stops with an error otherwise). A time is
CPU time (``time.process_time``) per call, the best of ``--repeats``
batches, a batch repeating the call until it has run 20 ms. A cell's ratio
is the sum over its queries of pruned time over the sum of exhaustive time;
"worst" is the largest single query's ratio. ``--max-seconds`` bounds the
measuring time: the longest lengths are skipped (and said so) once it is
spent.

    python3 bench/pruning_sweep.py ../shared/data/scifact --identity

checks instead that pruning changes nothing on the folder's real queries
(``queries.jsonl``): every query, ``Index.ranking`` with ``bm25``, ``tfidf``
and ``hybrid`` at k = 1, 10, 100 and 1000, pruned against exhaustive
(``exhaustive=True``), compared as (document id, passage id, score) triples
(scores as ``repr``, so to the bit); it prints the number of differences.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from regrag import Index  # noqa: E402
from regrag.retrieval.query import AnalyzedQuery  # noqa: E402
from regrag.retrieval.ranking import rank  # noqa: E402

BATCH_SECONDS = 0.02


def open_index(path: Path) -> Index:
    if (path / "CURRENT").is_file():
        return Index.open(path)
    return Index.from_path(path)


def make_queries(index: Index, length: int, count: int) -> dict[str, list[AnalyzedQuery]]:
    postings = index.inverted.postings
    vocabulary = sorted(postings)
    by_frequency = sorted(vocabulary, key=lambda term: (-len(postings[term].passages), term))
    queries: dict[str, list[AnalyzedQuery]] = {"frequent": [], "random": []}
    for number in range(count):
        chosen = by_frequency[number * length:(number + 1) * length]
        if len(chosen) == length:
            queries["frequent"].append(_query(chosen))
        rng = random.Random(f"pruning-sweep-{length}-{number}")
        queries["random"].append(_query(rng.sample(vocabulary, min(length, len(vocabulary)))))
    return queries


def _query(terms: list[str]) -> AnalyzedQuery:
    ordered = tuple(sorted(terms))
    return AnalyzedQuery(" ".join(ordered), "en", ordered, tuple(1 for _ in ordered))


def cpu_seconds(call, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        calls, started = 0, time.process_time()
        while True:
            call()
            calls += 1
            elapsed = time.process_time() - started
            if elapsed >= BATCH_SECONDS:
                break
        best = min(best, elapsed / calls)
    return best


def postings_of(index: Index, query: AnalyzedQuery) -> int:
    return sum(len(index.inverted.postings[term].passages) for term in query.terms)


def sweep(index: Index, arguments: argparse.Namespace) -> list[dict]:
    inverted = index.inverted
    rows, deadline = [], time.monotonic() + arguments.max_seconds
    for length in arguments.lengths:
        if time.monotonic() > deadline:
            print(f"skipped length {length} and longer: --max-seconds {arguments.max_seconds:g} spent", file=sys.stderr)
            break
        for kind, queries in make_queries(index, length, arguments.queries).items():
            if not queries:
                continue
            for method in ("bm25", "tfidf"):
                for k in arguments.ks:
                    pruned_total = exhaustive_total = worst = 0.0
                    for query in queries:
                        pruned = rank(inverted, query, method, k, None, False)
                        exhaustive = rank(inverted, query, method, k, None, True)
                        if pruned != exhaustive:
                            raise SystemExit(f"pruned != exhaustive: {kind} {length} {method} top-{k}")
                        p = cpu_seconds(lambda: rank(inverted, query, method, k, None, False), arguments.repeats)
                        e = cpu_seconds(lambda: rank(inverted, query, method, k, None, True), arguments.repeats)
                        pruned_total += p
                        exhaustive_total += e
                        worst = max(worst, p / e)
                    rows.append({
                        "terms": length, "kind": kind, "method": method, "k": k, "queries": len(queries),
                        "postings": sum(postings_of(index, q) for q in queries) // len(queries),
                        "pruned_ms": pruned_total / len(queries) * 1e3,
                        "exhaustive_ms": exhaustive_total / len(queries) * 1e3,
                        "ratio": pruned_total / exhaustive_total, "worst": worst,
                    })
    return rows


def identity(index: Index, folder: Path) -> int:
    """Pruned against exhaustive ``ranking`` on every query of ``folder``;
    prints and returns the number of differing rankings."""
    import json

    import regrag.retrieval.ranking as retrieve

    pruned = {"calls": 0, "pruned": 0}

    def counted(function):
        def wrapper(*arguments, **options):
            result = function(*arguments, **options)
            pruned["calls"] += 1
            pruned["pruned"] += result is not None
            return result
        return wrapper

    retrieve.pruned_bm25_top = counted(retrieve.pruned_bm25_top)
    retrieve.pruned_tfidf_top = counted(retrieve.pruned_tfidf_top)
    lines = (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [json.loads(line)["text"] for line in lines if line.strip()]
    compared = differences = 0
    for query in queries:
        for method in ("bm25", "tfidf", "hybrid"):
            for k in (1, 10, 100, 1000):
                results = []
                for exhaustive in (False, True):
                    ranking = index.ranking(query, k=k, method=method, exhaustive=exhaustive)
                    results.append([(d, p, repr(s)) for d, p, s in ranking])
                compared += 1
                differences += results[0] != results[1]
    print(f"{len(queries):,} queries x 3 methods x k in (1, 10, 100, 1000): {compared:,} rankings compared, "
          f"{differences} differences (pruned against exhaustive); pruning tried {pruned['calls']:,} times, "
          f"pruned {pruned['pruned']:,} (the cost model declined the rest)")
    return differences


def markdown(rows: list[dict]) -> str:
    lines = ["| terms | kind | method | k | queries | postings/query | pruned ms | exhaustive ms | ratio | worst query |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['terms']:,} | {row['kind']} | {row['method']} | {row['k']:,} | {row['queries']} | "
                     f"{row['postings']:,} | {row['pruned_ms']:.3f} | {row['exhaustive_ms']:.3f} | "
                     f"{row['ratio']:.2f} | {row['worst']:.2f} |")
    worst = max(rows, key=lambda row: row["worst"])
    lines.append("")
    lines.append(f"Worst single query: {worst['worst']:.2f} x exhaustive ({worst['kind']}, {worst['terms']:,} terms, "
                 f"{worst['method']}, top-{worst['k']:,}); worst cell ratio "
                 f"{max(row['ratio'] for row in rows):.2f}; best cell ratio {min(row['ratio'] for row in rows):.2f}.")
    return "\n".join(lines)


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path, help="a corpus to index, or an index directory to open")
    parser.add_argument("--lengths", default="1,3,10,30,100,300,1000", help="query lengths in terms")
    parser.add_argument("--ks", default="10,1000", help="result depths")
    parser.add_argument("--queries", type=int, default=3, help="queries per length and kind (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="timed batches per call, best taken (default 3)")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="measuring budget (default 300)")
    parser.add_argument("--identity", action="store_true",
                        help="compare pruned and exhaustive rankings on the folder's queries.jsonl instead")
    arguments = parser.parse_args(argv)
    arguments.lengths = [int(value) for value in arguments.lengths.split(",")]
    arguments.ks = [int(value) for value in arguments.ks.split(",")]
    return arguments


def main(argv: list[str] | None = None) -> None:
    arguments = parse_arguments(argv)
    started = time.process_time()
    index = open_index(arguments.path)
    print(f"{arguments.path}: {index.passage_count:,} passages, {len(index.inverted.postings):,} terms "
          f"(ready in {time.process_time() - started:.1f} CPU s)", file=sys.stderr)
    if arguments.identity:
        raise SystemExit(1 if identity(index, arguments.path) else 0)
    print(markdown(sweep(index, arguments)))


if __name__ == "__main__":
    main()
