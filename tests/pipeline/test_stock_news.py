"""The stock-news pipeline's retrieval modes, prompt, generation and figure
checks, with a small deterministic embedder written for the tests (the real
sentence-transformers embedder is exercised in tests/adapters/)."""

from __future__ import annotations

import hashlib
import json
import math

import pytest

from regrag import Index, InputError
from regrag.adapters.base import Generation
from regrag.pipeline.preprocess import Preprocessing
from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline, load_template, render_prompt

CORPUS = "corpora/vn-stock-news/documents"
QUESTION = "Lãi sau thuế quý 2/2026 của QMS là bao nhiêu?"


class SyllableEmbedder:
    """Hashes each token into one of 64 dimensions, L2-normalised: nearest
    neighbours are the texts sharing the most tokens. Deterministic."""

    name = "test-syllables-64"
    dimension = 64

    def embed(self, texts):
        vectors = []
        for text in texts:
            vector = [0.0] * self.dimension
            for token in text.split():
                vector[int(hashlib.sha256(token.encode()).hexdigest(), 16) % self.dimension] += 1.0
            norm = math.sqrt(math.fsum(v * v for v in vector)) or 1.0
            vectors.append([v / norm for v in vector])
        return vectors


class ScriptedGenerator:
    """Returns the scripted text and remembers the prompt it was given."""

    model = "scripted"

    def __init__(self, text):
        self.text = text
        self.prompts = []

    def generate(self, prompt):
        self.prompts.append(prompt)
        return Generation(self.text, self.model, {"temperature": 0.0})


@pytest.fixture(scope="module")
def index():
    return Index.from_path(CORPUS)


def pipeline(index, mode="rerank", generator=None, **options):
    embedder = None if mode == "lexical" else SyllableEmbedder()
    return StockNewsPipeline(index, embedder, generator=generator, config=PipelineConfig(mode=mode, **options))


def test_lexical_mode_is_bm25(index):
    hits = pipeline(index, "lexical").retrieve(QUESTION)
    expected = index.search(QUESTION, k=5, method="bm25", entities=False)
    assert [h.passage_id for h in hits] == [h.passage_id for h in expected]
    assert [h.score for h in hits] == [h.score for h in expected]
    assert all(h.method == "stock-news:lexical" for h in hits)


def test_rerank_orders_the_dense_candidates_by_bm25(index):
    runner = pipeline(index, "rerank", dense_k=10)
    hits = runner.retrieve(QUESTION)
    dense = runner.vector_index.search(SyllableEmbedder().embed([Preprocessing().apply(QUESTION)])[0], 10)
    candidates = {hit.id for hit in dense}
    assert {h.passage_id for h in hits} <= candidates and len(hits) == 5
    lexical = [h for h in hits if any(r.retriever == "bm25" for r in h.retrievers)]
    assert [h.score for h in lexical] == sorted((h.score for h in lexical), reverse=True)
    for hit in hits:
        dense_result = next(r for r in hit.retrievers if r.retriever == "dense")
        assert dense_result.rank == next(d.rank for d in dense if d.id == hit.passage_id)
    assert hits[0].passage_id.startswith("016-thep-quang-minh-qms")


def test_dense_and_rrf_modes(index):
    dense_hits = pipeline(index, "dense").retrieve(QUESTION)
    assert [r.retriever for h in dense_hits for r in h.retrievers] == ["dense"] * 5
    assert [h.retrievers[0].rank for h in dense_hits] == [1, 2, 3, 4, 5]
    fused = pipeline(index, "rrf").retrieve(QUESTION)
    assert fused[0].score == max(h.score for h in fused)
    assert all(0 < h.score <= 2 / 61 for h in fused)


def test_extractive_answer_is_cited_and_faithful(index):
    answer = pipeline(index, "rerank").ask(QUESTION)
    assert answer.verdict == "answered" and "412 tỷ đồng" in answer.text and "[1]" in answer.text
    assert answer.faithfulness.faithful and len(answer.faithfulness.checks) >= 3
    record = json.loads(answer.to_json())
    assert record["provenance"]["config"]["mode"] == "rerank"
    assert record["provenance"]["embedder"]["name"] == "test-syllables-64"
    assert record["provenance"]["template"]["sha256"] == load_template("stock-news.v1")[1]
    assert record["provenance"]["corpus_root"] == index.corpus_root
    assert "timings" not in record and answer.timings["generate"] >= 0


def test_same_question_same_bytes(index):
    first = pipeline(index, "rrf").ask(QUESTION).to_json()
    assert pipeline(index, "rrf").ask(QUESTION).to_json() == first


