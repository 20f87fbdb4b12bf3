"""Incremental updates equal a rebuild, bit for bit: rankings, scores,
provenance, index id, corpus root and the bytes written to disk."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import Index, InputError
from regrag.corpus.model import Document, Section
from regrag.index import codec as storage

WORDS = ["apple", "banana", "cherry", "fee", "rate", "VNM", "3.5%", "ngân hàng", "lãi suất", "年费", "利率", "margin", "loan"]
QUERIES = ["apple fee", "cherry rate VNM", "lãi suất ngân hàng", "年费 利率", "margin loan 3.5%", "banana"]


def document(document_id: str, words: list[str], title: str) -> Document:
    text = " ".join(words) + "."
    return Document(document_id, title, text, (Section(title, 0, len(text)),), (("issuer", title),), f"{document_id}.md")


documents_strategy = st.builds(
    document,
    st.sampled_from([f"d{i}" for i in range(8)]),
    st.lists(st.sampled_from(WORDS), min_size=0, max_size=12),
    st.sampled_from(["", "Fees", "Rates"]),
)
operation = st.one_of(
    st.tuples(st.just("upsert"), documents_strategy),
    st.tuples(st.just("delete"), st.sampled_from([f"d{i}" for i in range(8)])),
)


def fingerprint(index: Index) -> dict:
    """Everything observable: ids, every file's bytes, every result's provenance."""
    files = storage.serialise(index.inverted, "test")
    results = {
        (query, method): [hit.to_json() for hit in index.search(query, k=20, method=method)]
        for query in QUERIES
        for method in ("bm25", "tfidf", "hybrid")
    }
    return {"id": index.index_id, "root": index.corpus_root, "files": files, "results": results}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(documents_strategy, min_size=1, max_size=6), st.lists(operation, max_size=8))
def test_any_update_sequence_equals_a_rebuild(initial, operations):
    corpus: dict[str, Document] = {}
    for item in initial:
        corpus[item.id] = item
    index = Index.from_documents(corpus.values())
    for kind, value in operations:
        if kind == "upsert":
            corpus[value.id] = value
            index = index.updated([value], [])
        elif value in corpus:
            del corpus[value]
            index = index.updated([], [value])
    assert fingerprint(index) == fingerprint(Index.from_documents(corpus.values()))


def test_update_of_a_sample_corpus_equals_a_rebuild():
    base = Index.from_path("corpora/vn-stock-news/documents")
    documents = [base.document(key) for key in sorted(base.inverted.documents)]
    changed = Document(documents[3].id, documents[3].title, documents[3].text + " Thêm một câu về VNM.",
                       documents[3].sections, documents[3].metadata, documents[3].source)
    final = [changed] + documents[:3] + documents[5:]
    upserts, deletions = base.changes_to(final)
    assert [d.id for d in upserts] == [changed.id]
    assert deletions == [documents[4].id]
    assert fingerprint(base.updated(upserts, deletions)) == fingerprint(Index.from_documents(final))


def test_changes_to_the_same_corpus_is_empty_and_update_is_identity():
    base = Index.from_path("corpora/regulations/documents")
    documents = list(base.inverted.documents.values())
    assert base.changes_to(documents) == ([], [])
    assert fingerprint(base.updated([], [])) == fingerprint(base)


def test_update_errors_are_clear(tiny_documents):
    index = Index.from_documents(tiny_documents)
    with pytest.raises(InputError, match="cannot delete 'nope'"):
        index.updated([], ["nope"])
    with pytest.raises(InputError, match="both replaced and deleted"):
        index.updated([tiny_documents[0]], [tiny_documents[0].id])
    with pytest.raises(InputError, match="duplicate document id"):
        index.updated([tiny_documents[0], tiny_documents[0]], [])
    with pytest.raises(InputError, match="duplicate document id"):
        index.changes_to([tiny_documents[0], tiny_documents[0]])


def test_updating_to_an_empty_corpus_equals_an_empty_index(tiny_documents):
    index = Index.from_documents(tiny_documents).updated([], [d.id for d in tiny_documents])
    assert fingerprint(index) == fingerprint(Index.from_documents([]))
