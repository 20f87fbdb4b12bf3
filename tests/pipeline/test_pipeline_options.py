"""The pipeline's filters: they restrict the candidates before dense recall,
and are validated and recorded sorted. (What ``ask --pipeline`` does with
each ``ask`` option is tested in tests/cli/test_ask_pipeline.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from regrag import Index, InputError
from regrag.pipeline.preprocess import Preprocessing
from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline

REPO = Path(__file__).resolve().parents[2]
CORPUS = str(REPO / "corpora" / "vn-stock-news" / "documents")
QUESTION = "Lãi sau thuế quý 2/2026 của QMS là bao nhiêu?"


class SyllableEmbedder:
    """Deterministic bag-of-syllables vectors (as in test_stock_news.py)."""

    name = "test-syllables-64"
    dimension = 64

    def embed(self, texts):
        import hashlib
        import math

        vectors = []
        for text in texts:
            vector = [0.0] * self.dimension
            for token in text.split():
                vector[int(hashlib.sha256(token.encode()).hexdigest(), 16) % self.dimension] += 1.0
            norm = math.sqrt(math.fsum(v * v for v in vector)) or 1.0
            vectors.append([v / norm for v in vector])
        return vectors


@pytest.fixture(scope="module")
def index():
    return Index.from_path(CORPUS)


@pytest.mark.parametrize("mode", ["rerank", "rrf", "dense", "lexical"])
def test_filters_restrict_candidates_before_dense_recall(index, mode):
    filters = ("category=xu-huong-thi-truong",)  # not the category of the QMS article
    embedder = None if mode == "lexical" else SyllableEmbedder()
    config = PipelineConfig(mode=mode, dense_k=6, k=5, filters=filters)
    runner = StockNewsPipeline(index, embedder, config=config)
    hits = runner.retrieve(QUESTION)
    allowed = index.filtered_positions(filters)
    assert hits and all(index.position_of(h.passage_id) in allowed for h in hits)
    if mode != "lexical":
        # the dense list is the filtered prefix of the whole dense ranking, ranks renumbered from 1
        vector = SyllableEmbedder().embed([Preprocessing().apply(QUESTION)])[0]
        everything = [h.id for h in runner.vector_index.search(vector, len(runner.vector_index))]
        expected = [pid for pid in everything if index.position_of(pid) in allowed][:6]
        dense = runner._dense(vector, 6, allowed)
        assert [pid for pid, _r, _d in dense] == expected
        assert [r for _pid, r, _d in dense] == list(range(1, 7))
    if mode == "rerank":
        # an unfiltered rerank over the same corpus picks at least one passage outside the filter
        free = StockNewsPipeline(index, SyllableEmbedder(), config=PipelineConfig(mode=mode, dense_k=6, k=5))
        assert any(index.position_of(h.passage_id) not in allowed for h in free.retrieve(QUESTION))


def test_filters_are_validated_and_recorded_sorted():
    assert PipelineConfig(filters=("language=vi", "date>=2026-01-01")).filters == ("date>=2026-01-01", "language=vi")
    assert PipelineConfig().to_dict()["filters"] == []
    with pytest.raises(InputError):
        PipelineConfig(filters=("no operator",))
