"""The evidence passage: a lower hit holding the question's date (regrag/answer/evidence_choice.py)."""

from __future__ import annotations

import pytest

from regrag.answer.date_groups import other_day
from regrag.answer.evidence_choice import evidence_rank
from regrag.answer.extractive import select_sentences

HEADER = "source: regrag test news (fictional)\nlanguage: vi\n\n"
DOCUMENTS = {
    # ranks first for the question below (its words twice) but reports 3 July
    "a-phien-3-7.md": "date: 2026-07-03\n" + HEADER + "# Thị trường phiên 3/7\n\n"
    "Giá trị khớp lệnh trên HOSE phiên hôm nay đạt 18.200 tỷ đồng. Giá trị khớp lệnh trên HOSE tăng so với "
    "phiên trước, giá trị giao dịch khớp lệnh cao nhất tuần.\n",
    "b-phien-22-7.md": "date: 2026-07-22\n" + HEADER + "# Thị trường đi ngang\n\n"
    "Kết thúc phiên 22/7/2026, VN-Index đi ngang. Giá trị khớp lệnh trên HOSE chỉ đạt 9.870 tỷ đồng, "
    "thấp nhất trong hai tháng.\n",
    "c-phien-10-5.md": "date: 2026-05-10\n" + HEADER + "# Cổ phiếu thép\n\n"
    "Cổ phiếu thép tăng giá mạnh trong phiên 10/5/2026 với 312 mã tăng giá trên HOSE.\n",
}
QUESTION = "Giá trị khớp lệnh trên HOSE trong phiên 22/7/2026 là bao nhiêu?"


@pytest.fixture(scope="module")
def index(index_of):
    return index_of("evidence-choice", DOCUMENTS)


def test_the_passage_holding_the_date_is_the_evidence(index):
    answer = index.ask(QUESTION)
    assert [hit.document_id for hit in answer.hits] == ["a-phien-3-7.md", "b-phien-22-7.md", "c-phien-10-5.md"]
    assert answer.confidence.top_passage_id == "b-phien-22-7.md#1"
    assert answer.confidence.evidence_rank == 2
    assert answer.confidence.missing_specifics == ()
    assert answer.short_answer.text == "9.870 tỷ đồng"
    assert answer.sentences[0].document_id == "b-phien-22-7.md"
    assert not answer.refused


def test_the_top_hit_stays_when_it_holds_the_numbers(index):
    answer = index.ask("Giá trị khớp lệnh trên HOSE trong phiên 3/7/2026 là bao nhiêu?")
    assert answer.confidence.evidence_rank == 1
    assert answer.confidence.top_passage_id == answer.hits[0].passage_id == "a-phien-3-7.md#1"


def test_a_lower_hit_must_hold_all_the_top_one_holds(index):
    # c holds 'mã' and 'tăng'; b holds the date but not them: the top hit stays, and the date counts as missing
    question = "Có bao nhiêu mã tăng giá trên HOSE trong phiên 22/7/2026?"
    hits = index.search(question, k=5)
    assert hits[0].document_id == "c-phien-10-5.md"
    from regrag.answer.confidence import content_terms
    terms = content_terms(index.analyzer, question, index.analyze_query(question).language)
    assert evidence_rank(index, question, terms, hits) == 0
    assert index.ask(question).refused


def test_numbers_apart_are_not_the_date(index_of):
    # d holds 22, 7 and 2026 and every word a holds, but not the date 22/7/2026: a stays the evidence
    apart = index_of("evidence-choice-apart", {
        "a-phien-3-7.md": DOCUMENTS["a-phien-3-7.md"],
        "d-phien-5-7.md": "date: 2026-07-05\n" + HEADER + "# Thị trường phiên 5/7\n\n"
        "Giá trị khớp lệnh trên HOSE đạt 12.100 tỷ đồng, với 22 mã tăng trần và 7 mã giảm sàn.\n",
    })
    answer = apart.ask(QUESTION, threshold=0.0)
    assert [hit.document_id for hit in answer.hits] == ["a-phien-3-7.md", "d-phien-5-7.md"]
    assert answer.confidence.evidence_rank == 1
    assert answer.confidence.missing_specifics == ("22",)


