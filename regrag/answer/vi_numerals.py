"""Counts written in Vietnamese number words: ``hai đội``, ``bốn lựa chọn``,
``mười một đơn vị``, ``thứ ba``.

A Vietnamese number word is often something else, so a span is a count only
when the words around it say so:

- ``năm`` is "five" and "year": it is a year (no count) before a number
  (``năm 2015``), before a word that makes it a point in time (``năm sau``,
  ``năm nay``, ``năm học``) and after a word that makes it a noun (``hàng
  năm``, ``mỗi năm``, ``những năm``); after ``mười`` it is what is counted
  (``mười năm``, ten years: fifteen is ``mười lăm``);
- ``một`` is "one" and the article "a" (``một bữa tối``, ``một số``): it is
  a count only before a scale or a fraction (``một triệu``, ``một nửa``,
  ``một phần ba``), like ``hàng`` (``hàng trăm``: hundreds);
- a cardinal needs the thing it counts after it: the next word when it is a
  classifier or measure word (``CLASSIFIERS``: ``ba người``, ``bảy lần``,
  ``hai đội``; one syllable each), else the next two words unless the second
  is a function word, capitalised or a number (a Vietnamese noun is often
  two syllables: ``quốc gia``, ``lựa chọn``, ``hoàng tử``; the short answer
  then drops the words the question already says); an ordinal (``thứ ba``)
  and a numeral ending in a scale or a fraction (``năm triệu``, ``hai phần
  ba``, ``một nửa``) stand alone before a function word or the end.

``word_counts(text)`` lists the ``[start, end)`` spans, sorted. The numeral
itself may be several words (``hai mươi lăm``, ``năm triệu``).
"""

from __future__ import annotations

import re

_UNITS = "hai|ba|bốn|năm|sáu|bảy|tám|chín"
_SCALES = "mươi|chục|trăm|nghìn|ngàn|triệu|tỷ"
NUMERAL = re.compile(
    r"(?<![\w])(?:(?P<ordinal>(?i:thứ)\s))?(?P<first>(?i:mười|" + _UNITS + r"|(?:một|hàng)(?=\s(?:" + _SCALES + r"|nửa|phần)\b)))"
    r"(?P<rest>(?:\s(?:" + _SCALES + r"|nửa))?(?:\sphần\s(?:hai|ba|tư|năm|sáu|bảy|tám|chín|mười|trăm))?"
    r"(?:\s(?:mốt|lăm|một|" + _UNITS.replace("năm|", "") + r"))?)(?![\w])"
)
_WORD = re.compile(r"\s([^\W\d_]+)(?![\w])")
# words after which "năm" is the noun "year", and words after "năm" that make it one
_YEAR_BEFORE = frozenset("hàng mỗi các những nhiều vài mấy cuối đầu giữa cả suốt nửa".split())
_YEAR_AFTER = frozenset("nay ngoái sau trước qua tới đó này ấy kia kế học tài nào ánh thứ mới âm dương".split())
# words that end a counted noun (or show there is none)
FUNCTION_WORDS = frozenset(
    "là ở trong của và với cho được đã có sẽ thì mà những các này đó ấy khi lúc từ đến tới về theo bị do vì nên "
    "hay hoặc như rằng nếu trên dưới sau trước giữa ngoài tại bởi cũng đều vẫn còn rồi chỉ không chưa nữa".split()
)

# one-syllable classifiers and measure words: the counted noun ends with them
CLASSIFIERS = frozenset(
    "người lần con cái chiếc đội loài trường vùng tuyến điểm năm tháng ngày tuần giờ phút giây lượt bàn trận mùa "
    "cuốn quyển tập bộ bài câu tờ lá ngôi căn tòa toà nhà cây chuyến phần đợt vòng bước hạng khu cấp loại kiểu "
    "nhóm lớp phiên mã nước tầng dòng cặp đôi chục tấn mét ký cân hộ gia".split()
)


def word_counts(text: str) -> list[tuple[int, int]]:
    """The counts in number words of ``text`` (the rules above), sorted."""
    spans = []
    for match in NUMERAL.finditer(text):
        first = match.group("first").casefold()
        rest = match.group("rest")
        before = text[:match.start()].split()
        previous = before[-1].casefold() if before else ""
        following = _WORD.match(text, match.end())
        after = following.group(1) if following else ""
        if first == "năm" and not rest and (previous in _YEAR_BEFORE or after.casefold() in _YEAR_AFTER
                                            or re.match(r"\s\d", text[match.end():match.end() + 2])):
            continue
        if first in ("một", "hàng") and not rest:
            continue  # "một phần" (a part), "hàng" alone: no number
        if match.group("ordinal") or (rest and not following) or (rest and after.casefold() in FUNCTION_WORDS):
            spans.append(match.span())
            continue
        if not following or after.casefold() in FUNCTION_WORDS or after[0].isupper():
            continue
        end = following.end()
        second = None if after.casefold() in CLASSIFIERS else _WORD.match(text, end)
        if second and second.group(1).casefold() not in FUNCTION_WORDS and not second.group(1)[0].isupper():
            end = second.end()
        spans.append((match.start(), end))
    return spans
