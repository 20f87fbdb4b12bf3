"""Loopback load test of ``regrag serve`` while a writer publishes generations.

    PYTHONPATH=$PWD python3 bench/serve_load.py --clients 8 --seconds 30 --publish-every 3

Starts ``python -m regrag serve --index DIR --port 0`` (127.0.0.1 only) over
a copy of a corpus, runs N client threads for T seconds (both bounded),
each sending ``_search`` and ``_ask`` requests in turn, while a writer adds a
document and publishes a new generation (``regrag index --update``) every
few seconds. Reports throughput, p50/p99 latency, errors, the server's
memory (VmRSS/VmHWM from /proc), and checks that every response names one
generation (all its hits carry that generation's index id) and that every
distinct (request, generation) gives the same output as the same call made
locally on that generation (``output_sha256``). Exit 1 on any failed
request or check. Figures: docs/serve.md, "Load".
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from regrag import Index  # noqa: E402
from regrag.answer.options import AskOptions  # noqa: E402
from regrag.audit.canonical import sha256_hex  # noqa: E402
from regrag.index.directory import IndexStore  # noqa: E402
from regrag.retrieval.options import SearchOptions  # noqa: E402

QUERIES = ("liquidity coverage ratio", "minimum reserve requirement", "customer due diligence",
           "insider dealing penalties", "net stable funding", "suspicious transaction report",
           "annual fee", "market abuse disclosure")
MAX_CLIENTS, MAX_SECONDS = 64, 600


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]


def cpu_seconds_of(pid: int) -> float:
    """User + system CPU time of a process so far (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_of(pid: int) -> dict[str, int]:
    found = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) // 1024
    return found


