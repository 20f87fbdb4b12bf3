"""``regrag mcp`` driven by the official MCP Python SDK (``mcp``, a test-only
dependency: ``pip install -e ".[test-integrations]"``): its stdio client
starts the server as a subprocess, negotiates, lists the tools (the SDK
validates every structured result against the tool's output schema) and
calls each of them. Skipped when the SDK is not installed."""

from __future__ import annotations

import json

import pytest

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402  (installed with mcp)

from .conftest import REPO, server_command, server_environment  # noqa: E402


def _parameters(index_dir):
    command = server_command(index_dir)
    return mcp.StdioServerParameters(command=command[0], args=command[1:], env=server_environment(), cwd=str(REPO))


def _run(index_dir, body, mode: str = "legacy"):
    async def main():
        async with mcp.Client(_parameters(index_dir), mode=mode, read_timeout_seconds=120) as client:
            return await body(client)

    return anyio.run(main)


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # auto: the SDK probes server/discover, then falls back
def test_the_sdk_connects_and_lists_the_four_tools(index_dir, mode):
    async def body(client):
        return client.protocol_version, await client.list_tools()

    version, listed = _run(index_dir, body, mode)
    assert version == "2025-11-25"
    tools = {tool.name: tool for tool in listed.tools}
    assert list(tools) == ["search", "ask", "explain", "verify"]
    assert tools["search"].input_schema["required"] == ["query"]
    assert tools["explain"].input_schema["required"] == ["query", "passage_id"]
    assert all(tool.output_schema is not None for tool in tools.values())
    assert all(tool.annotations.read_only_hint and tool.annotations.idempotent_hint for tool in tools.values())


def test_search_ask_explain_verify_through_the_sdk(index_dir):
    async def body(client):
        searched = await client.call_tool("search", {"query": "annual fee platinum card", "k": 3, "method": "bm25"})
        hit = searched.structured_content["hits"][0]
        answered = await client.call_tool("ask", {"question": "What is the overseas cash withdrawal fee?"})
        explained = await client.call_tool("explain", {"query": "annual fee platinum card",
                                                       "passage_id": hit["passage_id"]})
        verified = await client.call_tool("verify", {"record": hit, "quote": hit["text"][:40]})
        forged = await client.call_tool("verify", {"record": {**hit, "score": hit["score"] * 2,
                                                              "text": hit["text"] + " and no fee at all"}})
        return searched, answered, explained, verified, forged

    searched, answered, explained, verified, forged = _run(index_dir, body)
    assert not searched.is_error
    hits = searched.structured_content["hits"]
    assert len(hits) == 3 and all(hit["method"] == "bm25" for hit in hits)
    assert json.loads(searched.content[0].text) == searched.structured_content
    from regrag import Index

    index = Index.from_path()
    expected = index.search("annual fee platinum card", k=3, method="bm25")
    assert [{key: value for key, value in hit.items() if key != "text"} for hit in hits] == [
        json.loads(h.to_json()) for h in expected]
    assert [hit["text"] for hit in hits] == [index.passage_text(h.passage_id) for h in expected]
    assert searched.structured_content["generation"] == 1
    assert answered.structured_content["found"] is True and "1.5%" in answered.structured_content["text"]
    assert answered.structured_content["sentences"]
    for sentence in answered.structured_content["sentences"]:
        passage = next(h for h in answered.structured_content["hits"] if h["passage_id"] == sentence["passage_id"])
        assert sentence["text"] in passage["text"]  # every sentence is quoted from a passage it cites
    assert explained.structured_content["bm25"]["score"] == hits[0]["score"]
    assert verified.structured_content["valid"] is True and verified.structured_content["proof"]["document_id"]
    assert forged.structured_content["valid"] is False
    failed = {check["check"] for check in forged.structured_content["checks"] if not check["ok"]}
    assert failed == {"scores", "text"}


def test_errors_through_the_sdk(index_dir):
    async def body(client):
        unknown = None
        try:
            await client.call_tool("delete_everything", {})
        except mcp.MCPError as error:
            unknown = error
        bad_arguments = await client.call_tool("search", {"query": "fee", "k": "ten"})
        bad_passage = await client.call_tool("explain", {"query": "fee", "passage_id": "nowhere.md#9"})
        return unknown, bad_arguments, bad_passage

    unknown, bad_arguments, bad_passage = _run(index_dir, body)
    assert unknown is not None and unknown.code == -32602 and "delete_everything" in str(unknown)
    assert bad_arguments.is_error and "arguments.k must be an integer" in bad_arguments.content[0].text
    assert bad_passage.is_error and "nowhere.md#9" in bad_passage.content[0].text

