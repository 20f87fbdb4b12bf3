"""``regrag.integrations.langchain.RegragRetriever``: a LangChain retriever
whose documents are regrag's hits, id, text and provenance unchanged.
Skipped when langchain-core is not installed (``regrag[langchain]``)."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("langchain_core")

from langchain_core.retrievers import BaseRetriever  # noqa: E402

from regrag import Index  # noqa: E402
from regrag.integrations.langchain import RegragRetriever  # noqa: E402

QUERY = "overseas cash withdrawal fee"


def test_documents_are_the_hits_with_their_text_and_provenance(default_index):
    retriever = RegragRetriever(index=default_index, k=3)
    assert isinstance(retriever, BaseRetriever)
    documents = retriever.invoke(QUERY)
    hits = default_index.search(QUERY, k=3)
    assert [d.id for d in documents] == [h.passage_id for h in hits]
    for document, hit in zip(documents, hits):
        start, end = hit.passage_span
        assert document.page_content == default_index.document(hit.document_id).text[start:end]
        assert document.metadata == hit.to_dict()
        assert json.dumps(document.metadata, sort_keys=True, separators=(",", ":"), ensure_ascii=False) == hit.to_json()


def test_options_and_an_index_directory(default_index, tmp_path):
    default_index.save(tmp_path / "index")
    retriever = RegragRetriever(index=str(tmp_path / "index"), k=2, method="bm25",
                                filters=["issuer=Harbourline Savings Bank"], entities=False)
    assert isinstance(retriever.index, Index) and retriever.index.generation.number == 1
    documents = retriever.invoke("fee")
    expected = default_index.search("fee", k=2, method="bm25", filters=["issuer=Harbourline Savings Bank"], entities=False)
    assert [d.id for d in documents] == [h.passage_id for h in expected] and len(documents) == 2
    assert all(d.metadata["document_id"].startswith("harbourline") for d in documents)


def test_batch_and_async_give_the_same_documents(default_index):
    retriever = RegragRetriever(index=default_index, k=4)
    once = retriever.invoke(QUERY)
    assert retriever.batch([QUERY, QUERY]) == [once, once]
    assert asyncio.run(retriever.ainvoke(QUERY)) == once


def test_bad_options_are_regrag_errors(default_index):
    from regrag import InputError

    with pytest.raises(InputError, match="method"):
        RegragRetriever(index=default_index, method="magic").invoke(QUERY)