def request(port: int, path: str, body: dict) -> tuple[int, dict, float]:
    data = json.dumps(body).encode()
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", path, data, {"Content-Type": "application/json", "Host": f"127.0.0.1:{port}"})
        response = connection.getresponse()
        payload = response.read()
        elapsed = time.perf_counter() - started
        return response.status, json.loads(payload), elapsed
    finally:
        connection.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--publish-every", type=float, default=3.0, help="seconds between generations (0: none)")
    parser.add_argument("--corpus", default=str(ROOT / "corpora" / "regulations" / "documents"))
    parser.add_argument("--workers", type=int, default=8, help="the server's worker threads")
    parser.add_argument("--ledger", action="store_true", help="the server appends every request to a ledger")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    arguments = parser.parse_args()
    if not 1 <= arguments.clients <= MAX_CLIENTS or not 0 < arguments.seconds <= MAX_SECONDS:
        parser.error(f"--clients must be 1..{MAX_CLIENTS} and --seconds in (0, {MAX_SECONDS}]")

    work = Path(tempfile.mkdtemp(prefix="regrag-serve-load-"))
    try:
        return run(arguments, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(arguments, work: Path) -> int:
    corpus, directory = work / "documents", work / "index"
    shutil.copytree(arguments.corpus, corpus)
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    regrag = [sys.executable, "-m", "regrag"]
    subprocess.run(regrag + ["index", str(corpus), "--out", str(directory), "-q"], check=True, env=environment,
                   stdout=subprocess.DEVNULL)
    command = regrag + ["serve", "--index", str(directory), "--port", "0", "--rate", "0",
                        "--workers", str(arguments.workers), "--backlog", "256"]
    if arguments.ledger:
        command += ["--ledger", str(work / "ledger.jsonl")]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        line = server.stderr.readline()
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        return load(arguments, port, server, corpus, directory, regrag, environment)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def load(arguments, port, server, corpus, directory, regrag, environment) -> int:
    results: list[tuple[str, dict, int, dict, float]] = []
    lock = threading.Lock()
    stop = threading.Event()

    def client(number: int) -> None:
        turn = number
        while not stop.is_set():
            text = QUERIES[turn % len(QUERIES)]
            if turn % 4 == 3:
                path, body = "/_ask", {"question": text + "?", "size": 3}
            else:
                path, body = "/_search", {"query": {"match": {"text": text}}, "size": 5,
                                          "method": ("hybrid", "bm25", "tfidf")[turn % 3]}
            turn += 1
            try:
                status, payload, elapsed = request(port, path, body)
            except (OSError, ValueError) as error:
                status, payload, elapsed = 0, {"error": str(error)}, 0.0
            with lock:
                results.append((path, body, status, payload, elapsed))

    published = []

    def writer() -> None:
        number = 0
        while not stop.wait(arguments.publish_every):
            number += 1
            (corpus / f"load-note-{number}.md").write_text(
                f"# Load note {number}\n\n## Liquidity\n\nA note on the liquidity coverage ratio, number {number}.\n",
                encoding="utf-8")
            subprocess.run(regrag + ["index", str(corpus), "--out", str(directory), "--update", "-q"], check=True,
                           env=environment, stdout=subprocess.DEVNULL)
            published.append(time.monotonic())

    threads = [threading.Thread(target=client, args=(n,)) for n in range(arguments.clients)]
    if arguments.publish_every > 0:
        threads.append(threading.Thread(target=writer))
    cpu_before, server_before = os.times(), cpu_seconds_of(server.pid)
    started = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(arguments.seconds)
    stop.set()
    for thread in threads[: arguments.clients]:
        thread.join()
    wall = time.monotonic() - started  # the clients' time; a publish in progress is then waited for
    for thread in threads[arguments.clients:]:
        thread.join()
    memory = memory_of(server.pid)
    server_cpu = cpu_seconds_of(server.pid) - server_before
    _status, stats, _t = request_get(port, "/_stats")
    summary = summarise(results, wall, memory, stats, len(published), directory)
    summary["server_cpu_seconds"] = round(server_cpu, 1)
    summary["server_cpu_ms_per_request"] = round(1000 * server_cpu / max(1, summary["requests"]), 2)
    summary["client_cpu_seconds"] = round(sum(os.times()[:2]) - sum(cpu_before[:2]), 1)
    summary["load_average"] = [round(x, 2) for x in os.getloadavg()]
    summary["clients"], summary["seconds"] = arguments.clients, arguments.seconds
    if arguments.json:
        print(json.dumps(summary, indent=2, sort_keys=True))
    else:
        for key in sorted(summary):
            print(f"{key}: {summary[key]}")
    return 0 if summary["failed"] == 0 and summary["mismatches"] == 0 else 1


def request_get(port: int, path: str):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
        response = connection.getresponse()
        return response.status, json.loads(response.read()), 0.0
    finally:
        connection.close()


def summarise(results, wall, memory, stats, publications, directory) -> dict:
    statuses: dict[str, int] = {}
    for _p, _b, status, _payload, _t in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    ok = [r for r in results if r[2] == 200]
    latencies = [r[4] * 1000 for r in ok]
    _current, generations = IndexStore(directory).history()
    ids = {g.number: g.index_id for g in generations}
    mixed = 0
    expected: dict[tuple, str] = {}
    for path, body, _status, payload, _t in ok:
        generation = payload["regrag"]["generation"]
        hits = payload["hits"]["hits"] if path == "/_search" else payload["answer"]["hits"]
        sources = [h["_source"] if path == "/_search" else h for h in hits]
        if payload["regrag"]["index_id"] != ids.get(generation) or any(s["index_id"] != ids.get(generation)
                                                                        for s in sources):
            mixed += 1
        expected.setdefault((path, json.dumps(body, sort_keys=True), generation), payload["regrag"]["output_sha256"])
    mismatches = mixed + verify(expected, directory)
    return {
        "requests": len(results), "failed": len(results) - len(ok), "statuses": statuses,
        "throughput_per_second": round(len(ok) / wall, 1),
        "p50_ms": round(percentile(latencies, 0.50), 1) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99), 1) if latencies else None,
        "generations_published": publications, "generations_served": sorted({k[2] for k in expected}),
        "server_reloads": stats.get("reloads"), "server_rss_mb": memory.get("VmRSS"),
        "server_peak_rss_mb": memory.get("VmHWM"), "mismatches": mismatches,
        "verified_request_generation_pairs": len(expected),
    }


def verify(expected: dict[tuple, str], directory) -> int:
    """Each distinct (request, generation) run locally on that generation: the same output_sha256."""
    opened: dict[int, Index] = {}
    wrong = 0
    for (path, body_text, generation), digest in sorted(expected.items()):
        index = opened.setdefault(generation, Index.open(directory, generation=generation))
        body = json.loads(body_text)
        if path == "/_search":
            options = SearchOptions(k=body["size"], method=body["method"])
            local = sha256_hex([h.to_dict() for h in index.search(body["query"]["match"]["text"], options=options)])
        else:
            answer = index.ask(body["question"], options=AskOptions(SearchOptions(k=body["size"])))
            local = sha256_hex(answer.to_dict())
        wrong += local != digest
    return wrong


if __name__ == "__main__":
    sys.exit(main())
