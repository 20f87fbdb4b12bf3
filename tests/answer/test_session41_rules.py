"""Rules of session 41 beyond limits and ranges: tied hits, the time-limit cue, the evidence passage's
own sentences below the support cut."""

from __future__ import annotations

from regrag.answer.evidence_choice import evidence_reason
from regrag.answer.question import read_question


def test_between_tied_hits_the_one_holding_more_is_the_evidence(manuals):
    question = "星耀白金卡和稳禧180的投诉答复时限分别是多少？"
    answer = manuals.ask(question)
    # the card's overview and its complaint passage tie (RRF: first by one retriever, second by the other);
    # the search orders them by document and offset, the evidence is the one holding 投诉 and 答复 as well
    assert answer.hits[0].score == answer.hits[1].score
    assert answer.hits[0].passage_id == "lanting-xingyao-platinum-credit-card.md#1"
    assert answer.confidence.top_passage_id == "lanting-xingyao-platinum-credit-card.md#8"
    assert evidence_reason(manuals, question, answer.hits) == "tie with it and hold fewer terms of the question"
    # the evidence passage's own sentence below the support cut gives the short answer, though a sentence of
    # another passage of the same document (the card's 5-year validity) was found first; refused at 0.32 before
    assert answer.found and answer.short_answer.text == "15个工作日"
    assert answer.short_answer.passage_id == "lanting-xingyao-platinum-credit-card.md#8"
    assert answer.confidence.value == 0.7856063103305151


def test_a_time_limit_asks_a_duration():
    assert read_question("星耀白金卡和稳禧180的投诉答复时限分别是多少？").expected_type == "duration"
    assert read_question("稳禧180的赎回到账期限是几天？").expected_type == "duration"
    assert read_question("稳禧180的托管费是多少？").expected_type == "amount"


def test_a_short_answer_of_another_passage_gives_way(news):
    # vn-u040 (unanswerable: the fund's sale is not in the corpus) was answered "hai" at 0.97 from a sentence of
    # another passage of the evidence document; the evidence passage's own typed sentence now answers and its
    # confidence refuses
    answer = news.ask("Quỹ ETF Meridian dự kiến bán ra bao nhiêu cổ phiếu NVQ?")
    assert not answer.found and answer.confidence.value < 0.55
