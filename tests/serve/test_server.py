"""The HTTP API: authentication, every leak path through HTTP, same bytes for
the same request, the ledger, and the hardening status codes (docs/serve.md)."""

from __future__ import annotations

import json
import re
import socket
import time

import pytest

from regrag.audit.canonical import sha256_hex
from regrag.audit.ledger import read_ledger, verify_ledger
from regrag.errors import InputError
from regrag.serve.app import ServerConfig, make_server
from regrag.serve.auth import TokenTable, bearer_token, hash_token
from regrag.serve.state import IndexHolder

from tests.serve.support import TOKENS


def search_body(text: str, **extra) -> dict:
    return dict({"query": {"match": {"text": text}}}, **extra)


def without_took(data: bytes) -> dict:
    value = json.loads(data)
    value.pop("took", None)
    return value


def test_requests_without_a_known_token_get_401(server):
    for token in (None, "wrong", TOKENS["alice"][0] + "x", hash_token(TOKENS["alice"][0])):
        status, headers, data = server.call("POST", "/_search", search_body("fee"), token)
        assert status == 401, token
        assert headers["WWW-Authenticate"].startswith("Bearer")
        assert json.loads(data)["error"]["type"] == "security_exception"
    assert server.call("POST", "/_search", search_body("fee"), TOKENS["alice"][0])[0] == 200
    assert bearer_token("Basic abc") is None and bearer_token("bearer  t ") == "t"


def test_the_token_file_holds_hashes_only(token_file, tmp_path):
    text = token_file.read_text()
    for token, _groups, _ledger in TOKENS.values():
        assert token not in text and hash_token(token) in text
    table = TokenTable.load(token_file)
    assert table.principal_for(TOKENS["bob"][0]).groups == ("advisory",)
    bad = tmp_path / "bad.json"
    for content, message in (('{"principals": [{"name": "x", "groups": [], "token": "plain"}]}', "unknown field"),
                             ('{"principals": [{"name": "x", "groups": [], "token_sha256": "abc"}]}', "64 lowercase hex"),
                             ("[1]", "expected"), ("{", "not a JSON token file")):
        bad.write_text(content)
        with pytest.raises(InputError, match=message):
            TokenTable.load(bad)


def test_hits_totals_and_scores_never_show_an_unreadable_document(server):
    status, _h, body = server.json("POST", "/_search", search_body("Zephyrion valuation acquisition", size=20), "bob")
    assert status == 200
    ids = [hit["_id"] for hit in body["hits"]["hits"]]
    assert ids and not any(i.startswith("research-") for i in ids)
    assert body["hits"]["total"] == {"relation": "eq", "value": len(ids)}
    status, _h, body = server.json("POST", "/_search", search_body("Zephyrion valuation", size=20), "bob")
    assert body["hits"] == {"hits": [], "max_score": None, "total": {"relation": "eq", "value": 0}}
    _s, _h, full = server.json("POST", "/_search", search_body("Zephyrion valuation", size=20), "carol")
    assert full["hits"]["total"]["value"] > 0


def test_explanations_of_unreadable_passages_are_404_like_unknown_ones(server):
    status, _h, hidden = server.json("GET", "/_explain?q=acquisition&id=research-zephyrion.md%231", principal="bob")
    status2, _h, unknown = server.json("GET", "/_explain?q=acquisition&id=nothing.md%231", principal="bob")
    assert status == status2 == 404
    assert hidden["error"]["reason"].replace("research-zephyrion.md", "X") == unknown["error"]["reason"].replace("nothing.md", "X")
    status, _h, body = server.json("GET", "/_explain?q=acquisition&id=research-zephyrion.md%231", principal="alice")
    assert status == 200 and body["matched"] is True
    _s, _h, hits = server.json("POST", "/_search", search_body("annual fee", explain=True, size=10), "bob")
    for hit in hits["hits"]["hits"]:
        assert hit["_explanation"]["passage_id"] == hit["_id"] and not hit["_id"].startswith("research-")


