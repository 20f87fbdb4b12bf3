"""Sharded builds and searches measured (docs/index-format.md, "Sharded generations").

    PYTHONPATH=$PWD python3 bench/shards.py /work/shared/data/scifact --shards 1 2 4 --queries 300

For each S: phase A (analysis of every document), phase B (the exact
reduction) and phase C (each shard's files) in this process, CPU seconds
each; phase C of each shard also in a fresh child process (what one
executor does), with the child's CPU time and peak RSS; the publish. Then
query latency, single index vs sharded (S as given), the same queries
interleaved in one run: CPU milliseconds per query and their ratio.
Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _high_water_mb() -> float:
    """This process's peak RSS (``VmHWM``: per address space, so reset by exec, unlike ``ru_maxrss``,
    which a child inherits from the parent it was forked from)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(records_path: str, statistics_path: str, shard: int) -> None:
    """Phase C of one shard from files (run in a fresh process): prints CPU s and peak RSS MB."""
    from regrag.index.parameters import IndexParameters
    from regrag.index.shard_phases import build_shard
    from regrag.text.analyzer import Analyzer

    with open(records_path, "rb") as lines:
        records = [line.rstrip(b"\n") for line in lines]
    statistics = Path(statistics_path).read_bytes()
    started = time.process_time()
    files = build_shard(shard, records, statistics, Analyzer(), IndexParameters())
    cpu = time.process_time() - started
    peak = _high_water_mb()
    print(json.dumps({"cpu": cpu, "peak_mb": peak, "bytes": sum(map(len, files.values()))}))


def measure(corpus: str, shard_counts: list[int], queries: int) -> None:
    from regrag import Index
    from regrag.corpus.load import load_corpus
    from regrag.index.parameters import IndexParameters
    from regrag.index.shard_phases import analyse_partition, build_shard, partial_statistics, reduce_statistics
    from regrag.index.sharded import publish_sharded
    from regrag.retrieval.options import SearchOptions
    from regrag.text.analyzer import Analyzer

    documents = load_corpus(corpus).documents
    analyzer, parameters = Analyzer(), IndexParameters()
    work = Path(tempfile.mkdtemp(prefix="bench-shards-"))
    started = time.process_time()
    Index.from_documents(documents, parameters=parameters).save(work / "single")
    single_cpu = time.process_time() - started
    print(f"{len(documents)} documents; single build + save {single_cpu:.2f} s CPU\n")
    print("| S | phase A s | phase B s | phase C s (all shards) | publish s | per shard in a child: CPU s / peak RSS MB |")
    print("|---|---|---|---|---|---|")
    for shards in shard_counts:
        clock = time.process_time()
        keyed = analyse_partition(documents, analyzer, parameters, shards)
        phase_a = time.process_time() - clock
        grouped: dict[int, list[bytes]] = {shard: [] for shard in range(shards)}
        for shard, data in keyed:
            grouped[shard].append(data)
        del keyed
        clock = time.process_time()
        statistics = reduce_statistics([partial_statistics(grouped[s]) for s in range(shards)], analyzer, parameters,
                                       shards)
        phase_b = time.process_time() - clock
        clock = time.process_time()
        files = {shard: build_shard(shard, grouped[shard], statistics, analyzer, parameters) for shard in range(shards)}
        phase_c = time.process_time() - clock
        clock = time.process_time()
        publish_sharded(work / f"s{shards}", files, statistics, analyzer, parameters)
        publish = time.process_time() - clock
        children = []
        for shard in range(shards):
            records = work / f"records-{shards}-{shard}.jsonl"
            records.write_bytes(b"".join(data + b"\n" for data in grouped[shard]))
            stats_file = work / f"statistics-{shards}.json"
            stats_file.write_bytes(statistics.to_bytes())
            output = subprocess.run([sys.executable, __file__, "--child", str(records), str(stats_file), str(shard)],
                                    capture_output=True, text=True, check=True).stdout
            found = json.loads(output)
            children.append(f"{found['cpu']:.2f} / {found['peak_mb']:.0f}")
        print(f"| {shards} | {phase_a:.2f} | {phase_b:.2f} | {phase_c:.2f} | {publish:.2f} | {'; '.join(children)} |")
    with open(Path(corpus) / "queries.jsonl", encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in lines if line.strip()][:queries]
    print("\n| S | method | single ms/query CPU | sharded ms/query CPU | sharded ÷ single |")
    print("|---|---|---|---|---|")
    single = Index.open(work / "single")
    for shards in shard_counts:
        sharded = Index.open(work / f"s{shards}")
        for method in ("bm25", "tfidf", "hybrid"):
            options = SearchOptions(k=10, method=method)
            for index in (single, sharded):  # warm: every query's terms once
                for text in texts:
                    index.search(text, options=options)
            spent = {"single": 0.0, "sharded": 0.0}
            for text in texts:  # interleaved, so load changes hit both alike
                for name, index in (("single", single), ("sharded", sharded)):
                    clock = time.process_time()
                    index.search(text, options=options)
                    spent[name] += time.process_time() - clock
            one, many = (1000 * spent[name] / len(texts) for name in ("single", "sharded"))
            print(f"| {shards} | {method} | {one:.2f} | {many:.2f} | {many / one:.2f} |")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--shards", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--queries", type=int, default=300)
    arguments = parser.parse_args()
    measure(arguments.corpus, arguments.shards, arguments.queries)


if __name__ == "__main__":
    main()
