"""Spans of the expected answer types (regrag.answer.answer_types)."""

from __future__ import annotations

from regrag.answer.answer_types import typed_spans


def spans_of(text: str, kind: str) -> list[str]:
    return [text[start:end] for start, end in typed_spans(text, kind)]


def test_a_fee_charged_as_a_share_is_an_amount():
    # session 41: "What is the currency conversion fee …?" asks an amount; the manual states a share
    assert spans_of("Purchases are charged a currency conversion fee of 1.50% of the amount.", "amount") == ["1.50%"]
    assert spans_of("每笔手续费为0.60%，最低人民币10元", "amount") == ["0.60%", "人民币10元"]
    assert spans_of("phí là 0,15% giá trị giao dịch", "amount") == ["0,15%"]
    assert spans_of("a handling charge at 0.10% per remittance", "amount") == ["0.10%"]
    # a share that is no fee is not an amount, nor a fee word inside another word
    assert spans_of("fees grew by 5% in the year", "amount") == []
    assert spans_of("the prefee of 2% applies", "amount") == []
    # the share itself is still a percentage
    assert spans_of("a currency conversion fee of 1.50%", "percentage") == ["1.50%"]


def test_the_manual_conversion_fee_is_answered(manuals):
    answer = manuals.ask("What is the currency conversion fee for foreign currency purchases with the Xingyao Platinum Card?")
    # refused at 0.33 before session 41, citing the RiverPost manual's "USD 50,000 equivalent"
    assert answer.found and answer.short_answer.text == "1.50%"
    assert answer.short_answer.passage_id == "lanting-xingyao-platinum-credit-card.md#7"
    assert answer.confidence.value == 0.7817727719093943
