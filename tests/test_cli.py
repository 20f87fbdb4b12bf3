"""The command line: output, JSON, exit statuses."""

from __future__ import annotations

import json

import pytest

from regrag.cli import main


def run(capsys, *arguments):
    status = main(list(arguments))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_search_human_output_marks_terms(capsys):
    status, out, _err = run(capsys, "search", "margin interest rate", "-k", "2")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("index ") and "method hybrid" in lines[0]
    assert lines[1].split()[0] == "1" and "northquill-go-mobile-brokerage.md#" in lines[1]
    assert "[margin]" in out or "[Margin]" in out


def test_search_json_is_one_canonical_record_per_hit(capsys):
    status, out, _err = run(capsys, "search", "annual fee", "--method", "bm25", "-k", "3", "--json")
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 3
    for rank, line in enumerate(lines, start=1):
        record = json.loads(line)
        assert record["rank"] == rank and record["method"] == "bm25"
        assert line == json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_ask_prints_answer_and_sources(capsys):
    status, out, _err = run(capsys, "ask", "金莲白金信用卡的年费是多少？")
    assert status == 0
    assert "680" in out and "Sources:" in out and "[1] golden-lotus-platinum-credit-card.md" in out


def test_ask_without_answer_exits_1(capsys):
    status, out, _err = run(capsys, "ask", "zzzz qqqq")
    assert status == 1 and "Not found in the corpus" in out


def test_ask_refuses_below_threshold_with_closest_passages(capsys):
    status, out, _err = run(capsys, "ask", "What is the interest rate on a 30-year fixed-rate mortgage?")
    assert status == 1
    assert "Not found in the corpus: confidence" in out and "mortgag" in out
    assert "Closest passages:" in out and "1. " in out
    status, out, _err = run(capsys, "ask", "What is the interest rate on a 30-year fixed-rate mortgage?", "--threshold", "0")
    assert status == 0 and "Sources:" in out


def test_explain(capsys):
    status, out, _err = run(capsys, "explain", "annual fee", "golden-lotus-platinum-credit-card.md#3")
    assert status == 0 and "BM25" in out and "TF-IDF" in out
    status, out, _err = run(capsys, "explain", "annual fee", "golden-lotus-platinum-credit-card.md#3", "--json")
    record = json.loads(out)
    assert record["passage_id"] == "golden-lotus-platinum-credit-card.md#3"


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["search", "x", "--method", "nope"], "invalid choice"),
        (["search", "x", "--filter", "date>=soon"], "needs a date"),
        (["search", "x", "--corpus", "/no/such/place"], "/no/such/place"),
        (["search", "x", "-k", "0"], "k must be a positive integer"),
        (["search", "x", "--k1", "-1"], "k1"),
        (["explain", "x", "missing#1"], "no passage"),
        (["eval", "--beir", "/no/such/beir"], "not a BEIR folder"),
        (["frobnicate"], "invalid choice"),
        # a bare `regrag` prints the usage and a hint: tests/test_cli_run.py::test_bare_regrag_prints_usage_and_a_hint
    ],
)
def test_bad_usage_exits_2_with_one_line(capsys, arguments, message):
    status, out, err = run(capsys, *arguments)
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_bad_corpus_file_names_file_and_line(capsys, tmp_path):
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text('{"id": "a", "text": "ok"}\n{"id": "b", "text": \n', encoding="utf-8")
    status, _out, err = run(capsys, "search", "ok", "--corpus", str(corpus))
    assert status == 2 and f"{corpus}:2:" in err


def test_skipped_files_are_reported(capsys, tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nfees apply\n", encoding="utf-8")
    (tmp_path / "scan.pdf").write_bytes(b"%PDF")
    status, out, err = run(capsys, "search", "fees", "--corpus", str(tmp_path))
    assert status == 0 and "a.md#1" in out
    assert "1 file(s) not indexed: scan.pdf" in err