def test_a_sentence_from_another_day_conflicts(index):
    # the evidence (b) holds 22/7/2026; a sentence of c, another document, reports 10 May
    question = "Có bao nhiêu mã tăng giá trên HOSE trong phiên 22/7/2026?"
    hits = index.search(question, k=5)
    b = next(hit for hit in hits if hit.document_id == "b-phien-22-7.md")
    c = next(hit for hit in hits if hit.document_id == "c-phien-10-5.md")
    sentence = select_sentences(index, question, [c])[0]
    assert other_day(index, question, sentence, [b], hits) == ("22/7/2026",)
    assert other_day(index, question, sentence, [c], hits) == ()  # same document as the evidence
    same_day = select_sentences(index, question, [b])[0]
    assert other_day(index, question, same_day, [b], hits) == ()


def test_eval_judges_calibration_on_the_evidence_passage(tmp_path, index):
    # the question's relevant passage ranks second in search; ask reads it, and eval's
    # calibration pair says its evidence passage is relevant (not the top hit's)
    from regrag.eval.run import evaluate_folder

    (tmp_path / "documents").mkdir()
    for name, text in DOCUMENTS.items():
        (tmp_path / "documents" / name).write_text(text, encoding="utf-8")
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "%s"}\n' % QUESTION, encoding="utf-8")
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tb-phien-22-7.md#1\t1\n")
    (tmp_path / "answers.jsonl").write_text('{"_id": "q1", "answerable": true, "answer": "9.870 tỷ đồng"}\n',
                                            encoding="utf-8")
    result = evaluate_folder(tmp_path, methods=("hybrid",)).result("hybrid")
    assert index.ask(QUESTION).hits[0].document_id == "a-phien-3-7.md"  # the top hit is not the relevant one
    confidence, relevant = result.confidence["q1"]
    assert relevant is True
    assert confidence >= 0.55 and result.refused["q1"] is False and result.wrong["q1"] is False
    assert result.answer_metrics["answer_exact"] == 1.0


def test_a_report_dated_in_march_does_not_answer_for_the_third_quarter(index_of):
    # review of session 33: 'quý 3/2026' once matched a document dated 2026-03-06 through '3/2026'
    quarters = index_of("evidence-choice-quarter", {
        "a-quy.md": "date: 2026-10-02\n" + HEADER + "# Khối ngoại\n\n"
        "Khối ngoại mua ròng trên HOSE trong quý 2/2026, giá trị mua ròng trên HOSE tăng.\n",
        "b-thang-3.md": "date: 2026-03-06\n" + HEADER + "# Phiên 6/3\n\n"
        "Khối ngoại mua ròng 682 tỷ đồng trên HOSE trong phiên, mua ròng phiên thứ 3.\n",
    })
    answer = quarters.ask("Khối ngoại mua ròng bao nhiêu tỷ đồng trên HOSE trong quý 3/2026?", threshold=0.0)
    assert answer.hits[0].document_id == "a-quy.md"
    assert answer.confidence.evidence_rank == 1
    assert answer.confidence.missing_specifics == ("3", "Q3/2026")  # nor is the quarter written with its year
    assert answer.confidence.value < 0.55


def test_evidence_rank_without_content_terms(index_of):
    # hits but no content terms (only question words): the evidence passage is still the top hit, rank 1
    bare = index_of("evidence-choice-bare", {"a.md": "# A\n\nWhat is the answer? The answer is 42.\n"})
    answer = bare.ask("what is the", threshold=0.0)
    assert answer.confidence.content_terms == ()
    assert [hit.rank for hit in answer.hits] == [1] and answer.confidence.evidence_rank == 1
