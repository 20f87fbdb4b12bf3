"""``regrag explain``: the score breakdowns, and the query words a passage lacks."""

from __future__ import annotations

import json

from regrag.cli import main


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_explain(capsys):
    status, out, _err = run(capsys, "explain", "annual fee", "golden-lotus-platinum-credit-card.md#3")
    assert status == 0 and "BM25" in out and "TF-IDF" in out
    status, out, _err = run(capsys, "explain", "annual fee", "golden-lotus-platinum-credit-card.md#3", "--json")
    record = json.loads(out)
    assert record["passage_id"] == "golden-lotus-platinum-credit-card.md#3"


def test_explain_says_why_a_score_is_zero(capsys):
    status, out, _err = run(capsys, "explain", "annual fee", "golden-lotus-platinum-credit-card.md#3")
    assert status == 0
    assert "the score is zero: no query term occurs in this passage (absent: 'annual', 'fee')" in out


def test_explain_lists_query_words_the_passage_lacks(capsys):
    _status, out, _err = run(capsys, "explain", "margin interest rate penalties", "northquill-go-mobile-brokerage.md#5")
    assert "not in this passage (they add nothing): 'penalties'" in out
    _status, out, _err = run(capsys, "explain", "margin interest rate", "northquill-go-mobile-brokerage.md#5")
    assert "not in this passage" not in out and "score is zero" not in out
