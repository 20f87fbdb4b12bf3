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


def test_a_scope_the_evidence_never_mentions(regulations, manuals):
    # reg-q086 (unanswerable: the rules set no casino threshold) was answered VLR 1,000 at 0.67 from the
    # thresholds for transfers and exchange offices
    casinos = regulations.ask("What customer due diligence threshold applies to occasional transactions in casinos?")
    assert not casinos.found and casinos.confidence.missing_scope == ("casinos",)
    # a scope the evidence covers is no concern
    card = manuals.ask("What is the currency conversion fee for foreign currency purchases with the Xingyao Platinum Card?")
    assert card.found and card.confidence.missing_scope == ()
    loan = manuals.ask("What is the currency conversion fee on the Qingying Loan?")  # another product's fee
    assert not loan.found and loan.confidence.missing_scope == ("the Qingying Loan",)


def test_the_scope_phrase():
    from regrag.answer.scope import missing_scope
    from regrag.text.analyzer import Analyzer

    analyzer = Analyzer()
    terms = ("casino", "threshold", "2023", "ratio")
    question = "What threshold applies in casinos?"
    assert missing_scope(analyzer, question, "en", terms, ("threshold",)) == ("casinos",)
    assert missing_scope(analyzer, question, "en", terms, ("threshold", "casino")) == ()
    # a year is a missing number already; other languages are not read
    assert missing_scope(analyzer, "What was the ratio in 2023?", "en", terms, ("ratio",)) == ()
    assert missing_scope(analyzer, question, "vi", terms, ()) == ()
