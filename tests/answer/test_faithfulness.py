"""Figures in answers checked against the cited passages."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from regrag.answer.faithfulness import check_answer, citations_in, evidence_keys, extract_figures

PASSAGES = [
    "Hòa Phát (HPG) báo lãi 3.450 tỷ đồng quý 2/2026, tăng 12,5% so với cùng kỳ; ĐHĐCĐ họp ngày 19/3/2026.",
    "VN-Index tăng 1,25% lên 1.285,6 điểm; khối ngoại bán ròng 512 tỷ đồng, tập trung ở VNM và FPT.",
    "Quỹ ngoại mua ròng 2.100 tỷ đồng trong tháng 6.",
]


def kinds(text):
    return [(f.text, f.kind) for f in extract_figures(text)]


def test_extracts_each_kind_of_figure_verbatim():
    assert kinds("Ngày 19/3/2026 VN30 tăng 1,25% lên 1.285,6 điểm, HPG lãi 3.450 tỷ, quý 2/2026, 2026-03-19, 12/3.") == [
        ("19/3/2026", "date"), ("VN30", "ticker"), ("1,25%", "percentage"), ("1.285,6", "number"),
        ("HPG", "ticker"), ("3.450", "number"), ("2/2026", "date"), ("2026-03-19", "date"), ("12/3", "date"),
    ]
    assert kinds("Revenue rose 12.5 % to USD 1,250.5 million") == [("12.5 %", "percentage"), ("USD", "ticker"), ("1,250.5", "number")]
    assert kinds("ordinary words, no Figures") == []


def test_dates_match_by_value_numbers_verbatim():
    keys = evidence_keys("họp ngày 19/03/2026; tăng 1,25%")
    assert "date:19/3/2026" in keys and "number:2026" in keys and "number:19" in keys and "date:/3/2026" in keys
    assert "number:1,25" in keys  # a percentage's number
    assert "number:1.25" not in keys  # separators are part of the figure
    report = check_answer("Họp ngày 2026-03-19 [1].", PASSAGES)
    assert report.faithful and report.checks[0].found_in == (1,)


def test_a_right_figure_is_supported():
    report = check_answer("HPG lãi 3.450 tỷ đồng trong quý 2/2026, tăng 12,5% [1].", PASSAGES)
    assert report.faithful
    assert [c.figure.text for c in report.checks] == ["HPG", "3.450", "2/2026", "12,5%"]
    assert all(c.found_in == (1,) for c in report.checks)


def test_a_wrong_figure_is_flagged():
    report = check_answer("HPG lãi 3.540 tỷ đồng [1].", PASSAGES)
    assert not report.faithful
    assert [c.figure.text for c in report.unsupported] == ["3.540"]
    assert report.unsupported[0].found_in == () and report.unsupported[0].found_uncited == ()


def test_a_figure_from_an_uncited_passage_is_flagged_with_where_it_was():
    report = check_answer("HPG lãi 3.450 tỷ đồng [1]. Khối ngoại bán ròng 512 tỷ đồng [1].", PASSAGES)
    assert [c.figure.text for c in report.unsupported] == ["512"]
    assert report.unsupported[0].cited == (1,) and report.unsupported[0].found_uncited == (2,)
    assert report.to_dict()["figures"][-1]["found_only_in_uncited"] == [2]


def test_citation_scope_is_per_sentence_and_a_trailing_marker_closes_its_sentence():
    report = check_answer("VN-Index tăng 1,25%. [2] Quỹ ngoại mua ròng 2.100 tỷ đồng [3].", PASSAGES)
    assert report.faithful
    assert [c.cited for c in report.checks] == [(2,), (2,), (3,)]
    # a sentence without a marker is checked against everything the answer cites
    assert check_answer("VN-Index tăng 1,25%. Quỹ ngoại mua 2.100 tỷ đồng [3].", PASSAGES).faithful is False
    assert check_answer("VN-Index tăng 1,25%. Quỹ ngoại mua 2.100 tỷ đồng [2, 3].", PASSAGES).faithful


def test_unknown_citations_and_uncited_answers():
    report = check_answer("HPG lãi 3.450 tỷ đồng [7].", PASSAGES)
    assert report.unknown_citations == (7,) and not report.faithful
    uncited = check_answer("HPG lãi 3.450 tỷ đồng.", PASSAGES)
    assert not uncited.faithful and uncited.unsupported[0].found_uncited == (1,)
    assert check_answer("Không có số liệu nào ở đây [1].", PASSAGES).faithful
    assert citations_in("a [1] b [2, 3] c [4;5]") == [(2, 5, (1,)), (8, 14, (2, 3)), (17, 22, (4, 5))]


@given(st.text(max_size=200))
def test_any_text_yields_figures_that_slice_it(text):
    for figure in extract_figures(text):
        assert text[figure.start : figure.end] == figure.text
    check_answer(text, PASSAGES)  # never raises


def test_every_figure_of_a_passage_supports_itself():
    for number, passage in enumerate(PASSAGES, start=1):
        assert check_answer(f"{passage} [{number}]", PASSAGES).faithful


def test_a_footnote_quoted_from_a_passage_is_not_a_citation():
    passages = ["Nhiệt độ sẽ tăng khoảng 0,3 °C mỗi thập kỷ trong thế kỷ [21]."]
    report = check_answer("Nhiệt độ sẽ tăng khoảng 0,3 °C mỗi thập kỷ trong thế kỷ [21]. [1]", passages)
    assert report.faithful and report.unknown_citations == () and report.citations == (1,)
    assert not check_answer("Nhiệt độ tăng 0,3 °C [22]. [1]", passages).faithful  # not quoted: unknown citation
