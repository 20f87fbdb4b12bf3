"""Issue 12: ask and explain speak in the words the user typed, and show the entity step."""

from __future__ import annotations

import json

from regrag.cli import main

REGULATIONS = "corpora/regulations/documents"


def run(capsys, *arguments):
    status = main(list(arguments))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_refusal_names_missing_words_as_typed(capsys):
    status, out, _err = run(capsys, "ask", "What is the penalty for insider dealing?", "--corpus", REGULATIONS)
    assert status == 1
    first = out.splitlines()[0]
    assert first.endswith("missing: insider dealing).") and "insid " not in first and "deal " not in first


def test_ask_json_keeps_stems_and_adds_the_words(capsys):
    _status, out, _err = run(capsys, "ask", "What is the penalty for insider dealing?", "--corpus", REGULATIONS, "--json")
    confidence = json.loads(out)["confidence"]
    assert confidence["content_terms"] == ["deal", "insid", "penalti"]
    assert confidence["missing_words"] == ["insider", "dealing"]


def test_ask_prints_the_entity_step(capsys):
    status, out, _err = run(capsys, "ask", "What is the margin interest rate on a Northquill Go margin account?")
    assert status == 0
    assert "entities: 'northquill go' (product) -> searched only northquill-go-mobile-brokerage.md" in out
    _status, out, _err = run(capsys, "ask", "What is the margin interest rate on a Northquill Go margin account?",
                             "--no-entities")
    assert "entities:" not in out


def test_explain_says_why_a_score_is_zero(capsys):
    status, out, _err = run(capsys, "explain", "annual fee", "golden-lotus-platinum-credit-card.md#3")
    assert status == 0
    assert "the score is zero: no query term occurs in this passage (absent: 'annual', 'fee')" in out


def test_explain_lists_query_words_the_passage_lacks(capsys):
    _status, out, _err = run(capsys, "explain", "margin interest rate penalties", "northquill-go-mobile-brokerage.md#5")
    assert "not in this passage (they add nothing): 'penalties'" in out
    _status, out, _err = run(capsys, "explain", "margin interest rate", "northquill-go-mobile-brokerage.md#5")
    assert "not in this passage" not in out and "score is zero" not in out
