"""Counts in Vietnamese number words (regrag/answer/vi_numerals.py) and the
Vietnamese date forms of the date type: "năm" as year versus five, a
two-syllable noun kept whole, "một" as the article."""

from __future__ import annotations

import pytest

from regrag.answer.answer_types import typed_spans
from regrag.answer.short_answer import _drop_counted_noun
from regrag.answer.vi_numerals import word_counts


def _texts(text: str, spans) -> list[str]:
    return [text[s:e] for s, e in spans]


@pytest.mark.parametrize("text, counts", [
    # "năm" is five before a noun, a year before a number, after hàng/mỗi/những, before sau/nay/học
    ("Metro đã khai trương năm giai đoạn từ năm 1980 đến 1984.", ["năm giai đoạn"]),
    ("Phí phát sóng hàng năm là 30 triệu Bảng.", []),
    ("Một năm sau, ông có đề nghị.", []),
    ("Trong những năm đầu, năm người đã đến.", ["năm người"]),
    ("năm học mới có năm lớp", ["năm lớp"]),
    # a two-syllable noun kept whole; a classifier ends the noun at once
    ("Có bốn quốc gia có tên chứa chữ Amazonas.", ["bốn quốc gia"]),
    ("Los Angeles đã từng có hai đội tham gia giải.", ["hai đội"]),
    ("Trường có mười một đơn vị học thuật.", ["mười một đơn vị"]),
    ("Dân số vượt quá năm triệu người.", ["năm triệu người"]),
    ("kéo dài mười năm", ["mười năm"]),
    # an ordinal stands alone; "một" is the article; a function word or a name is not a counted noun
    ("Nam California đứng thứ ba ở Mỹ.", ["thứ ba"]),
    ("Có một số nhà và một bữa tối.", []),
    ("có ba ở đó, hai Broncos", []),
    # "một" and "hàng" count before a scale or a fraction; such a numeral stands alone
    ("Dân số vượt quá năm triệu.", ["năm triệu"]),
    ("cần hai phần ba theo đa số", ["hai phần ba"]),
    ("chịu trách nhiệm cho hơn một nửa.", ["một nửa"]),
    ("có thể mang hàng trăm kênh", ["hàng trăm kênh"]),
    ("là một phần của lưu vực", []),
])
def test_word_counts(text, counts):
    assert _texts(text, word_counts(text)) == counts


def test_count_type_takes_word_counts_and_figures():
    text = "Metro đã khai trương năm giai đoạn từ năm 1980 đến 1984."
    assert _texts(text, typed_spans(text, "count")) == ["năm giai đoạn", "1980", "1984"]


@pytest.mark.parametrize("text, dates", [
    ("Tesla mất ngày 7 tháng 1 năm 1943 tại New York.", ["ngày 7 tháng 1 năm 1943"]),
    ("Năm 1891, Dewar thí nghiệm oxi lỏng.", ["Năm 1891"]),
    ("đóng cửa vào tháng 10 năm 2016", ["tháng 10 năm 2016"]),
    ("sẽ chạy thử vào tháng 11/2026.", ["tháng 11/2026"]),
    ("Đan Mạch gia nhập năm 1972.", ["năm 1972"]),
    ("tăng 5 năm liền", ["5 năm"]),
])
def test_vietnamese_dates(text, dates):
    assert _texts(text, typed_spans(text, "date")) == dates


@pytest.mark.parametrize("question, text, short", [
    ("Có bao nhiêu quốc gia có tên chứa chữ Amazonas?", "Có bốn quốc gia có tên chứa chữ Amazonas.", "bốn"),
    ("Newcastle có bao nhiêu trường đại học?", "Newcastle có hai trường đại học.", "hai"),
    ("Lady Gaga đã giành được bao nhiêu giải Grammy?", "Lady Gaga giành sáu lần giải Grammy.", "sáu lần"),
    # a figure in digits keeps its unit
    ("LPK cho thuê bao nhiêu ha đất?", "LPK cho thuê 48 ha đất.", "48 ha"),
])
def test_counted_noun_the_question_names_is_dropped(question, text, short):
    start, end = next((s, e) for s, e in typed_spans(text, "figure") if text[s].isalnum())
    assert text[start:_drop_counted_noun(question, text, start, end)] == short
