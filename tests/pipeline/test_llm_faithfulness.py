"""The pipeline with real HTTP generators talking to a local server that
speaks the Gemini and OpenAI wire formats: answers with a right figure, a
wrong figure, and a figure taken from a passage the answer does not cite."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from regrag import Index
from regrag.adapters.gemini import GeminiGenerator
from regrag.adapters.openai_compatible import OpenAICompatibleGenerator
from regrag.cli import main
from regrag.pipeline.stock_news import PipelineConfig, StockNewsPipeline


def _load(name: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).parent.parent / "adapters" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


FakeLLMServer = _load("fake_llm_server").FakeLLMServer
QUESTION = "Lãi sau thuế quý 2/2026 của QMS là bao nhiêu?"


@pytest.fixture(scope="module")
def index():
    return Index.from_path("corpora/vn-stock-news/documents")


@pytest.fixture
def server():
    with FakeLLMServer(openai_api_key=None) as running:
        yield running


def gemini(server):
    return GeminiGenerator(api_key=server.gemini_api_key, base_url=server.gemini_base_url, sleep=lambda _s: None)


def ask(index, generator, policy="mark"):
    pipeline = StockNewsPipeline(index, None, generator=generator, config=PipelineConfig(mode="lexical", unsupported=policy))
    return pipeline.ask(QUESTION)


def test_right_figures_pass(index, server):
    server.queue_gemini_text("Lãi sau thuế quý 2 của QMS đạt 412 tỷ đồng, tăng 38,5% so với cùng kỳ [1].")
    answer = ask(index, gemini(server))
    assert answer.verdict == "answered" and answer.faithfulness.faithful
    assert {c.figure.text for c in answer.faithfulness.checks} == {"2", "QMS", "412", "38,5%"}
    request = server.requests[0]
    assert request.problems == [] and "Question: " + QUESTION in request.body["contents"][0]["parts"][0]["text"]
    assert answer.provenance["generator"]["model"] == "gemini-1.5-flash"


def test_a_wrong_figure_is_marked(index, server):
    server.queue_gemini_text("Lãi sau thuế quý 2 của QMS đạt 421 tỷ đồng [1].")
    answer = ask(index, gemini(server))
    assert answer.verdict == "marked"
    assert [(c.figure.text, c.found_in, c.found_uncited) for c in answer.faithfulness.unsupported] == [("421", (), ())]


def test_a_figure_from_an_uncited_passage_is_refused_on_request(index, server):
    # 368 tỷ đồng is HXT's profit (passage [3]); the answer cites only [1].
    server.queue_openai_text("QMS lãi 412 tỷ đồng [1]. Lãi quý 2 đạt 368 tỷ đồng [1].")
    generator = OpenAICompatibleGenerator("local-model", base_url=server.openai_base_url)
    answer = ask(index, generator, policy="refuse")
    assert answer.verdict == "refused" and answer.text == ""
    (check,) = answer.faithfulness.unsupported
    assert check.figure.text == "368" and check.cited == (1,) and 3 in check.found_uncited


def test_cli_marks_and_refuses(index, server, capsys, monkeypatch):
    server.queue_gemini_text("QMS lãi 421 tỷ đồng [1].")
    server.queue_gemini_text("QMS lãi 421 tỷ đồng [1].")
    common = ["ask", QUESTION, "--corpus", "corpora/vn-stock-news/documents", "--pipeline", "stock-news",
              "--mode", "lexical", "--generator", "gemini", "--llm-base-url", server.gemini_base_url]
    monkeypatch.setenv("GEMINI_API_KEY", server.gemini_api_key)
    status = main(common)
    out, err = capsys.readouterr()
    assert status == 0 and "WARNING: figures not found in the cited passages: 421 (cited: [1])" in out
    assert "warning" in err
    status = main(common + ["--unsupported", "refuse"])
    out, _err = capsys.readouterr()
    assert status == 1 and out.startswith("Answer withheld: it states figures that its cited passages do not contain (421)")
