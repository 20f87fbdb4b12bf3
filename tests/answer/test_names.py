"""Questions asking what something is called, and the names a sentence holds
(regrag/answer/names.py)."""

from __future__ import annotations

import pytest

from regrag.answer.names import asks_name, name_spans


@pytest.mark.parametrize("question, asks", [
    ("Tên thuộc địa của Pháp được thành lập năm 1564 là gì?", True),
    ("Bảo tàng ban đầu được gọi là gì?", True),
    ("Biệt danh cho logo của ABC trong chiến dịch năm 2000 là gì?", True),
    ("卫斯理警告人们饮酒危害的著名布道叫什么名字？", True),
    ("图表 “千年北半球气温重建”的别称是什么？", True),
    ("Nguồn gốc của sai lầm là gì?", False),
    ("个人议案通常的话题是什么？", False),
    ("What is the name of the fund?", False),
])
def test_asks_name(question, asks):
    assert asks_name(question) is asks


@pytest.mark.parametrize("text, names", [
    # the sentence's first word is capitalised as the sentence's, not as a name
    ("Sau đó, Anderson đã ghi điểm và Manning chuyền cho Bennie Fowler.", ["Anderson", "Manning", "Bennie Fowler"]),
    ("Tesla hợp tác với Robert Lane và Benjamin Vail, người", ["Robert Lane và Benjamin Vail"]),
    ("the University of Chicago and more", ["University of Chicago"]),
    # one capitalised Vietnamese syllable is the head of a longer name, not a name
    ("ban đầu bảo tàng được gọi là Bảo tàng Sản xuất.", []),
    ("Ông đến từ Ba Tư và nhà", ["Ba Tư"]),
    ("约翰•卫斯理在他的著名布道“金钱的使用”中", ["金钱的使用"]),
    ("该法令即《枫丹白露法令》 废止", ["枫丹白露法令"]),
    ("被称作“ 曲棍球杆曲线 ”", ["曲棍球杆曲线"]),
])
def test_name_spans(text, names):
    assert [text[s:e] for s, e in name_spans(text)] == names
