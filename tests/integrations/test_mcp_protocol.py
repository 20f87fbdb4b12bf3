"""``regrag mcp`` spoken to line by line, as any MCP client would: every bad
message gets a JSON-RPC error (never a crash, never a traceback on standard
output), standard output holds only protocol messages, and the same call
gets the same bytes, whatever PYTHONHASHSEED."""

from __future__ import annotations

import json

from regrag.integrations.jsonrpc import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR

from .conftest import call, exchange, initialize


def _responses(lines: list[bytes]) -> list[dict]:
    return [json.loads(line) for line in lines]


def test_handshake_list_and_call(index_dir):
    status, out, err = exchange(index_dir, [
        initialize(), {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        call(2, "search", {"query": "annual fee", "k": 2}),
        {"jsonrpc": "2.0", "id": 3, "method": "ping"}])
    assert status == 0, err
    first, listed, searched, pong = _responses(out)  # the notification got no response
    assert first["result"]["protocolVersion"] == "2025-11-25"
    assert first["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert [tool["name"] for tool in listed["result"]["tools"]] == ["search", "ask", "explain", "verify"]
    for tool in listed["result"]["tools"]:
        assert tool["inputSchema"]["type"] == "object" and tool["outputSchema"]["type"] == "object"
    result = searched["result"]
    assert result["isError"] is False
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    hits = result["structuredContent"]["hits"]
    assert len(hits) == 2 and [hit["rank"] for hit in hits] == [1, 2]
    assert hits[0]["text"] and hits[0]["passage_span"][1] - hits[0]["passage_span"][0] == len(hits[0]["text"])
    assert pong == {"id": 3, "jsonrpc": "2.0", "result": {}}
    assert b"Traceback" not in err


def test_an_unknown_client_version_is_answered_with_the_newest_and_old_ones_get_no_structured_content(index_dir):
    _status, out, _err = exchange(index_dir, [initialize("1999-01-01")])
    assert _responses(out)[0]["result"]["protocolVersion"] == "2025-11-25"
    _status, out, _err = exchange(index_dir, [initialize("2025-03-26"), {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                              call(2, "search", {"query": "fee", "k": 1})])
    answered, listed, searched = _responses(out)
    assert answered["result"]["protocolVersion"] == "2025-03-26"
    assert all("outputSchema" not in tool and "title" not in tool for tool in listed["result"]["tools"])
    assert all(tool["annotations"]["readOnlyHint"] for tool in listed["result"]["tools"])
    _status, out, _err = exchange(index_dir, [initialize("2024-11-05"), {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}])
    assert all(sorted(tool) == ["description", "inputSchema", "name"] for tool in _responses(out)[1]["result"]["tools"])
    assert "structuredContent" not in searched["result"] and json.loads(searched["result"]["content"][0]["text"])["hits"]


BAD_MESSAGES = [
    (b"not json", PARSE_ERROR, None),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', PARSE_ERROR, None),
    (b"\xff\xfe{}", PARSE_ERROR, None),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}', PARSE_ERROR, None),
    (b"[" * 100_000 + b"]" * 100_000, PARSE_ERROR, None),  # too deep for the parser: never a RecursionError
    (b'{"a":' * 200 + b"1" + b"}" * 200, INVALID_REQUEST, None),
    (b"[]", INVALID_REQUEST, None),
    (b"42", INVALID_REQUEST, None),
    (b'{"id": 1, "method": "ping"}', INVALID_REQUEST, 1),
    (b'{"jsonrpc": "2.0", "id": 1}', INVALID_REQUEST, 1),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', INVALID_REQUEST, None),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}', INVALID_PARAMS, 1),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "resources/list"}', METHOD_NOT_FOUND, 1),
    (b'{"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "nope"}}', INVALID_PARAMS, "x"),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}', INVALID_PARAMS, 1),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search", "arguments": [1]}}',
     INVALID_PARAMS, 1),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}', INVALID_PARAMS, 1),
]


