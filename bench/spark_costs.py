"""What a sharded build on Spark costs here (docs/distributed.md, "Measured costs").

    python3 bench/spark_costs.py --corpus ../shared/data/scifact --shards 1,2,4 --master 'local[2]' --partitions 4

For each S, each in its own subprocess:
- "spark": ``regrag index CORPUS --out TMP --spark MASTER --shards S --partitions P`` end to end
  (wall seconds: JVM start, the corpus checked on the driver and read by the executors when it
  is streamed, phases A, B, C, publish), the driver's own peak RSS and CPU seconds (its Python
  process alone: ``RUSAGE_SELF``, not the JVM, not the Python workers), and a check that the
  published files equal the one-process build's;
- "one process": ``build_sharded`` and ``publish_sharded`` (wall and CPU seconds, peak RSS);
- "per shard": the memory one phase-C task needs: a process that reads the corpus, keeps
  the documents of shard k, analyses them (phase A) and builds the shard (phase C) with the
  global statistics; its peak RSS (``ru_maxrss``), that peak minus its peak before phase A, and
  the CPU seconds of phases A and C for that shard.
Prints one JSON object (``--json FILE`` also writes it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_ONE_PROCESS = """
import json, resource, sys, time
from regrag.corpus.load import load_corpus
from regrag.index.parameters import IndexParameters
from regrag.index.sharded import build_sharded, publish_sharded
from regrag.text.analyzer import Analyzer
corpus, shards, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
started, cpu = time.perf_counter(), time.process_time()
documents = load_corpus(corpus).documents
analyzer, parameters = Analyzer("auto"), IndexParameters()
files, statistics = build_sharded(documents, analyzer, parameters, shards)
publish_sharded(out, files, statistics, analyzer, parameters)
print(json.dumps({"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "passages": statistics.passage_count}))
"""

_ONE_SHARD = """
import json, resource, sys
from regrag.corpus.load import load_corpus
from regrag.index.parameters import IndexParameters
from regrag.index.shard_phases import analyse_partition, build_shard, partial_statistics, reduce_statistics, shard_of
from regrag.text.analyzer import Analyzer
corpus, shards, shard = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
analyzer, parameters = Analyzer("auto"), IndexParameters()
documents = [d for d in load_corpus(corpus).documents if shard_of(d.id, shards) == shard]
with open(sys.argv[4], "rb") as handle:
    statistics = handle.read()
import time
before, cpu = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.process_time()
records = [data for _shard, data in analyse_partition(documents, analyzer, parameters, shards)]
files = build_shard(shard, records, statistics, analyzer, parameters)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"shard": shard, "documents": len(documents), "peak_rss_mb": peak / 1024,
                  "phase_a_c_mb": (peak - before) / 1024, "phase_a_c_cpu_seconds": time.process_time() - cpu,
                  "bytes_written": sum(map(len, files.values()))}))
"""


_SPARK_DRIVER = """
import json, resource, sys, time
from regrag.cli import main
started, cpu = time.perf_counter(), time.process_time()
status = main(sys.argv[1:])
print(json.dumps({"status": status, "seconds": time.perf_counter() - started, "driver_cpu_seconds": time.process_time() - cpu,
                  "driver_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _python(code: str, *arguments: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code, *arguments], env=dict(os.environ, PYTHONPATH=str(REPO)),
                          capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result.get("status", 0) != 0:  # the command failed: say why (its last "regrag: error" line) instead of a bare status
        errors = [line for line in done.stderr.splitlines() if line.startswith("regrag: ")]
        result["error"] = errors[-1] if errors else (done.stderr.strip().splitlines() or ["no message"])[-1]
        print(f"spark_costs: {' '.join(arguments[:2])}: exit status {result['status']}: {result['error']}", file=sys.stderr)
    return result


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "CURRENT" and "lock" not in p.name}


def measure(corpus: str, shards: int, master: str, partitions: int, scratch: Path) -> dict:
    one = _python(_ONE_PROCESS, corpus, str(shards), str(scratch / "one"))
    spark = _python(_SPARK_DRIVER, "index", corpus, "--out", str(scratch / "spark"), "--spark", master, "--shards",
                    str(shards), "--partitions", str(partitions), "-q")
    same = _tree(scratch / "one") == _tree(scratch / "spark")
    statistics = next((scratch / "one").rglob("global_statistics.json"))  # the bytes phase C is broadcast
    per_shard = [_python(_ONE_SHARD, corpus, str(shards), str(k), str(statistics)) for k in range(shards)]
    return {"shards": shards, "load_after": os.getloadavg(), "one_process": one,
            "spark": dict(spark, same_bytes_as_one_process=same),
            "per_shard": per_shard}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--shards", default="1,2,4")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--json", default=None)
    arguments = parser.parse_args()
    results = []
    for shards in (int(s) for s in arguments.shards.split(",")):
        with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as scratch:
            results.append(measure(arguments.corpus, shards, arguments.master, arguments.partitions, Path(scratch)))
        print(json.dumps(results[-1]), flush=True)
    report = {"corpus": arguments.corpus, "master": arguments.master, "partitions": arguments.partitions,
              "load": os.getloadavg(), "results": results}
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
