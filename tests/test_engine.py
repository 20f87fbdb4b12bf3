"""Index.search: total order, k results, filters before the cut, hybrid fusion."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from regrag import Index, InputError
from regrag.corpus.model import Document, Section
from regrag.retrieval.fusion import rrf_contribution

VOCABULARY = ["rate", "fee", "card", "loan", "limit", "bank", "margin", "ON", "VN30", "3.45%", "费用", "年费", "lãi suất"]


def _corpus(rows: list[tuple[list[str], str]]) -> list[Document]:
    documents = []
    for number, (words, date) in enumerate(rows):
        text = ". ".join(" ".join(words[i : i + 3]) for i in range(0, len(words), 3))
        documents.append(
            Document(f"doc-{number:02d}", "", text, (Section("", 0, len(text)),), (("date", date),), "test")
        )
    return documents


corpora = st.lists(
    st.tuples(
        st.lists(st.sampled_from(VOCABULARY), min_size=0, max_size=15),
        st.sampled_from(["2024-01-01", "2024-06-30", "2025-03-15"]),
    ),
    min_size=1,
    max_size=12,
)
queries = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=3).map(" ".join)


def _order_key(hit):
    document_id, _, number = hit.passage_id.rpartition("#")
    return (-hit.score, document_id, int(number))


@settings(max_examples=80, deadline=None)
@given(rows=corpora, query=queries, k=st.integers(1, 15), method=st.sampled_from(["bm25", "tfidf", "hybrid"]))
def test_total_order_no_duplicates_exactly_k(rows, query, k, method):
    index = Index.from_documents(_corpus(rows))
    hits = index.search(query, k=k, method=method)
    ids = [hit.passage_id for hit in hits]
    assert len(ids) == len(set(ids))
    assert [hit.rank for hit in hits] == list(range(1, len(hits) + 1))
    if method != "hybrid":
        assert [_order_key(h) for h in hits] == sorted(_order_key(h) for h in hits)
        matching = sum(1 for p in index.inverted.passages if index.explain(query, p.id).bm25.terms)
        assert len(hits) == min(k, matching)
    else:
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


@settings(max_examples=40, deadline=None)
@given(rows=corpora, query=queries, seed=st.integers(0, 2**32 - 1))
def test_insertion_order_does_not_matter(rows, query, seed):
    documents = _corpus(rows)
    shuffled = documents[:]
    random.Random(seed).shuffle(shuffled)
    first = Index.from_documents(documents)
    second = Index.from_documents(shuffled)
    assert first.index_id == second.index_id
    for method in ("bm25", "tfidf", "hybrid"):
        assert [h.to_json() for h in first.search(query, k=20, method=method)] == [
            h.to_json() for h in second.search(query, k=20, method=method)
        ]


@settings(max_examples=40, deadline=None)
@given(rows=corpora, query=queries, k=st.integers(1, 6))
def test_filters_apply_before_the_cut(rows, query, k):
    index = Index.from_documents(_corpus(rows))
    filtered = index.search(query, k=k, method="bm25", filters=["date>=2025-01-01"])
    everything = index.search(query, k=10_000, method="bm25")
    expected = [h.passage_id for h in everything if index.document(h.document_id).metadata_dict()["date"] >= "2025-01-01"][:k]
    assert [h.passage_id for h in filtered] == expected


def test_hybrid_fused_score_is_sum_of_reciprocal_ranks(default_index):
    hits = default_index.search("margin interest rate fee", k=10, method="hybrid")
    bm25 = {h.passage_id: h.rank for h in default_index.search("margin interest rate fee", k=100, method="bm25")}
    tfidf = {h.passage_id: h.rank for h in default_index.search("margin interest rate fee", k=100, method="tfidf")}
    for hit in hits:
        expected = 0.0
        for ranks in (bm25, tfidf):
            if hit.passage_id in ranks:
                expected += rrf_contribution(ranks[hit.passage_id])
        assert hit.score == expected
        assert {r.retriever: r.rank for r in hit.retrievers} == {
            name: ranks[hit.passage_id] for name, ranks in (("bm25", bm25), ("tfidf", tfidf)) if hit.passage_id in ranks
        }


def test_equality_filter_and_unknown_field(default_index):
    hits = default_index.search("fee", k=50, filters={"language": "zh"})
    assert hits and all(default_index.document(h.document_id).metadata_dict()["language"] == "zh" for h in hits)
    with pytest.raises(InputError, match="no document has metadata field 'colour'"):
        default_index.search("fee", filters=["colour=red"])
    with pytest.raises(InputError, match="bad filter"):
        default_index.search("fee", filters=["effective_date>=yesterday"])
    with pytest.raises(InputError):
        default_index.search("fee", filters="language=zh")


@pytest.mark.parametrize(
    "arguments",
    [{"k": 0}, {"k": -1}, {"k": True}, {"method": "bm26"}, {"rrf_depth": 0}],
)
def test_bad_arguments_raise_input_error(default_index, arguments):
    with pytest.raises(InputError):
        default_index.search("fee", **arguments)


def test_queries_without_known_terms_return_nothing(default_index):
    for query in ["", "   ", "the of and", "!!!", "zzzzqqq"]:
        assert default_index.search(query) == []


def test_ranking_matches_search(default_index):
    for method in ("bm25", "tfidf", "hybrid"):
        hits = default_index.search("interest rate", k=7, method=method)
        assert default_index.ranking("interest rate", k=7, method=method) == [
            (h.document_id, h.passage_id, h.score) for h in hits
        ]
