"""Spans of text that can answer a question of a given expected type.

``typed_spans(text, kind)`` lists the ``[start, end)`` spans of ``text`` that
are of the expected type (``regrag.answer.question``): an amount with its
currency or unit (``VLR 15,000,000``, ``人民币880元``, ``412 tỷ đồng``,
``31.500 đồng/cổ phiếu``), a percentage (``0,66%``, ``3 percentage points``),
a duration (``7 years``, ``90 calendar days``, ``24小时``, ``36个月``,
``6 tháng``), a date or time (``1 March 2025``, ``2026-03-19``, ``19/3/2026``,
``2025年7月1日``, ``tháng 11/2026``, ``ngày 7 tháng 1 năm 1943``, ``năm 1972``,
``những năm 1990``, ``thế kỷ 18``, ``20世纪70年代``, ``16:00``), a count (a whole
number with the thing it counts: ``2张``, ``两所``, ``41 mã``, ``120 countries``,
or Vietnamese number words, ``regrag.answer.vi_numerals``: ``bốn quốc gia``), a
figure (any of those, a range, ``100-150``, ``400-860-3718``, or a number with
its unit: ``0.60倍``, ``48 ha``, ``1,18 triệu TEU``, ``1.600 mm``), or a named
party (a run of capitalised words: ``Harbor Mekong Partners``; a transliterated
name in Chinese: ``玛丽·麦特琳``).

Every pattern starts and ends at a number's or word's edge (no digit, decimal
separator or letter of the same run on the other side; a number is never a
piece of a date or a time: not ``30`` of ``30/6/2026``, not ``00`` of
``16:00``), so a span never cuts a number, a date or a ticker. Spans are
returned sorted by start, then end.
"""

from __future__ import annotations

import re

from regrag.answer.vi_numerals import word_counts

_NUMBER_BODY = r"(?<![0-9A-Za-zÀ-ỹĐđ.,/:-])\d+(?:[.,]\d+)*"
# never a piece of a date, a time or a range ("2026" of "2026-03-19", "100" of "100-150")
NUMBER = _NUMBER_BODY + r"(?![\d])(?![/:]\d)(?!\s?[-–]\s?\d)"
# numbers joined by dashes, one figure: a range or a score ("100-150", "20–18"), a
# phone number ("400-860-3718"); not a date ("2026-03-19")
_RANGE = (r"(?!\d{4}-\d{1,2}-\d{1,2}(?!\d))" + _NUMBER_BODY
          + r"(?:\s?[-–]\s?\d+(?:[.,]\d+)*)+(?![\d])(?![/:]\d)")
# the end of a figure: no letter or digit follows, but a CJK character may (no spaces in CJK text)
_EDGE = r"(?![^\W\u3400-\u9fff\uf900-\ufaff]|-)"
_SCALE = r"(?:\s?(?:million|billion|bn|triệu|tỷ|nghìn|ngàn|万|亿))?"
_CURRENCY = r"(?:VLR|USD|EUR|GBP|HKD|JPY|AUD|CAD|SGD|CHF|RMB|CNY|VND)"
_MONTHS = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_EN_UNITS = r"(?:calendar\s+|business\s+|working\s+|trading\s+)?(?:days?|years?|months?|weeks?|hours?|minutes?)"
_WORD_NUMBERS = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
# (not 年, 月, 日: "2014年", "10月", "6日" are dates; periods are 年 of the duration type, 个月, 天)
_CJK_UNITS = r"(?:公里|万元|亿元|元|倍|升|分|次|张|个月|个工作日|工作日|个|座|天|小时|分钟|周岁|岁|人|项|种|家|笔|位|条|期|级|点|档|万|亿)"
# the characters Chinese writes foreign names with (the common ones of the Xinhua transliteration table)
_TRANSLITERATED = (
    "["
    "阿埃艾爱安昂奥巴拜班邦保鲍贝本比彼毕宾波伯勃博布查彻达戴丹道德登邓迪蒂丁东杜多厄恩尔法范菲费芬丰冯佛弗福富盖甘冈戈格古圭"
    "哈海汉豪赫黑亨洪胡华霍基吉加贾杰金津卡凯坎康考柯科克肯库夸奎昆拉莱兰朗劳勒雷蕾里理丽利莉连林琳卢鲁路伦罗洛马玛迈麦曼芒梅"
    "美门蒙米密缪明莫姆穆纳娜奈南内尼妮宁纽努诺欧帕派潘庞佩彭皮珀普齐奇乔切钦琴琼丘萨塞赛森沙莎尚舍施什史士舒斯丝松苏索塔泰坦"
    "汤唐特藤提廷通图托瓦万旺威韦维温文沃乌伍武西希锡谢辛休雅亚扬耶伊因英尤约詹泽扎兹佐翰茨"
    "]"
)
_CJK_COUNTERS = r"(?:次|张|个|种|项|笔|家|位|条|期|座|档|人|所|支|具|幅|件|名|只|艘|架|辆|届|层|台|棵|篇|批)"

