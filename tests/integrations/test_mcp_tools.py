"""The MCP tools in process: schema checks, results equal to the engine's,
``verify`` catching each kind of forgery, and the stdio loop on in-memory
streams (line cap, lone surrogates, a bug kept off standard output)."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings, strategies as st

from regrag import InputError
from regrag.integrations import jsonrpc, schema
from regrag.integrations.mcp_server import McpServer
from regrag.integrations.tools import call_tool, tools

QUERY = "overseas cash withdrawal fee"


def test_every_tool_schema_is_checkable_and_strict(default_index):
    for tool in tools(default_index):
        assert tool.input_schema["additionalProperties"] is False
        with pytest.raises(schema.SchemaError, match="required"):
            schema.check({}, tool.input_schema)
        with pytest.raises(schema.SchemaError, match="unknown argument"):
            schema.check({name: "x" for name in tool.input_schema["required"]} | {"bogus": 1}, tool.input_schema)


@pytest.mark.parametrize("arguments, message", [
    ({"query": ""}, "at least 1"), ({"query": "x" * 10_001}, "at most 10,000"), ({"query": "fee", "k": 1.5}, "integer"),
    ({"query": "fee", "k": 10_001}, "at most 10,000"), ({"query": "fee", "filters": "a=b"}, "array"),
    ({"query": "fee", "filters": [3]}, r"filters\[0\] must be a string"), ({"query": "fee", "entities": 1}, "true or false"),
])
def test_schema_errors_name_the_argument(default_index, arguments, message):
    with pytest.raises(schema.SchemaError, match=message):
        call_tool(default_index, "search", arguments)


def test_ask_threshold_must_be_a_finite_number(default_index):
    with pytest.raises(schema.SchemaError, match="at most 1"):
        call_tool(default_index, "ask", {"question": "fee", "threshold": 2})
    with pytest.raises(schema.SchemaError, match="a number"):
        call_tool(default_index, "ask", {"question": "fee", "threshold": "high"})


def test_results_are_the_engines(default_index):
    searched = call_tool(default_index, "search", {"query": QUERY, "k": 3, "method": "tfidf"})
    hits = default_index.search(QUERY, k=3, method="tfidf")
    assert [{k: v for k, v in hit.items() if k != "text"} for hit in searched["hits"]] == [h.to_dict() for h in hits]
    asked = call_tool(default_index, "ask", {"question": "How much is the early closure fee?"})
    assert asked["text"] == default_index.ask("How much is the early closure fee?").text and asked["found"]
    assert all(call_tool(default_index, "verify", {"record": hit})["valid"] for hit in asked["hits"])
    explained = call_tool(default_index, "explain", {"query": QUERY, "passage_id": hits[0].passage_id})
    assert explained["tfidf"]["score"] == hits[0].score
    assert explained["text"] == default_index.passage_text(hits[0].passage_id)


def _tampered(record: dict, **changes) -> dict:
    return {**record, **changes}


def test_verify_catches_each_forgery(default_index):
    record = call_tool(default_index, "search", {"query": QUERY, "k": 2})["hits"][1]
    assert call_tool(default_index, "verify", {"record": record})["valid"]

    def failed(forged: dict, quote: str | None = None) -> set[str]:
        arguments = {"record": forged} if quote is None else {"record": forged, "quote": quote}
        report = call_tool(default_index, "verify", arguments)
        assert report["valid"] is not bool({c["check"] for c in report["checks"] if not c["ok"]})
        return {check["check"] for check in report["checks"] if not check["ok"]}

    start, end = record["passage_span"]
    assert failed(_tampered(record, index_id="0" * 64)) == {"index_id"}
    assert failed(_tampered(record, corpus_root="0" * 64)) == {"corpus_root"}
    assert failed(_tampered(record, passage_span=[start, end + 1])) == {"passage"}
    assert failed(_tampered(record, section_title="Fees")) == {"passage"}
    assert failed(_tampered(record, text=record["text"].replace("1", "2"))) == {"text"}
    assert failed(_tampered(record, score=record["score"] + 1e-12)) == {"scores"}
    retrievers = [dict(r, score=r["score"] * 1.5) if r["retriever"] == "bm25" else r for r in record["retrievers"]]
    assert failed(_tampered(record, retrievers=retrievers)) == {"scores"}
    ranks = [dict(r, rank=r["rank"] + 1) for r in record["retrievers"]]
    assert failed(_tampered(record, retrievers=ranks)) == {"scores"}  # the fused score no longer follows
    assert failed(_tampered(record, matches=[])) == {"matches"}
    assert failed(_tampered(record, query_terms=["fee"])) == {"query_terms"}
    assert failed(record, quote="no such sentence") == {"quote"}
    assert failed(_tampered(record, passage_id="nowhere.md#1")) == {"passage"}
    report = call_tool(default_index, "verify", {"record": record, "quote": record["text"][10:50]})
    assert report["valid"] and report["proof"]["root"] == default_index.corpus_root


def _serve(index, data: bytes, **options) -> tuple[list[dict], list[str]]:
    out, logged = io.BytesIO(), []
    McpServer(index, log=logged.append, **options).serve(io.BytesIO(data), out)
    return [json.loads(line) for line in out.getvalue().splitlines()], logged


def test_the_line_cap_counts_bytes_and_keeps_the_stream_in_step(default_index):
    ping = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    responses, _log = _serve(default_index, b"x" * 5000 + b"\n" + ping + b"\n" + ping, max_message_bytes=len(ping))
    assert [r.get("error", {}).get("code") for r in responses] == [jsonrpc.INVALID_REQUEST, None, None]


def test_a_bug_is_an_internal_error_with_the_traceback_only_in_the_log(default_index, monkeypatch):
    from regrag.integrations import mcp_server

    def broken(*_arguments):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(mcp_server, "call_tool", broken)
    line = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": "search", "arguments": {"query": "fee"}}}).encode()
    responses, logged = _serve(default_index, line + b"\n")
    assert responses == [{"error": {"code": jsonrpc.INTERNAL_ERROR, "message": "Internal error (see the server's "
                                    "standard error)"}, "id": 7, "jsonrpc": "2.0"}]
    assert any("ZeroDivisionError: boom" in entry for entry in logged)


def test_a_lone_surrogate_is_written_as_its_json_escape():
    out = io.BytesIO()
    jsonrpc.write_message(out, {"id": 1, "jsonrpc": "2.0", "result": {"text": "a\ud800b\nc"}})
    assert out.getvalue() == b'{"id":1,"jsonrpc":"2.0","result":{"text":"a\\ud800b\\nc"}}\n'
    assert json.loads(out.getvalue())["result"]["text"] == "a\ud800b\nc"


def test_an_unknown_tool_is_an_input_error(default_index):
    with pytest.raises(InputError, match="unknown tool"):
        call_tool(default_index, "rm", {})


def test_nothing_in_regrag_imports_the_framework_modules():
    """langchain and llama_index import optional frameworks at module level: no module of regrag may import them."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("layers", Path(__file__).resolve().parents[1] / "test_layers.py")
    layers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layers)
    framework_modules = {"regrag.integrations.langchain", "regrag.integrations.llama_index"}
    importers = sorted(name for name, targets in layers.graph().items() if framework_modules & set(targets))
    assert importers == []
    assert framework_modules <= set(layers.modules())


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(changes=st.dictionaries(st.sampled_from(["passage_id", "query", "retrievers", "method", "score", "matches",
                                                "query_terms", "text", "passage_span", "index_id", "document_id"]),
                               json_values, max_size=4))
