"""``regrag serve`` as a command: README's two commands run as written (on
a free port), ``--new-token``, and the loopback rule (docs/serve.md)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_block(marker: str) -> str:
    """The one-line sh block that follows the annotation containing ``marker``."""
    text = README.read_text(encoding="utf-8")
    found = re.search(r"<!-- docs-test: skip [^\n]*" + re.escape(marker) + r"[^\n]*-->\n```sh\n(.*?)\n```", text, re.S)
    assert found, marker
    return found.group(1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(command: str, port: int) -> subprocess.Popen:
    process = subprocess.Popen("exec " + command.replace("8080", str(port)), shell=True, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env=dict(os.environ))
    line = process.stderr.readline()
    assert f"listening on http://127.0.0.1:{port}/" in line and "loopback only" in line, line
    return process


def stop(process: subprocess.Popen) -> int:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        return process.wait(timeout=20)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)


def test_the_readme_serves_the_bundled_corpus_and_its_curl_queries_it():
    serve, curl = readme_block("runs until Ctrl-C"), readme_block("needs the server above")
    assert serve.startswith("python3 -m regrag serve") and curl.startswith("curl ")
    port = free_port()
    process = start(serve, port)
    try:
        result = subprocess.run(curl.replace("8080", str(port)), shell=True, capture_output=True, text=True, timeout=60)
        body = json.loads(result.stdout)
        assert len(body["hits"]["hits"]) == 3
        assert all("fee" in hit["_source"]["query_terms"] for hit in body["hits"]["hits"])
    finally:
        assert stop(process) == 0
    assert "stopped" in process.stderr.read()


def test_new_token_prints_a_token_and_only_its_hash_for_the_file():
    result = subprocess.run([sys.executable, "-m", "regrag", "serve", "--new-token", "alice", "--groups",
                             "research,advisory", "--ledger-reader"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.splitlines()
    token = first.rsplit(" ", 1)[1]
    entry = json.loads(second)
    from regrag.serve.auth import hash_token

    assert entry == {"groups": ["advisory", "research"], "ledger": True, "name": "alice",
                     "token_sha256": hash_token(token)}
    assert token not in second


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1"])
def test_without_auth_another_host_is_refused(host):
    result = subprocess.run([sys.executable, "-m", "regrag", "serve", "--host", host, "--port", "0"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "loopback only" in result.stderr and "--auth" in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_bad_token_file_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "tokens.json"
    bad.write_text('{"principals": [{"name": "x", "groups": ["a"], "token_sha256": "secret"}]}')
    result = subprocess.run([sys.executable, "-m", "regrag", "serve", "--auth", str(bad), "--port", "0"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "principal 1" in result.stderr and "64 lowercase hex" in result.stderr


def test_replay_of_a_servers_ledger_from_the_command_line(tmp_path, make_running, token_file):
    from regrag import Index
    from regrag.serve.auth import TokenTable
    from regrag.serve.state import IndexHolder
    from tests.serve.support import write_corpus

    directory, ledger = tmp_path / "index", tmp_path / "ledger.jsonl"
    Index.from_path(write_corpus(tmp_path / "documents")).save(directory)
    running = make_running(IndexHolder(directory), tokens=TokenTable.load(token_file), ledger=str(ledger), rate=0)
    for name in ("alice", "bob", "dave"):
        assert running.json("POST", "/_search", {"query": {"match": {"text": "annual fee"}}}, name)[0] == 200
        assert running.json("POST", "/_ask", {"question": "What is the annual fee?"}, name)[0] == 200
    command = [sys.executable, "-m", "regrag", "serve", "--index", str(directory), "--replay", str(ledger)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "6 of 6 served records replayed identically"
    lines = ledger.read_bytes().splitlines(keepends=True)
    tampered = json.loads(lines[0])
    tampered["record"]["served"]["groups"] = ["advisory"]  # claim alice's search was bob's view
    ledger.write_bytes(json.dumps(tampered, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
                       + b"\n" + b"".join(lines[1:]))
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "broken at line 1" in result.stdout


def test_responses_do_not_depend_on_the_hash_seed(tmp_path):
    import urllib.request

    from tests.serve.support import write_corpus

    corpus = write_corpus(tmp_path / "documents")
    requests = [("/_search", {"query": {"match": {"text": "annual fee acquisition"}}, "size": 5, "explain": True}),
                ("/_ask", {"question": "What is the annual fee of the standard account?"})]
    bodies = []
    for seed in ("1", "12345"):
        port = free_port()
        process = subprocess.Popen([sys.executable, "-m", "regrag", "serve", "--corpus", str(corpus), "--port", str(port)],
                                   stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONHASHSEED=seed))
        try:
            assert "listening" in process.stderr.readline()
            seen = []
            for path, body in requests:
                request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                                 method="POST")
                with urllib.request.urlopen(request, timeout=60) as response:
                    seen.append(re.sub(rb'"took":[0-9]+', b"", response.read()))
            explain = f"http://127.0.0.1:{port}/_explain?q=annual+fee&id=public-rates.md%231"
            with urllib.request.urlopen(explain, timeout=60) as response:
                seen.append(re.sub(rb'"took":[0-9]+', b"", response.read()))
            bodies.append(seen)
        finally:
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=20) == 0
    assert bodies[0] == bodies[1]
