"""MCP over an index with stored dense vectors: ``verify`` recomputes a dense or fused hit's scores from
the stored vectors and the query vector (given, or read from the call's ledger entry), refuses a vector
that is not the hit's and a forged score, and ``search``/``ask`` offer dense and fused only when queries
can be embedded."""

from __future__ import annotations

import json

import pytest

from regrag import Index
from regrag.cli import main
from regrag.dense import generation
from regrag.dense.records import dense_call_record
from regrag.dense.search import DenseSearcher
from regrag.dense.store import embed_index
from regrag.integrations.mcp_server import McpServer
from regrag.integrations.tools import call_tool, tools
from tests.dense.support import HashingEmbedder

DOCUMENTS = [
    {"id": "a", "title": "Alpha", "text": "alpha fee rate on deposits"},
    {"id": "b", "title": "Beta", "text": "beta rate for loans"},
    {"id": "c", "title": "Gamma", "text": "gamma fee rate and penalty"},
    {"id": "d", "title": "Delta", "text": "delta of the river"},
]
QUERY = "fee rate penalty"


@pytest.fixture()
def served(tmp_path):
    corpus, directory = tmp_path / "docs.jsonl", tmp_path / "index"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCUMENTS), encoding="utf-8")
    assert main(["index", str(corpus), "--out", str(directory), "--quiet"]) == 0
    embedder = HashingEmbedder()
    generation.publish_vectors(directory, Index.open(directory), embed_index(Index.open(directory), embedder))
    index = Index.open(directory)
    return index, DenseSearcher(index, generation.load(directory, index), embedder)


@pytest.mark.parametrize("method", ["dense", "fused", "rerank"])
def test_dense_hits_verify_from_the_query_vector_or_the_ledger_entry(served, method):
    index, searcher = served
    result = call_tool(index, "search", {"query": QUERY, "k": 3, "method": method}, dense=searcher)
    vector = list(searcher.query_vector(QUERY))
    hits = searcher.search(QUERY, k=3, method=method)
    entry = {"hash": "0" * 64, "record": dense_call_record(QUERY, {"method": method}, searcher, hits, vector)}
    assert [h["passage_id"] for h in result["hits"]] == [h.passage_id for h in hits]
    for hit in result["hits"]:
        for given in ({"query_vector": vector}, {"ledger_entry": entry}, {"ledger_entry": entry["record"]}):
            report = call_tool(index, "verify", {"record": hit, **given}, dense=searcher)
            assert report["valid"], report["checks"]
        without = call_tool(index, "verify", {"record": hit}, dense=searcher)
        assert not without["valid"] and "query vector" in _detail(without, "scores")


def test_a_wrong_vector_or_a_forged_score_is_refused(served):
    index, searcher = served
    hit = call_tool(index, "search", {"query": QUERY, "k": 1, "method": "fused"}, dense=searcher)["hits"][0]
    other = list(searcher.query_vector("river delta"))
    report = call_tool(index, "verify", {"record": hit, "query_vector": other}, dense=searcher)
    assert not report["valid"] and "SHA-256" in _detail(report, "scores")
    vector = list(searcher.query_vector(QUERY))
    forged = {**hit, "retrievers": [{**r, "score": r["score"] + 1.0} if r["retriever"] == "dense" else r
                                    for r in hit["retrievers"]]}
    report = call_tool(index, "verify", {"record": forged, "query_vector": vector}, dense=searcher)
    assert not report["valid"] and "dense" in _detail(report, "scores")
    forged = {**hit, "score": hit["score"] * 2}
    assert not call_tool(index, "verify", {"record": forged, "query_vector": vector}, dense=searcher)["valid"]


def test_a_forged_rerank_hit_is_refused(served):
    index, searcher = served
    vector = list(searcher.query_vector(QUERY))
    hit = call_tool(index, "search", {"query": QUERY, "k": 1, "method": "rerank"}, dense=searcher)["hits"][0]
    assert [r["retriever"] for r in hit["retrievers"]] == ["bm25", "dense"]
    assert call_tool(index, "verify", {"record": hit, "query_vector": vector}, dense=searcher)["valid"]
    for forged in ({**hit, "score": hit["score"] + 1.0},  # not its bm25 score
                   {**hit, "retrievers": hit["retrievers"][:1]},  # no dense entry
                   {**hit, "retrievers": [hit["retrievers"][0], {**hit["retrievers"][0], "retriever": "tfidf"},
                                          hit["retrievers"][1]]}):  # rerank has no tfidf list
        report = call_tool(index, "verify", {"record": forged, "query_vector": vector}, dense=searcher)
        assert not report["valid"], forged


def test_without_vectors_a_dense_hit_is_not_verified_and_lexical_tools_are_unchanged(served):
    index, searcher = served
    hit = call_tool(index, "search", {"query": QUERY, "k": 1, "method": "dense"}, dense=searcher)["hits"][0]
    report = call_tool(index, "verify", {"record": hit})
    assert not report["valid"]
    lexical = call_tool(index, "search", {"query": QUERY, "k": 2}, dense=searcher)
    assert lexical == call_tool(index, "search", {"query": QUERY, "k": 2})
    assert call_tool(index, "verify", {"record": lexical["hits"][0]}, dense=searcher)["valid"]
    assert [t.to_dict() for t in tools(index)] != [t.to_dict() for t in tools(index, searcher)]


def test_search_offers_dense_methods_only_with_an_embedder(served):
    index, searcher = served
    enum = lambda dense: {t.name: t.input_schema for t in tools(index, dense)}["search"]["properties"]["method"]["enum"]
    assert "dense" in enum(searcher) and "fused" in enum(searcher)
    assert "dense" not in enum(DenseSearcher(index, searcher.vectors, None)) and "dense" not in enum(None)
    assert "query_vector" in {t.name: t.input_schema for t in tools(index, DenseSearcher(index, searcher.vectors))}[
        "verify"]["properties"]


def test_dense_ask_over_mcp_cites_dense_hits(served):
    index, searcher = served
    server = McpServer(index, log=lambda line: None, dense=searcher)
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "ask", "arguments": {"question": "what is the gamma penalty fee", "method": "fused"}}}
    from regrag.integrations.jsonrpc import parse_message

    response = server.handle(parse_message(json.dumps(request).encode()))
    answer = response["result"]["structuredContent"]
    assert answer["hits"] and all(h["method"] == "fused" and h["index_id"] == searcher.dense_index_id
                                  for h in answer["hits"])


def _detail(report, name):
    return next(check["detail"] for check in report["checks"] if check["check"] == name)