def test_answers_never_cite_an_unreadable_document(server):
    question = {"question": "What is the annual fee for the advisory account?"}
    _s, _h, carol = server.json("POST", "/_ask", question, "carol")
    assert any(s["document_id"] == "advisory-client.md" for s in carol["answer"]["sentences"])
    _s, _h, alice = server.json("POST", "/_ask", question, "alice")
    assert "advisory-client.md" not in json.dumps(alice) and "zh-tongzhi.md" not in json.dumps(alice)


def test_stats_count_only_what_the_principal_reads(server, index):
    _s, _h, carol = server.json("GET", "/_stats", principal="carol")
    _s, _h, dave = server.json("GET", "/_stats", principal="dave")
    assert carol["passages"] == index.passage_count
    assert dave["passages"] == index.passage_count - sum(
        1 for p in range(index.passage_count) if index.passage(p).document_id != "public-rates.md")


def test_per_group_statistics_mode_serves_scores_of_the_readable_documents_only(group_server, server):
    _s, _h, group = group_server.json("POST", "/_search", search_body("annual fee", method="bm25"), "alice")
    _s, _h, corpus = server.json("POST", "/_search", search_body("annual fee", method="bm25"), "alice")
    assert [h["_id"] for h in group["hits"]["hits"]]
    assert [h["_score"] for h in group["hits"]["hits"]] != [h["_score"] for h in corpus["hits"]["hits"]]
    assert group["regrag"]["index_id"] != corpus["regrag"]["index_id"]


def test_the_same_request_gives_the_same_bytes_but_took(server):
    body = search_body("margin interest rate", size=3, explain=True, method="hybrid")
    for principal in ("alice", "carol"):
        first, second = (server.call("POST", "/_search", body, TOKENS[principal][0])[2] for _ in range(2))
        assert re.subn(rb'"took":[0-9]+', b"", first)[1] == 1
        assert re.sub(rb'"took":[0-9]+', b"", first) == re.sub(rb'"took":[0-9]+', b"", second)
    ask = {"question": "What is the margin interest rate?"}
    first, second = (server.call("POST", "/_ask", ask, TOKENS["bob"][0])[2] for _ in range(2))
    assert re.sub(rb'"took":[0-9]+', b"", first) == re.sub(rb'"took":[0-9]+', b"", second)


def test_every_request_is_in_the_ledger_with_its_principal_and_replays(server):
    path = server.server.config.ledger
    status, headers, data = server.call("POST", "/_search", search_body("annual fee", size=2), TOKENS["alice"][0])
    response = json.loads(data)
    server.call("POST", "/_ask", {"question": "What is the margin interest rate?"}, TOKENS["bob"][0])
    server.call("GET", "/_stats", None, TOKENS["dave"][0])
    server.call("POST", "/_search", search_body("fee"), "not-a-token")
    entries = read_ledger(path)
    assert verify_ledger(path).ok
    assert [(e.record["command"], e.record["principal"], e.record["status"]) for e in entries] == [
        ("search", "alice", 200), ("ask", "bob", 200), ("request", "dave", 200), ("request", None, 401)]
    sequence, digest = headers["X-Regrag-Ledger-Entry"].split()
    assert int(sequence) == 1 and digest == entries[0].hash
    record = entries[0].record
    assert record["served"]["groups"] == ["research"]
    # the response can be checked against its ledger entry
    assert record["output_sha256"] == response["regrag"]["output_sha256"] == sha256_hex(
        [hit["_source"] for hit in response["hits"]["hits"]])
    assert record["results"] == [[h["_id"], h["_score"]] for h in response["hits"]["hits"]]
    status, _h, replay = server.json("POST", "/_ledger/replay", {}, "carol")
    assert status == 200 and replay["chain_ok"] and replay["replayed"] == 2 and replay["identical"] == 2, replay
    assert server.json("GET", "/_ledger", principal="alice")[0] == 403
    status, _h, listing = server.json("GET", "/_ledger?size=2", principal="carol")
    assert status == 200 and listing["verify"]["ok"] and len(listing["entries"]) == 2