_PATTERNS: dict[str, tuple[str, ...]] = {
    "amount": (
        _CURRENCY + r"\s?" + NUMBER + _SCALE + r"(?![\w])",
        r"(?:人民币|港币|美元)?" + NUMBER + r"(?:万|亿)?(?:元|美元|港元)",
        NUMBER + _SCALE + r"\s?(?:đồng|USD|VND|EUR)(?:/[\wđ]+(?:\s(?:phiếu|ngày))?)?(?![\w])",
        NUMBER + _SCALE + r"\s(?:crowns|dollars|yuan)\b",
    ),
    "percentage": (
        r"(?:" + _RANGE + r"|" + NUMBER + r")\s?[%％]",
        NUMBER + r"\s(?:percentage\s+points?|per\s+cent|percent|phần\s+trăm)\b",
        r"百分之[\d一二三四五六七八九十百点.]+",
    ),
    "duration": (
        r"(?:" + NUMBER + r"|\b" + _WORD_NUMBERS + r")[\s-]" + _EN_UNITS + r"\b",
        NUMBER + r"(?:个)?(?:工作日|小时|分钟|天|个月|周|周岁)",
        r"(?!(?:1[5-9]|20)\d{2}年)" + NUMBER + r"年(?![\d代])(?!\d*月)",  # not a year ("1528年"), not a decade ("70年代")
        NUMBER + r"\s(?:ngày|tháng|năm|giờ|phút|tuần|phiên)(?![\w])(?!\s\d)",
    ),
    "date": (
        r"(?<!\d)\d{1,2}\s" + _MONTHS + r"(?:\s\d{4})?\b",
        r"\b" + _MONTHS + r"\s\d{4}\b",
        r"(?<![\d/])\d{4}-\d{1,2}-\d{1,2}(?![\d])",
        r"(?<![\d/.,])\d{1,2}/\d{1,2}(?:/\d{2,4})?(?![\d/])",
        r"(?<![\d/.,])\d{1,2}/\d{4}(?![\d/])",
        r"(?<!\d)\d{4}年(?:\d{1,2}月(?:\d{1,2}日)?)?",
        r"(?<!\d)\d{1,2}月\d{1,2}日",
        r"(?:tháng|quý)\s(?:\d{1,2}|I{1,3}|IV)/\d{4}",
        # Vietnamese dates in words: "ngày 5 tháng 3 năm 2015", "tháng 6, 1944", "năm 1943"
        r"(?<![\w/])(?:(?i:ngày)\s)?\d{1,2}\s(?i:tháng)\s\d{1,2}(?:,?\s(?i:năm)\s\d{3,4})?(?![\d/]|[.,]\d)",
        r"(?<![\w/])(?i:tháng)\s\d{1,2},?\s(?:(?i:năm)\s)?\d{4}(?![\d/]|[.,]\d)",
        r"(?<![\w])(?i:năm)\s\d{3,4}(?![\d/:]|[.,]\d|\s?%)",
        # decades and centuries: "những năm 1990", "thập niên 1960", "thế kỷ 18", "20世纪70年代", "1950年代", "十九世纪"
        r"(?<![\w])(?:(?i:đầu|giữa|cuối)\s)?(?i:những|thập\s+niên)\s(?:(?i:năm)\s)?\d{4}(?![\d/:]|[.,]\d)",
        r"(?<![\w])(?:(?i:đầu|giữa|cuối)\s)?(?i:thế\s+kỷ)\s(?:thứ\s)?(?:\d{1,2}|[IVXLC]+)(?![\w])",
        r"(?<!\d)(?:\d{1,2}\s?世纪(?:\s?\d0\s?年代)?|[一二三四五六七八九十]+世纪|\d{2}(?:\d0)?\s?年代)(?:初|末|中叶|中期|上半叶|下半叶)?",
        r"(?i:tháng)\s\d{1,2}(?![\d/])",
        r"(?<![\d:])\d{1,2}:\d{2}(?![\d:])",
        r"\b(?:1[5-9]|20)\d{2}\b",
    ),
    "count": (
        NUMBER + _CJK_COUNTERS,
        r"(?<![一二三四五六七八九十两])[一二三四五六七八九十两]+" + _CJK_COUNTERS,
        r"\b(?i:one|two|three|four|five|six|seven|eight|nine|ten)\s(?=\w)[^\W\d_]+",
        NUMBER + r"\s(?:mã|lần|phiên|cổ\sphiếu|người|công\sty|doanh\snghiệp|quỹ)(?![\w])",
    ),
    "figure": (
        r"(?<![\d:/.,])\d+:\d+(?![\d:])",  # a ratio or a time on a clock (20:1, 4:51), whole
        NUMBER + _SCALE + r"\s?" + _CJK_UNITS,
        # a range is one figure: "100-150", "3–5 triệu", "400-860-3718"
        _RANGE + _SCALE + r"(?:" + _CJK_UNITS + r"|" + _EDGE + r")",
        NUMBER + _SCALE + r"(?:\s?(?:°C|°F)|\s(?:lần|ha|TEU|MW|GW|kW|Hz|điểm|tấn|pips|points|times|km²|km2|km|kg|mm|cm|vòng/phút))?(?![\w])",
    ),
    "party": (
        r"\b(?:[A-ZĐ][\w&'-]*)(?:\s(?:(?:of|and|for|the|de|du)\s)?[A-ZĐ][\w&'-]*)+",
        # a foreign name in Chinese: transliteration characters joined by a middle dot ("玛丽·麦特琳")
        _TRANSLITERATED + r"{1,4}(?:[·•・]" + _TRANSLITERATED + r"{1,5})+",
    ),
}
_COMPILED = {kind: tuple(re.compile(pattern) for pattern in patterns) for kind, patterns in _PATTERNS.items()}
# a fee charged as a share ("a currency conversion fee of 1.50%", "手续费为0.60%", "phí là 0,15%") answers
# what a fee is, as an amount does (session 41); a percentage elsewhere does not
_FEE_SHARE = re.compile(r"(?:(?<![\w-])(?:fee|charge|commission)\s+(?:of\s+|is\s+|at\s+)?|费(?:率)?(?:为|是)?|(?<!\w)phí\s+(?:là\s+)?)"
                        r"(" + _PATTERNS["percentage"][0] + r")")