def test_a_bad_message_gets_a_json_rpc_error_and_the_server_goes_on(index_dir):
    # one server for all of them (a process each would cost a second apiece): each bad line, then a ping
    lines = [part for line, _code, _id in BAD_MESSAGES for part in (line, {"jsonrpc": "2.0", "id": 99, "method": "ping"})]
    status, out, err = exchange(index_dir, lines)
    assert status == 0 and b"Traceback" not in err
    responses = _responses(out)
    assert len(responses) == 2 * len(BAD_MESSAGES)
    for number, (line, code, identifier) in enumerate(BAD_MESSAGES):
        error, pong = responses[2 * number], responses[2 * number + 1]
        assert (error["error"]["code"], error["id"], error["jsonrpc"]) == (code, identifier, "2.0"), line[:80]
        assert pong == {"id": 99, "jsonrpc": "2.0", "result": {}}


def test_an_oversize_line_is_refused_and_dropped_whole(index_dir):
    long_call = json.dumps(call(1, "search", {"query": "fee " * 2000}))
    status, out, err = exchange(index_dir, [long_call, {"jsonrpc": "2.0", "id": 2, "method": "ping"}],
                                "--max-message-bytes", "1000")
    assert status == 0, err
    refused, pong = _responses(out)
    assert refused["error"]["code"] == INVALID_REQUEST and "1,000 bytes" in refused["error"]["message"]
    assert pong["id"] == 2


def test_schema_errors_follow_the_negotiated_version(index_dir):
    bad = [call(1, "search", {"query": 5}), call(2, "search", {"query": "fee", "k": 0}),
           call(3, "search", {"query": "fee", "colour": "red"}), call(4, "explain", {"query": "fee"}),
           call(5, "search", {"query": "fee", "k": True}), call(6, "search", {"query": "fee", "method": "magic"})]
    _status, out, _err = exchange(index_dir, [initialize("2025-06-18"), *bad])
    for response in _responses(out)[1:]:
        assert response["error"]["code"] == INVALID_PARAMS and "arguments" in response["error"]["message"]
    _status, out, _err = exchange(index_dir, [initialize("2025-11-25"), *bad])
    for response in _responses(out)[1:]:  # SEP-1303: a result the model reads and corrects
        assert response["result"]["isError"] is True and "arguments" in response["result"]["content"][0]["text"]


def test_what_regrag_refuses_is_a_tool_error(index_dir):
    _status, out, err = exchange(index_dir, [
        initialize(), call(1, "explain", {"query": "fee", "passage_id": "missing.md#1"}),
        call(2, "search", {"query": "fee", "filters": ["colour=red"]}),
        call(3, "search", {"query": "fee", "filters": ["date>=yesterday"]}),
        call(4, "search", {"query": "\ud800"}),
        call(5, "ask", {"question": "fee", "threshold": 0.5, "k": 100_000})])
    responses = _responses(out)[1:]
    assert [r["id"] for r in responses] == [1, 2, 3, 4, 5]
    texts = [r["result"]["content"][0]["text"] if "result" in r else r["error"]["message"] for r in responses]
    assert all(r.get("result", {}).get("isError") for r in responses), texts
    assert "missing.md#1" in texts[0] and "colour" in texts[1]
    assert b"Traceback" not in err


def test_a_lone_surrogate_in_an_unknown_tool_name_is_echoed_as_valid_json(index_dir):
    status, out, _err = exchange(index_dir, [b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\\ud800"}}'])
    assert status == 0
    response = json.loads(out[0])
    assert response["error"]["code"] == INVALID_PARAMS and "\\ud800" in response["error"]["message"]


def test_the_same_call_gives_the_same_bytes_whatever_the_hash_seed(index_dir):
    session = [initialize(), call(1, "search", {"query": "annual fee credit card", "k": 5}),
               call(2, "ask", {"question": "What is the annual fee of the platinum card?"}),
               call(3, "explain", {"query": "annual fee", "passage_id": "golden-lotus-platinum-credit-card.md#1"})]
    runs = [exchange(index_dir, session, PYTHONHASHSEED=seed)[1] for seed in ("0", "1", "12345")]
    assert runs[0] == runs[1] == runs[2]
    assert len(runs[0]) == 4


def test_standard_output_holds_only_protocol_messages(index_dir):
    status, out, err = exchange(index_dir, [initialize(), b"", b"garbage", call(1, "search", {"query": "fee"})])
    assert status == 0
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in out) and len(out) == 3
    assert b"serving index" in err  # the log is on standard error
