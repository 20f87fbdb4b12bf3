"""``regrag.integrations.llama_index.RegragRetriever``: a LlamaIndex
retriever whose nodes are regrag's hits, the passage span as the node's
character indexes. Skipped when llama-index-core is not installed
(``regrag[llamaindex]``)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.retrievers import BaseRetriever  # noqa: E402
from llama_index.core.schema import MetadataMode, TextNode  # noqa: E402

from regrag.integrations.llama_index import SHOWN_METADATA, RegragRetriever  # noqa: E402

QUERY = "overseas cash withdrawal fee"


def test_nodes_are_the_hits_with_their_span_text_and_provenance(default_index):
    retriever = RegragRetriever(default_index, k=3)
    assert isinstance(retriever, BaseRetriever)
    nodes = retriever.retrieve(QUERY)
    hits = default_index.search(QUERY, k=3)
    assert [n.node.id_ for n in nodes] == [h.passage_id for h in hits]
    assert [n.score for n in nodes] == [h.score for h in hits]
    for scored, hit in zip(nodes, hits):
        node = scored.node
        assert isinstance(node, TextNode)
        text = default_index.document(hit.document_id).text
        assert (node.start_char_idx, node.end_char_idx) == hit.passage_span
        assert node.get_content() == text[node.start_char_idx : node.end_char_idx] == node.text
        assert node.metadata == hit.to_dict()


def test_the_llm_and_the_embedder_see_only_the_citation_fields(default_index):
    node = RegragRetriever(default_index, k=1).retrieve(QUERY)[0].node
    for mode in (MetadataMode.LLM, MetadataMode.EMBED):
        shown = node.get_metadata_str(mode)
        assert [line.split(":")[0] for line in shown.splitlines()] == list(SHOWN_METADATA)
    assert "index_id" in node.get_metadata_str(MetadataMode.ALL)


def test_a_directory_options_and_async(default_index, tmp_path):
    default_index.save(tmp_path / "index")
    retriever = RegragRetriever(tmp_path / "index", k=2, method="tfidf", filters=["issuer=Harbourline Savings Bank"])
    nodes = retriever.retrieve("fee")
    expected = default_index.search("fee", k=2, method="tfidf", filters=["issuer=Harbourline Savings Bank"])
    assert [n.node.id_ for n in nodes] == [h.passage_id for h in expected] and len(nodes) == 2
    again = asyncio.run(retriever.aretrieve("fee"))
    assert [(n.node.id_, n.score) for n in again] == [(n.node.id_, n.score) for n in nodes]
