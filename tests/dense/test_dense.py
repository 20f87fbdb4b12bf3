"""Quantised dense vectors: the rounding rule, exact integer scores (pure Python
and numpy give the same integers), ties by position, the stored files and
their checks, incremental reuse, and dense/fused provenance. A small
deterministic embedder stands in for the model (tests/dense/test_replay.py
uses the real one)."""

from __future__ import annotations

import hashlib
import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regrag import Index, InputError
from regrag.dense.quantise import check_query_vector, quantise, scores, to_bytes, top, vector_hash
from regrag.dense.search import DenseSearcher
from regrag.dense.store import embed_index
from tests.dense.support import HashingEmbedder

CORPUS = "corpora/vn-stock-news/documents"
QUESTION = "Lãi sau thuế quý 2/2026 của QMS là bao nhiêu?"


@pytest.fixture(scope="module")
def index():
    return Index.from_path(CORPUS)


@pytest.fixture(scope="module")
def vectors(index):
    return embed_index(index, HashingEmbedder())


def test_the_rounding_rule():
    assert quantise([0.0, 1.0, -1.0, 0.5 / 127, 1.5 / 127, -0.5 / 127, 2.0, -3.0]) == (0, 127, -127, 0, 2, 0, 127, -127)
    assert vector_hash([1, -1]) == hashlib.sha256(bytes([1, 255])).hexdigest()
    with pytest.raises(InputError, match="component 1 is not a finite number"):
        quantise([0.1, float("nan")])
    with pytest.raises(InputError, match="not an integer in"):
        check_query_vector([0, 128], 2)
    with pytest.raises(InputError, match="list of 3 integers"):
        check_query_vector([0, 1], 3)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12).flatmap(lambda d: st.tuples(
    st.lists(st.integers(-127, 127), min_size=d, max_size=d),
    st.lists(st.lists(st.integers(-127, 127), min_size=d, max_size=d), min_size=1, max_size=30))))
def test_scores_are_exact_integers_in_both_kernels(case):
    query, rows = case
    data = b"".join(to_bytes(row) for row in rows)
    expected = [sum(q * p for q, p in zip(query, row)) for row in rows]
    assert scores(query, data, len(query), kernel="python") == expected
    if importlib.util.find_spec("numpy") is not None:
        assert scores(query, data, len(query), kernel="numpy") == expected


def test_ties_are_broken_by_position():
    assert top([5, 7, 7, 5, 9], 4) == [(4, 9), (1, 7), (2, 7), (0, 5)]
    assert top([5, 7, 7, 5, 9], 3, allowed=frozenset({0, 2, 3})) == [(2, 7), (0, 5), (3, 5)]


def test_dense_and_fused_hits_carry_the_dense_index_id_and_the_query_vector_hash(index, vectors):
    searcher = DenseSearcher(index, vectors, HashingEmbedder())
    vector = searcher.query_vector(QUESTION)
    dense = searcher.search(QUESTION, k=5, method="dense")
    assert [h.rank for h in dense] == [1, 2, 3, 4, 5]
    assert all(h.index_id == vectors.dense_index_id != index.index_id for h in dense)
    assert all(h.to_dict()["query_vector_sha256"] == vector_hash(vector) for h in dense)
    assert [r.retriever for r in dense[0].retrievers] == ["dense"]
    assert dense[0].score == float(sum(q * p for q, p in zip(vector, vectors.row(index.position_of(dense[0].passage_id)))))
    fused = searcher.search(QUESTION, k=5, method="fused")
    assert fused[0].method == "fused" and {r.retriever for r in fused[0].retrievers} <= {"bm25", "tfidf", "dense"}
    # the same ranking from the vector alone, without an embedder
    alone = DenseSearcher(index, vectors)
    assert [h.to_json() for h in alone.search(QUESTION, k=5, method="fused", query_vector=vector)] == \
        [h.to_json() for h in fused]
    with pytest.raises(InputError, match="no embedder"):
        alone.search(QUESTION, k=5)


def test_lexical_hits_are_unchanged(index):
    hit = index.search(QUESTION, k=1)[0]
    assert "query_vector_sha256" not in hit.to_dict() and hit.index_id == index.index_id


def test_filters_apply_before_the_cut(index, vectors):
    searcher = DenseSearcher(index, vectors, HashingEmbedder())
    everything = searcher.search(QUESTION, k=100, method="dense")
    kept = searcher.search(QUESTION, k=3, method="dense", filters=["category=co-phieu-nganh"])
    allowed = index.filtered_positions(["category=co-phieu-nganh"])
    assert [h.passage_id for h in kept] == [h.passage_id for h in everything if index.position_of(h.passage_id) in allowed][:3]


def test_a_different_embedder_is_refused(index, vectors):
    with pytest.raises(InputError, match="not the one that made the stored vectors"):
        DenseSearcher(index, vectors, HashingEmbedder(version="2"))


def test_an_update_embeds_only_new_and_changed_passages(index, vectors):
    embedder = HashingEmbedder()
    documents = [index.document(d) for d in sorted(index.content_hashes())]
    smaller = Index.from_documents(documents[1:])
    again = embed_index(smaller, embedder, previous=vectors)
    assert embedder.embedded == []  # every passage was in the earlier vectors
    assert again.data == embed_index(smaller, HashingEmbedder()).data
    grown = embed_index(index, embedder, previous=again)
    assert len(embedder.embedded) == index.passage_count - smaller.passage_count
    assert grown.data == vectors.data


def test_progress_is_reported_while_embedding(index):
    seen = []
    embed_index(index, HashingEmbedder(), progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (index.passage_count, index.passage_count) and len(seen) > 1