def test_verify_never_fails_on_a_malformed_record(default_index, changes):
    record = call_tool(default_index, "search", {"query": QUERY, "k": 1})["hits"][0]
    report = call_tool(default_index, "verify", {"record": {**record, **changes}})
    assert isinstance(report["valid"], bool) and report["checks"]
    json.dumps(report, allow_nan=False)


@pytest.mark.parametrize("changes", [
    {"retrievers": [{"retriever": [1], "rank": 1, "score": 1.0}]}, {"retrievers": [{"retriever": "bm25", "rank": [2]}]},
    {"retrievers": [{"retriever": "tfidf", "rank": True}], "method": "hybrid"}, {"retrievers": "bm25"},
    {"method": ["bm25"]}, {"passage_id": {"a": 1}}, {"query": ["fee"]}, {"query": "x" * 20_000},
    {"passage_span": "0:10"}, {"matches": [[1, 2]]}, {"text": None}, {"retrievers": [], "score": 0.0},
    {"retrievers": [{"retriever": "dense", "rank": 1, "score": 0.5}], "score": 1 / 61},
    {"method": "bm25"}, {"method": "dense"},
])
def test_verify_reports_a_malformed_record_as_invalid(default_index, changes):
    record = call_tool(default_index, "search", {"query": QUERY, "k": 1})["hits"][0]
    report = call_tool(default_index, "verify", {"record": {**record, **changes}})
    assert report["valid"] is False


messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0"]), "method": st.sampled_from(["tools/call", "tools/list", "ping", "x"])},
    optional={"id": st.integers() | st.text(max_size=4) | st.none(),
              "params": st.fixed_dictionaries({}, optional={"name": st.sampled_from(["search", "ask", "explain", "verify", "?"]),
                                                            "arguments": json_values}) | json_values})


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.binary(max_size=40).filter(lambda b: b"\n" not in b)
                      | messages.map(lambda m: json.dumps(m).encode()), min_size=1, max_size=5))
def test_the_server_answers_anything_without_a_bug(default_index, lines):
    responses, logged = _serve(default_index, b"\n".join(lines) + b"\n")
    assert all(response["jsonrpc"] == "2.0" and ("result" in response) != ("error" in response) for response in responses)
    assert not any("internal error" in entry for entry in logged), logged
