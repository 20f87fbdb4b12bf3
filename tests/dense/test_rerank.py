"""``--method rerank`` (the published stock-news design over stored vectors): the dense top 20, ordered by
BM25 among themselves; pool passages without a query term, then the rest of the dense list, in dense order."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from regrag import Index
from regrag.cli import main
from regrag.dense import generation
from regrag.dense.fusion_rules import RERANK_POOL
from regrag.dense.quantise import scores, top
from regrag.dense.search import DenseSearcher
from regrag.dense.store import embed_index
from tests.dense.support import HashingEmbedder

WORDS = ("fee", "rate", "loan", "card", "deposit", "month", "year", "bank", "branch", "limit", "charge", "term")


def _documents(count: int = 36) -> list[dict]:
    documents = []
    for n in range(count):
        words = [WORDS[(n * 7 + i * 5) % len(WORDS)] for i in range(4 + n % 5)]
        documents.append({"id": f"d{n:02d}", "title": f"Note {n}", "text": " ".join(words) + "."})
    return documents


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    root = tmp_path_factory.mktemp("rerank")
    corpus, directory = root / "docs.jsonl", root / "index"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in _documents()), encoding="utf-8")
    assert main(["index", str(corpus), "--out", str(directory), "--quiet"]) == 0
    index = Index.open(directory)
    generation.publish_vectors(directory, index, embed_index(index, HashingEmbedder()))
    index = Index.open(directory)
    return DenseSearcher(index, generation.load(directory, index), HashingEmbedder())


def _expected(searcher, query: str, k: int) -> list[tuple[str, float]]:
    """The rule written out from its definition, over the dense scores and BM25's own scores."""
    index = searcher.index
    vector = searcher.query_vector(query)
    dense = top(scores(vector, searcher.vectors.data, searcher.vectors.dimension, "python"), index.passage_count)
    pool = [p for p, _s in dense[:RERANK_POOL]]
    bm25 = {p: s for p, s in index.rank_positions(index.analyze_query(query), "bm25", index.passage_count)}
    matched = sorted((p for p in pool if p in bm25), key=lambda p: (-bm25[p], p))
    order = [(p, bm25[p]) for p in matched] + [(p, 0.0) for p in pool if p not in bm25]
    order += [(p, 0.0) for p, _s in dense[RERANK_POOL:]]
    return [(index.passage_id(p), s) for p, s in order[:k]]


@pytest.mark.parametrize("query", ["fee rate", "loan card limit", "branch", "nothing matches this"])
@pytest.mark.parametrize("k", [1, 5, 20, 30])
def test_rerank_follows_its_definition(searcher, query, k):
    hits = searcher.search(query, k=k, method="rerank")
    assert [(h.passage_id, h.score) for h in hits] == _expected(searcher, query, k)
    assert len(hits) == k and all(h.method == "rerank" for h in hits)


def test_each_hit_carries_its_dense_rank_and_its_bm25_rank_in_the_pool(searcher):
    query = "fee rate"
    hits = searcher.search(query, k=30, method="rerank")
    dense = {h.passage_id: (h.rank, h.score) for h in searcher.search(query, k=30, method="dense")}
    bm25_ranks = []
    for hit in hits:
        lists = {r.retriever: r for r in hit.retrievers}
        assert [r.retriever for r in hit.retrievers] in (["bm25", "dense"], ["dense"])
        assert (lists["dense"].rank, lists["dense"].score) == dense[hit.passage_id]
        if "bm25" in lists:
            assert lists["dense"].rank <= RERANK_POOL and hit.score == lists["bm25"].score
            bm25_ranks.append(lists["bm25"].rank)
        else:
            assert hit.score == 0.0
    assert bm25_ranks == list(range(1, len(bm25_ranks) + 1)) and bm25_ranks
    assert any("bm25" not in {r.retriever for r in h.retrievers} for h in hits)  # the dense tail


def test_a_recorded_query_vector_replays_without_the_embedder(searcher):
    vector = searcher.query_vector("loan card")
    again = DenseSearcher(searcher.index, searcher.vectors).search("loan card", k=25, method="rerank",
                                                                   query_vector=vector)
    assert [h.to_json() for h in again] == [h.to_json() for h in searcher.search("loan card", k=25, method="rerank")]


def test_filters_select_the_pool(searcher):
    allowed = {"d03", "d07", "d11", "d19", "d23", "d31"}
    index = searcher.index
    only = frozenset(p for p in range(index.passage_count) if index.passage(p).document_id in allowed)
    ranked = searcher.ranked_positions(index.analyze_query("fee rate"), searcher.query_vector("fee rate"), 10,
                                       "rerank", only)
    assert {index.passage(p).document_id for p, _s, _d in ranked} == allowed


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), st.integers(min_value=1, max_value=36))
def test_the_kernels_give_the_same_rerank(searcher, words, k):
    query = " ".join(words)
    vector = searcher.query_vector(query)
    analyzed = searcher.index.analyze_query(query)
    python = searcher.ranked_positions(analyzed, vector, k, "rerank", kernel="python")
    assert searcher.ranked_positions(analyzed, vector, k, "rerank", kernel="auto") == python
    assert [(searcher.index.passage_id(p), s) for p, s, _d in python] == _expected(searcher, query, k)
