"""Extractive answers: verbatim, cited sentences."""

from __future__ import annotations

import json
import re

import pytest

NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")

QUESTIONS = [
    ("What is the margin interest rate on a Northquill Go margin account?", "northquill-go-mobile-brokerage.md", "7.25%"),
    ("Is there a foreign currency conversion fee when using the Golden Lotus Platinum Credit Card overseas?",
     "golden-lotus-platinum-credit-card.md", "no additional foreign currency conversion fee"),
    ("金莲白金信用卡的年费是多少？", "golden-lotus-platinum-credit-card.md", "680"),
    ("境外旅行保险的疾病医疗等待期是多少天？", "luyu-overseas-travel-insurance.md", "3天"),
]


@pytest.mark.parametrize("question, document_id, expected", QUESTIONS)
def test_answers_cite_the_right_document(default_index, question, document_id, expected):
    answer = default_index.ask(question)
    assert answer.found
    assert answer.sentences[0].document_id == document_id
    assert expected in answer.sentences[0].text


@pytest.mark.parametrize("question", [q for q, _d, _e in QUESTIONS] + ["margin account minimum equity", "等待期"])
def test_every_sentence_and_number_is_verbatim_from_its_citation(default_index, question):
    answer = default_index.ask(question)
    for sentence in answer.sentences:
        text = default_index.document(sentence.document_id).text
        start, end = sentence.span
        assert text[start:end] == sentence.text
        hit = next(h for h in answer.hits if h.passage_id == sentence.passage_id)
        assert hit.passage_span[0] <= start < end <= hit.passage_span[1]
        for number in NUMBER.findall(sentence.text):
            assert number in text[start:end]
        # a sentence never starts or ends inside a number
        assert not (start > 0 and text[start - 1].isdigit() and text[start].isdigit())
        assert not (end < len(text) and text[end - 1].isdigit() and text[end].isdigit())


def test_no_answer_when_nothing_matches(default_index):
    answer = default_index.ask("zzzz qqqq")
    assert not answer.found and answer.text == "" and answer.hits == ()
    assert json.loads(answer.to_json())["found"] is False


def test_answer_json_is_canonical(default_index):
    answer = default_index.ask("margin interest rate")
    record = json.loads(answer.to_json())
    assert answer.to_json() == json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert record["index_id"] == default_index.index_id
    assert all(s["matched_terms"] for s in record["sentences"])