def test_bad_requests_get_the_status_codes_clients_expect(server):
    alice = TOKENS["alice"][0]
    cases = [
        (server.call("POST", "/_search", None, alice, raw=b"{not json"), 400, "parse_exception"),
        (server.call("POST", "/_search", {"query": {"match": {"text": "fee"}}, "sizes": 3}, alice), 400, None),
        (server.call("POST", "/_search", search_body("fee", size=-1), alice), 400, None),
        (server.call("POST", "/_search", search_body("fee " * 5000), alice), 400, None),
        (server.call("POST", "/_search", search_body("fee", method="dense"), alice), 400, None),
        (server.call("POST", "/_search", search_body("fee", size=20000), alice), 400, None),
        (server.call("POST", "/_search", search_body("fee", generation=7), alice), 400, None),
        (server.call("POST", "/_search", None, alice, raw=b"x" * (65 * 1024)), 413, "request_too_large"),
        (server.call("POST", "/_search", None, alice, raw=b"[" * 60000), 400, "parse_exception"),
        (server.call("GET", "/nothing", None, alice), 404, "not_found"),
        (server.call("GET", "/../../etc/passwd", None, alice), 404, "not_found"),
        (server.call("GET", "/assets/", None, alice), 404, "not_found"),
        (server.call("DELETE", "/_search", None, alice), 405, None),
        (server.call("GET", "/_health", None, None, headers={"Host": "attacker.example"}), 400, "bad_host"),
    ]
    for (status, headers, data), expected, kind in cases:
        assert status == expected, (expected, data[:200])
        body = json.loads(data)
        assert body["status"] == expected and body["error"]["reason"]
        assert headers["Content-Type"].startswith("application/json")
        if kind:
            assert body["error"]["type"] == kind


def test_a_principal_beyond_its_rate_gets_429(make_running, index, token_file):
    running = make_running(IndexHolder(index=index), tokens=TokenTable.load(token_file), rate=0.01, burst=3)
    statuses = [running.call("GET", "/_stats", None, TOKENS["alice"][0])[0] for _ in range(6)]
    assert statuses[:3] == [200, 200, 200] and statuses[-1] == 429
    assert running.call("GET", "/_stats", None, TOKENS["bob"][0])[0] == 200  # per principal


def test_connections_beyond_the_workers_and_queue_get_503(make_running, index):
    running = make_running(IndexHolder(index=index), workers=1, backlog=1, socket_timeout=3)
    idle = []
    try:
        for busy, queued in ((1, 0), (1, 1)):  # one holds the worker (it sends nothing), one waits in the queue
            idle.append(socket.create_connection(("127.0.0.1", running.server.port)))
            deadline = time.monotonic() + 10
            while (running.server.busy, running.server.queued) != (busy, queued):
                assert time.monotonic() < deadline
                time.sleep(0.02)
        status, _h, data = running.call("GET", "/_health")
        assert status == 503 and json.loads(data)["error"]["type"] == "overloaded"
    finally:
        for connection in idle:
            connection.close()
    deadline = time.monotonic() + 10
    while running.call("GET", "/_health")[0] != 200:
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_without_auth_it_listens_on_loopback_only(index):
    with pytest.raises(InputError, match="loopback only"):
        make_server(IndexHolder(index=index), ServerConfig(host="0.0.0.0", port=0))


def test_health_needs_no_token_and_says_nothing_else(server):
    status, _h, body = server.json("GET", "/_health")
    assert status == 200 and body == {"status": "green"}


def raw_exchange(port: int, head: bytes) -> tuple[int, dict]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(head)
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, json.loads(data.split(b"\r\n\r\n", 1)[1])


def test_hostile_request_heads_get_json_errors(server):
    port = server.server.port
    host = f"Host: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKENS['alice'][0]}\r\n".encode()
    cases = [
        (b"POST /_search HTTP/1.1\r\n" + host + b"Content-Length: " + b"9" * 30 + b"\r\n\r\n", 400),
        (b"POST /_search HTTP/1.1\r\n" + host + b"Content-Length: -1\r\n\r\n", 400),
        (b"POST /_search HTTP/1.1\r\n" + host + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        (b"POST /_search HTTP/1.1\r\n" + host + b"\r\n", 400),  # no Content-Length
        (b"GET /_health HTTP/1.1\r\n\r\n", 400),  # no Host
        (f"GET /_stats HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode() + b"Authorization: Bearer " + b"a" * 5000
         + b"\r\n\r\n", 401),
    ]
    for head, expected in cases:
        status, body = raw_exchange(port, head)
        assert status == expected == body["status"], (head[:80], body)
