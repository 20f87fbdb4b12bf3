"""Slash dates of a question and whether a passage holds them (regrag/answer/date_groups.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from regrag.answer.date_groups import date_groups, held_group_numbers, holds_dates, unwritten_quarters

DOCUMENTS = {
    "phien-22-7.md": "date: 2026-07-22\nsource: regrag test news (fictional)\nlanguage: vi\n\n# Thị trường đi ngang\n\n"
                     "Giá trị khớp lệnh trên HOSE chỉ đạt 9.870 tỷ đồng, thấp nhất trong hai tháng.\n",
    "quy-3.md": "date: 2026-10-20\nsource: regrag test news (fictional)\nlanguage: vi\n\n# Kết quả kinh doanh\n\n"
                "Lũy kế 9 tháng, công ty lãi 3 tỷ đồng; trong quý 03/2026 doanh thu đạt 40 tỷ đồng. "
                "Kế hoạch quý IV/2026 giữ nguyên.\n",
    "tong-ket-quy-3.md": "date: 2026-10-01\nsource: regrag test news (fictional)\nlanguage: vi\n\n"
                         "# Tổng kết quý III/2026 của VN-Index\n\n"
                         "Quý III có 41 phiên tăng điểm, nhiều hơn quý II; VN-Index tăng 4,6% trong quý.\n",
}


@pytest.fixture(scope="module")
def index(index_of):
    return index_of("date-groups", DOCUMENTS)


def test_groups_in_order_without_leading_zeros():
    assert date_groups("ngày 06/01/2026, quý 3/2026 và lại 6/1/2026") == ("6/1/2026", "Q3/2026")


def test_not_a_date_group():
    assert date_groups("tỷ lệ P/B 1,2 lần, mã 1/2/3/4, năm 2026") == ()


def test_document_date_answers_its_slash_forms(index):
    hit = index.search("khớp lệnh HOSE")[0]
    assert hit.document_id == "phien-22-7.md"
    assert holds_dates(index, hit, ("22/7/2026", "22/7"))
    assert not holds_dates(index, hit, ("23/7/2026",))
    # a report dated 22 July holds that day, not the month nor the quarter it is dated in
    assert not holds_dates(index, hit, ("7/2026",))
    assert not holds_dates(index, hit, ("Q3/2026",))


def test_written_date_with_leading_zero(index):
    hit = index.search("doanh thu quý")[0]
    assert hit.document_id == "quy-3.md"
    assert holds_dates(index, hit, ("Q3/2026",))  # written quý 03/2026
    assert not holds_dates(index, hit, ("3/2026",))  # a quarter is not the month
    assert not holds_dates(index, hit, ("9/2026",))  # '9 tháng' and '2026' apart are not 9/2026
    assert holds_dates(index, hit, ("Q4/2026",))  # written quý IV/2026


def test_quarters_are_marked_and_roman_ones_read_as_digits():
    assert date_groups("quý III/2026 và quý IV/2025, quý I/2026") == ("Q3/2026", "Q4/2025", "Q1/2026")
    assert date_groups("quý 3/2026, tháng 3/2026, quarter 2/2026") == ("Q3/2026", "3/2026", "Q2/2026")
    assert date_groups("VII/2026, CIV/2026") == ()  # not a quarter
    assert date_groups("Q2/2027") == ("Q2/2027",)


def test_a_word_ending_in_q_is_no_quarter():
    # the quarter word must stand alone just before the group
    assert date_groups("Iraq 5/2026, HQ 6/2026") == ("5/2026", "6/2026")
    assert date_groups("quarter " + "x" * 40 + " 7/2026") == ("7/2026",)


@given(st.integers(1, 31), st.integers(1, 12), st.integers(1900, 2099), st.booleans())
def test_leading_zeros_never_change_a_group(day, month, year, padded):
    written = f"{day:02d}/{month:02d}/{year}" if padded else f"{day}/{month}/{year}"
    assert date_groups(f"phiên {written}, quý {month}/{year}") == (f"{day}/{month}/{year}", f"Q{month}/{year}")


def test_a_quarter_asked_must_be_written_with_its_year_in_the_evidence_document(index):
    hit = index.search("phiên tăng điểm VN-Index")[0]
    assert hit.document_id == "tong-ket-quy-3.md"
    # the report of the third quarter names quý II in passing, never quý II/2026
    assert unwritten_quarters(index, "VN-Index có bao nhiêu phiên tăng điểm trong quý II/2026?", hit) == ("Q2/2026",)
    assert unwritten_quarters(index, "VN-Index có bao nhiêu phiên tăng điểm trong quý 3/2026?", hit) == ()
    assert unwritten_quarters(index, "Quý III/2025 có bao nhiêu phiên tăng điểm?", hit) == ("Q3/2025",)
    # months are not checked this way, nor questions without a quarter
    assert unwritten_quarters(index, "VN-Index có bao nhiêu phiên tăng điểm trong tháng 8/2026?", hit) == ()
    other = index.search("doanh thu quý")[0]
    assert unwritten_quarters(index, "Doanh thu quý 3/2026 là bao nhiêu?", other) == ()  # written quý 03/2026


def test_an_unwritten_quarter_lowers_the_confidence_as_a_missing_number(index):
    asked = index.ask("VN-Index có bao nhiêu phiên tăng điểm trong quý II/2026?", threshold=0.0)
    assert asked.confidence.top_passage_id.startswith("tong-ket-quy-3.md#")
    assert "Q2/2026" in asked.confidence.missing_specifics
    same = index.ask("VN-Index có bao nhiêu phiên tăng điểm trong quý III/2026?", threshold=0.0)
    assert "Q3/2026" not in same.confidence.missing_specifics
    assert asked.confidence.value < same.confidence.value


def test_a_quarter_in_roman_numerals_holds_the_digits_the_question_writes(index):
    # the analyzer reads quý III/2026 as 'iii' and '2026': the question's '3' of quý 3/2026 is held all the same
    question = "VN-Index có bao nhiêu phiên tăng điểm trong quý 3/2026?"
    asked = index.ask(question, threshold=0.0)
    top = next(hit for hit in asked.hits if hit.passage_id == asked.confidence.top_passage_id)
    assert top.document_id == "tong-ket-quy-3.md"
    assert held_group_numbers(index, question, top) == frozenset({"3", "2026"})
    assert "3" not in asked.confidence.missing_specifics and asked.confidence.missing_specifics == ()
    # a group the passage does not hold keeps its numbers missing
    assert held_group_numbers(index, "Quý 2/2026 có bao nhiêu phiên tăng điểm?", top) == frozenset()
