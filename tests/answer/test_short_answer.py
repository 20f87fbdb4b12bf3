"""Short answers (issue 15): the shortest span of the expected type, cited
to its characters, never cutting a number, a date or a ticker."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from regrag import Index
from regrag.answer.answer_types import typed_spans
from regrag.eval.run import load_labelled_set

CORPORA = Path(__file__).resolve().parents[2] / "corpora"


@pytest.mark.parametrize("text, kind, spans", [
    ("A penalty of VLR 2,000 per day, up to VLR 100,000 per report.", "amount", ["VLR 2,000", "VLR 100,000"]),
    ("主卡年费为每年人民币880元，附属卡年费为每卡每年人民币260元。", "amount", ["人民币880元", "人民币260元"]),
    ("Lãi sau thuế quý 2 của QMS đạt 412 tỷ đồng, tăng 38,5% so với cùng kỳ.", "amount", ["412 tỷ đồng"]),
    ("Lãi sau thuế quý 2 của QMS đạt 412 tỷ đồng, tăng 38,5% so với cùng kỳ.", "percentage", ["38,5%"]),
    ("copies shall be kept for 7 years after the end", "duration", ["7 years"]),
    ("自本合同生效日起90天为等待期。", "duration", ["90天"]),
    ("no later than 30 April each year", "date", ["30 April"]),
    ("sẽ chạy thử vào tháng 11/2026.", "date", ["tháng 11/2026"]),
    ("每张主卡最多可申请2张附属卡。", "count", ["2张"]),
    ("Bên bán là quỹ đầu tư Harbor Mekong Partners, còn bên mua", "party", ["Harbor Mekong Partners"]),
    ("Giá thuê ngày của giàn BĐ-05 đạt 118.000 USD/ngày.", "figure", ["118.000 USD/ngày"]),
    ("The index tracks 120 countries and 3 regions.", "count", ["120 countries", "3 regions"]),
    # a number and an English noun; not a number and a Vietnamese syllable (session 37)
    ("đã kiểm tra 25 thi thể vào năm 1913 khi mở cửa", "count", ["25", "1913"]),
])
def test_typed_spans(text, kind, spans):
    assert [text[s:e] for s, e in typed_spans(text, kind)] == spans


@pytest.mark.parametrize("corpus, question, short", [
    ("regulations", "How long are records kept?", "7 years"),
    ("regulations", "What haircut applies to Level 2A assets in the stock of high-quality liquid assets?", "15%"),
    ("vn-stock-news", "Lợi nhuận sau thuế quý 2/2026 của QMS là bao nhiêu?", "412 tỷ đồng"),
    ("product-manuals", "康悦重疾的等待期是多少天？", "90天"),
    ("product-manuals", "星耀白金卡每张主卡最多可以办几张附属卡？", "2张"),
])
def test_short_answer_leads_and_is_cited(corpus, question, short):
    index = Index.from_path(CORPORA / corpus / "documents")
    answer = index.ask(question)
    assert answer.found and answer.short_answer is not None
    assert answer.short_answer.text == short
    start, end = answer.short_answer.span
    assert index.document(answer.short_answer.document_id).text[start:end] == short
    # the sentence holding it is the answer's first, and holds its span
    first = answer.sentences[0]
    assert first.passage_id == answer.short_answer.passage_id and first.span[0] <= start and end <= first.span[1]
    assert answer.to_dict()["short_answer"]["text"] == short


@pytest.fixture(scope="module", params=["product-manuals", "regulations", "vn-stock-news"])
def labelled_corpus(request):
    labelled = load_labelled_set(CORPORA / request.param)
    return labelled, Index.from_path(labelled.corpus_path)


def test_no_short_answer_cuts_a_number_date_or_ticker(labelled_corpus):
    labelled, index = labelled_corpus
    checked = 0
    for question in labelled.queries.values():
        answer = index.ask(question, threshold=0.0)
        short = answer.short_answer
        if short is None:
            continue
        text = index.document(short.document_id).text
        start, end = short.span
        assert text[start:end] == short.text and short.text.strip() == short.text and short.text
        before, after = text[start - 1 : start], text[end : end + 1]
        if short.text[0].isdigit():
            assert not re.match(r"[\d.,/-]", before) or not before.strip(), (question, short.text, before)
        if short.text[-1].isdigit():
            assert not after.isdigit() and not re.match(r"[.,/]\d", text[end : end + 2]), (question, short.text)
        if short.text[0].isalnum() and before.isalnum() and before.isascii():
            raise AssertionError((question, short.text, "starts inside a word"))
        checked += 1
    assert checked > 20


def test_same_question_same_bytes():
    index = Index.from_path(CORPORA / "product-manuals" / "documents")
    question = "星耀白金卡和轻盈贷的客服电话分别是多少？"
    assert index.ask(question).to_json() == index.ask(question).to_json()
