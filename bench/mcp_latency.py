"""Time ``regrag mcp``: search calls over stdio, one at a time, against the
same searches in process.

    python3 bench/mcp_latency.py --index DIR --queries QUERIES.jsonl [-n 200] [-k 10]

Starts the server on ``DIR``, sends ``initialize``, then one ``tools/call
search`` per query (BEIR ``queries.jsonl``: the ``text`` of each line),
waiting for each response. Prints the start-up time (process start to the
``initialize`` response), the p50/p99 wall latency per call, the server's
CPU time in all, the median response size, and the CPU time the same
searches (with each hit's text and canonical JSON) take in this process.
Single client; absolute figures vary with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from regrag import Index  # noqa: E402


def _queries(path: str, count: int) -> list[str]:
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line)["text"] for line in lines if line.strip()][:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("-k", type=int, default=10)
    arguments = parser.parse_args()
    queries = _queries(arguments.queries, arguments.n)
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "regrag", "mcp", "--index", arguments.index, "--quiet"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env=dict(os.environ, PYTHONPATH=str(REPO)))

    def rpc(message: dict) -> bytes:
        server.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        server.stdin.flush()
        return server.stdout.readline()

    rpc({"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    ready = time.perf_counter() - started
    latencies, sizes = [], []
    for number, query in enumerate(queries, start=1):
        sent = time.perf_counter()
        line = rpc({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                    "params": {"name": "search", "arguments": {"query": query, "k": arguments.k}}})
        latencies.append(time.perf_counter() - sent)
        sizes.append(len(line))
        if b'"isError":false' not in line:
            print(f"call {number} failed: {line[:200]!r}", file=sys.stderr)
            return 1
    server.stdin.close()
    server.wait()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    index = Index.open(arguments.index)
    cpu_started = time.process_time()
    for query in queries:
        for hit in index.search(query, k=arguments.k):
            index.passage_text(hit.passage_id)
            hit.to_json()
    in_process = time.process_time() - cpu_started
    latencies.sort()
    count = len(latencies)
    print(f"{count} search calls (k={arguments.k}, hybrid) over stdio: start-up {ready * 1000:.0f} ms; per call "
          f"p50 {latencies[count // 2] * 1000:.1f} ms, p99 {latencies[max(0, int(count * 0.99) - 1)] * 1000:.1f} ms; "
          f"server CPU {usage.ru_utime + usage.ru_stime:.2f} s in all; median response {sorted(sizes)[count // 2]:,} bytes; "
          f"the same searches in process: {in_process:.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