def test_the_prompt_holds_instruction_question_and_numbered_passages(index):
    generator = ScriptedGenerator("QMS lãi 412 tỷ đồng [1].")
    answer = pipeline(index, "rerank", generator=generator).ask(QUESTION)
    prompt = generator.prompts[0]
    assert prompt.startswith("You answer questions about Vietnamese stock-market news")
    assert f"Question: {QUESTION}" in prompt
    for number, hit in enumerate(answer.hits, start=1):
        assert f"[{number}] {hit.section_title}\n" in prompt
    assert answer.provenance["prompt_sha256"] == hashlib.sha256(prompt.encode()).hexdigest()
    assert answer.verdict == "answered"


@pytest.mark.parametrize(
    ("policy", "verdict", "shown"), [("mark", "marked", True), ("refuse", "refused", False), ("allow", "answered", True)]
)
def test_an_unsupported_figure_is_marked_refused_or_allowed(index, policy, verdict, shown):
    generator = ScriptedGenerator("QMS lãi 421 tỷ đồng trong quý 2 [1].")
    answer = pipeline(index, "rerank", generator=generator, unsupported=policy).ask(QUESTION)
    assert answer.verdict == verdict and bool(answer.text) is shown
    assert [c.figure.text for c in answer.faithfulness.unsupported] == ["421"]


def test_not_found_from_the_generator(index):
    answer = pipeline(index, "rerank", generator=ScriptedGenerator("NOT FOUND")).ask(QUESTION)
    assert answer.verdict == "not-found" and not answer.found and answer.text == ""


def test_configuration_errors(index):
    with pytest.raises(InputError, match="needs an embedder"):
        StockNewsPipeline(index, None, config=PipelineConfig(mode="rerank"))
    with pytest.raises(InputError, match="mode must be one of"):
        PipelineConfig(mode="magic")
    with pytest.raises(InputError, match="dense_k must be a positive integer"):
        PipelineConfig(dense_k=0)
    with pytest.raises(InputError, match="prompt template 'nope' not found"):
        load_template("nope")
    with pytest.raises(InputError, match="question is empty"):
        pipeline(index, "lexical").ask("  ")


def test_render_prompt_and_preprocessing():
    assert render_prompt("Q: {question}\n{passages}", "q?", [(1, "T", "x"), (2, "U", "y")]) == "Q: q?\n[1] T\nx\n\n[2] U\ny"
    cleaned = Preprocessing().apply("Xem https://tin.vn/a?b=1: VN-Index tăng 1,25% và HPG lên 28.500 đồng!")
    assert cleaned == "xem vn index tăng 1,25% hpg 28.500 đồng"
    assert Preprocessing(lowercase=False, drop_stopwords=False).apply("Cổ phiếu và HPG") == "Cổ phiếu và HPG"
    assert Preprocessing().to_dict()["segmentation"] == "syllables"
    with pytest.raises(InputError, match="segmentation"):
        Preprocessing(segmentation="words")


def test_query_limits_are_checked_before_anything_is_embedded():
    from regrag import Index
    from regrag.limits import LimitError
    from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline

    class Refusing:
        def embed(self, texts):  # pragma: no cover - must not be reached
            raise AssertionError("embedded a query over the limit")

    index = Index.from_path("corpora/vn-stock-news/documents")
    pipeline = StockNewsPipeline(index, Refusing(), config=PipelineConfig(mode="dense"))
    with pytest.raises(LimitError, match="query_characters"):
        pipeline.retrieve("x" * 10_001)


def test_pipeline_applies_the_search_caps():
    """k, rrf_depth (rrf mode) and dense_k are capped as Index.search caps k (Limits.k, Limits.rrf_depth)."""
    import pytest

    from regrag import Index
    from regrag.limits import LimitError, Limits
    from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline

    from pathlib import Path

    corpus = Path(__file__).resolve().parents[2] / "corpora" / "vn-stock-news" / "documents"
    index = Index.from_path(corpus, limits=Limits(k=50, rrf_depth=60))
    with pytest.raises(LimitError, match=r"k is 51; the limit is 50 \(regrag.limits.Limits.k\)"):
        StockNewsPipeline(index, config=PipelineConfig(mode="lexical", k=51))
    with pytest.raises(LimitError, match=r"rrf_depth is 61; the limit is 60"):
        StockNewsPipeline(index, object(), config=PipelineConfig(mode="rrf", rrf_depth=61))
    with pytest.raises(LimitError, match=r"dense_k is 51; the limit is 50"):
        StockNewsPipeline(index, object(), config=PipelineConfig(mode="dense", dense_k=51))
    StockNewsPipeline(index, config=PipelineConfig(mode="lexical", k=50, rrf_depth=61))  # rrf_depth unused: no cap