# a number and the English noun after it ("120 countries"); not in Vietnamese text, whose syllables
# are often plain letters too ("25 thi thể", "năm 1913 khi": a part of a word, a conjunction)
_ENGLISH_COUNT = re.compile(
    r"(?<![0-9A-Za-zÀ-ỹĐđ.,/:-])\d+(?![\d.,%/:])\s(?!(?:percent|per|calendar|business|working|days?|years?|months?"
    r"|weeks?|hours?|minutes?)\b)[a-z]{3,}\b")
_VIETNAMESE_LETTERS = re.compile(r"[ăâđêôơưĂÂĐÊÔƠƯ\u0300-\u0303\u0309\u0323\u1ea0-\u1ef9]")
# the figure type also takes every span of the numeric types
_NUMERIC = ("amount", "percentage", "duration", "date", "count")
TYPED = ("amount", "percentage", "duration", "date", "count", "figure", "party")


# what else answers a type: a deadline is often a period ("no later than 15
# days after"), a count often a figure with a scale ("9,8 triệu cổ phiếu");
# "how much" (a figure) is never answered by a date ("30/6/2026")
_ALSO = {"figure": ("amount", "percentage", "duration", "count", "figure"), "date": ("date", "duration"), "count": ("count", "figure")}


def typed_spans(text: str, kind: str) -> list[tuple[int, int]]:
    """The maximal spans of ``text`` of type ``kind`` (none for a type without
    spans: yes-no, definition, other), sorted, each once; a date question
    also takes durations (deadlines), a count question figures."""
    kinds = _ALSO.get(kind, (kind,))
    found: set[tuple[int, int]] = set()
    for name in kinds:
        for pattern in _COMPILED.get(name, ()):
            for match in pattern.finditer(text):
                start, end = match.span()
                while end > start and text[end - 1].isspace():
                    end -= 1
                if end > start:
                    found.add((start, end))
        if name == "amount":
            found.update(match.span(1) for match in _FEE_SHARE.finditer(text))
        if name == "count":
            found.update(word_counts(text))
            if not _VIETNAMESE_LETTERS.search(text):
                found.update(match.span() for match in _ENGLISH_COUNT.finditer(text))
    ordered = sorted(found)
    # a span inside a longer one is part of it ("11/2026" in "tháng 11/2026")
    return [span for span in ordered
            if not any(s <= span[0] and span[1] <= e and (s, e) != span for s, e in ordered)]


def has_type(text: str, kind: str) -> bool:
    """Whether ``text`` holds a span of type ``kind`` (always true for a type without spans)."""
    if kind not in TYPED:
        return True
    return bool(typed_spans(text, kind))
