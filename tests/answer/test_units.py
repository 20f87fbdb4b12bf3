"""The unit a duration question asks for (regrag.answer.units) and its use by ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrag import Index
from regrag.answer.units import asked_unit, span_has_unit

CORPORA = Path(__file__).resolve().parents[2] / "corpora"


@pytest.mark.parametrize("question, unit", [
    ("How many years must the officer have worked?", "year"),
    ("Within how many business days must a manager notify?", "business-day"),
    ("How many calendar days' notice must the VSMC give?", "calendar-day"),
    ("How many days does the Commission have?", "day"),
    ("How long are records kept?", None),
    ("Trong bao nhiêu ngày phải công bố?", "day"),
    ("Khoản vay kéo dài mấy tháng?", "month"),
    ("康悦重疾的宽限期是多少天？", "day"),
    ("几个工作日内答复？", "business-day"),
    ("要持有几年？", "year"),
])
def test_asked_unit(question, unit):
    assert asked_unit(question) == unit


def test_span_has_unit():
    assert span_has_unit("7 years", "year") and not span_has_unit("10 business days", "year")
    assert span_has_unit("90 calendar days", "day") and span_has_unit("36个月", "month") and span_has_unit("3 năm", "year")
    assert span_has_unit("anything", None)


def test_business_and_calendar_days_are_told_apart():
    # a question asking business days is not answered by calendar days, nor the reverse;
    # days of no stated kind answer both
    assert span_has_unit("3 business days", "business-day") and span_has_unit("15个工作日", "business-day")
    assert not span_has_unit("30 calendar days", "business-day")
    assert span_has_unit("30 calendar days", "calendar-day") and not span_has_unit("35 business days", "calendar-day")
    assert span_has_unit("10 days", "business-day") and span_has_unit("10 days", "calendar-day")
    assert not span_has_unit("3 years", "business-day")


def test_a_duration_in_the_asked_unit_is_the_short_answer():
    # the cited passage also says "10年" (payment terms); the grace period is 60天
    index = Index.from_path(CORPORA / "product-manuals" / "documents")
    answer = index.ask("康悦重疾的宽限期是多少天？")
    assert answer.found and answer.short_answer.text == "60天"
