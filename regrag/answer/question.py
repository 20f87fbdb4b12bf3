"""Reading a question: what it asks for, apart from what it is about.

A question has *scaffolding* ("how long", "what is", "bao nhiêu", "khi nào",
"多少", "什么时候"): words that say what kind of answer is wanted and carry no
content, so they never count as missing evidence. From the scaffolding (and a
few cue words such as "fee", "rate", "费率", "tỷ lệ") comes the **expected
answer type**:

``amount`` (a figure with a currency), ``percentage``, ``duration`` (a period:
"7 years", "90天", also "how often"), ``date`` (a date, deadline or time of day),
``count`` (how many things), ``figure`` (some number: "how large", bare "多少"
or "bao nhiêu"), ``party`` (who: a named person or body), ``yes-no``,
``definition``, or ``other``.

A question may have two *sides* ("QMS và HXT", "compared with", "相比",
"so với", "X or Y"): each side needs evidence of its own
(``regrag.answer.confidence``). The reading is a pure function of the text:
patterns are tried in a fixed order, spans are sorted, nothing depends on
set order. Patterns are per language family (English, Vietnamese, Chinese),
all tried on every question, since questions mix scripts (``RiverPost跨境汇款``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from regrag.audit.canonical import JsonRecord

# Type cues, tried in this order: the first that matches sets the expected
# type. A cue does not make its words scaffolding (``fee`` and ``haircut`` in
# "what fee", "what haircut" are content).
_I = re.IGNORECASE
_UNITS_EN = r"(?:calendar\s+|business\s+|working\s+|trading\s+)?(?:days?|years?|months?|weeks?|hours?|minutes?)"
_AMOUNT_NOUNS = r"(?:fee|fees|charge|charges|cost|price|fine|fines|penalty|penalties|amount|allowance|limit|threshold|sum)"
_CUES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, flags), kind)
    for pattern, flags, kind in (
        # English
        (r"\bhow\s+many\s+" + _UNITS_EN + r"\b|\bhow\s+long\b|\bhow\s+(?:soon|quickly|fast|often|frequently)\b"
         r"|\bhow\s+far\s+(?:in\s+advance|ahead)\b|\bwhat\s+(?:notice\s+)?period\b", _I, "duration"),
        (r"\b(?:by\s+)?what\s+(?:time|date|day)\b|\bwhen\b|\bdeadline\b", _I, "date"),
        (r"\b(?:what|which)\s+(?:is\s+the\s+|are\s+the\s+)?(?:\w+\s+){0,4}(?:percentage|share|ratio|proportion|haircut|rate)s?\b"
         r"|\bwhat\s+percentage\b", _I, "percentage"),
        (r"\bhow\s+much\b|\b(?:what|which)\s+(?:is\s+the\s+|are\s+the\s+)?(?:\w+\s+){0,3}" + _AMOUNT_NOUNS + r"\b", _I, "amount"),
        (r"\bhow\s+many\b", _I, "count"),
        (r"\bhow\s+(?:large|big|high|low|small)\b", _I, "figure"),
        (r"\b(?:who|whom|whose)\b|\bwhich\s+(?:company|bank|firm|issuer|authority|institution|regulator|person|body|fund)\b", _I, "party"),
        (r"\bhow\s+does\s+(?:\S+\s+){1,4}?define\b|\bwhat\s+(?:is|are)\s+(?:meant\s+by|the\s+meaning\s+of|the\s+definition\s+of)\b"
         r"|\bdefin(?:e|ition)\b", _I, "definition"),
        (r"^\s*(?:is|are|was|were|can|could|do|does|did|may|must|should|will|would|has|have)\b", _I, "yes-no"),
        # Vietnamese
        (r"bao\s+lâu|(?:bao\s+nhiêu|mấy)\s+(?:ngày|tháng|năm|giờ|phút|tuần)\b", _I, "duration"),
        (r"khi\s+nào|bao\s+giờ|lúc\s+nào|ngày\s+nào|thời\s+điểm\s+nào|tháng\s+nào|hạn\s+chót"
         r"|năm\s+nào|thế\s+kỷ\s+nào|thập\s+(?:kỷ|niên)\s+nào", _I, "date"),
        (r"bao\s+nhiêu\s+phần\s+trăm|(?:tỷ\s+lệ|tỷ\s+suất)(?:\s+\S+){0,6}\s+(?:là\s+)?bao\s+nhiêu"
         r"|\bbiên\s+(?:lợi\s+nhuận\s+)?\S+(?:\s+\S+){0,6}\s+(?:là\s+)?bao\s+nhiêu", _I, "percentage"),
        (r"bao\s+nhiêu\s+tiền|(?:giá|phạt|lãi|lợi\s+nhuận|doanh\s+thu)(?:\s+\S+){0,6}\s+(?:là\s+)?bao\s+nhiêu", _I, "amount"),
        (r"(?:bao\s+nhiêu|mấy)\s+(?:mã|lần|phiên|người|công\s+ty|cổ\s+phiếu)\b", _I, "count"),
        (r"^\s*ai\b|\bai\s+là\b|\blà\s+ai\b|\bai\s*\??\s*$|(?:công\s+ty|ngân\s+hàng|doanh\s+nghiệp|bên|quỹ|tổ\s+chức)\s+nào", _I, "party"),
        (r"\blà\s+gì\b", _I, "definition"),
        (r"\bkhông\s*\??\s*$|hay\s+không", _I, "yes-no"),
        (r"bao\s+nhiêu|\bmấy\b", _I, "figure"),
        # Chinese
        (r"多久|多长时间|多长|(?:几|多少)个?(?:工作日|小时|分钟|天|月|年|周)|(?:时限|期限|时长)(?:是|为|各是|分别是)?(?:多少|几)",
         0, "duration"),
        (r"什么时候|何时|哪天|哪一天|几点|几号|什么日期|截止|哪一?年|哪个年代|什么年代|哪个世纪|什么世纪", 0, "date"),
        (r"(?:比例|费率|利率|比率|百分比)(?:是|为)?(?:多少|几)|多少比例|百分之几", 0, "percentage"),
        (r"多少钱|(?:费|价|金额|保费|额度|限额|赔款)(?:是|为|各是|分别是)?多少|(?:收|扣|还|交|付)多少", 0, "amount"),
        (r"(?:几|多少)[次张个种项笔档位家所支具幅件名只艘架辆届层台棵篇批座]", 0, "count"),
        (r"谁|哪家|哪位|哪个(?:公司|机构|银行)", 0, "party"),
        (r"是什么|什么是|指什么|是指", 0, "definition"),
        (r"吗|是否|能否|可否|能不能|可不可以|会不会|有没有|要不要|(.)不\1", 0, "yes-no"),
        (r"多少|几", 0, "figure"),
        # a Chinese keyword query naming what it wants at its end ("星耀白金卡 积分有效期",
        # "安途车险 报案电话"): a period, or a number to call
        (r"(?:有效期|等待期|犹豫期|冷静期|宽限期|免息期|观察期)\s*[？?]?\s*$", 0, "duration"),
        (r"(?:电话|热线)(?:号码)?\s*[？?]?\s*$", 0, "figure"),
        (r"\b(?:waiting|cooling[- ]off|grace|interest[- ]free|free[- ]look)\s+period\s*\??\s*$", _I, "duration"),
        (r"\b(?:(?:tele)?phone(?:\s+number)?|hotline)\s*\??\s*$", _I, "figure"),
    )
)
# Scaffolding: interrogative words and phrases only (never a content noun).
_SCAFFOLDING = tuple(
    re.compile(pattern, flags)
    for pattern, flags in (
        (r"\b(?:for\s+|within\s+)?how\s+(?:long|much|many|soon|quickly|fast|often|frequently|large|big|high|low|small|far(?:\s+in\s+advance|\s+ahead)?)\b", _I),
        (r"\b(?:by\s+|until\s+)?(?:what|which|when|where|why|who|whom|whose|how)\b"
         r"(?:\s+(?:is|are|was|were|does|do|did|must|should|can|may|will))?(?:\s+the\b)?", _I),
        (r"\bdefine\b", _I),
        (r"(?:trong\s+|mất\s+)?bao\s+(?:lâu|nhiêu(?:\s+(?:phần\s+trăm|tiền))?|giờ)|khi\s+nào|lúc\s+nào|vì\s+sao|tại\s+sao|như\s+thế\s+nào|thế\s+nào|ra\s+sao"
         r"|\blà\s+gì\b|\bgì\b|\bnào\b|\bmấy\b|^\s*ai\b|\bai\s+là\b|\blà\s+ai\b|\bai\s*\??\s*$|hay\s+không|\bkhông\s*\??\s*$", _I),
        (r"(?:几|多少)个?(?:工作日|小时|分钟|天|月|年|周|次|张|种|倍|元|钱)|多久|多长时间|多长|是?什么时候|何时|哪一?年|哪天|哪一天|几点|几号|是什么|什么是|指什么|叫做?什么(?:名字)?|称为什么|称作什么|多少|几|什么|哪些|哪个|哪家|哪位|谁|哪里|哪儿|何处|何地|何种|哪一?[条种项所支部座类本国句名]"
         r"|怎么|怎样|如何|分别|各|吗|是否|能否|可否|能不能|可不可以|会不会|有没有|要不要|(.)不\1", 0),
    )
)

# Contrast and comparison markers: the question has two sides, one on each side of the marker.
_CONTRAST = re.compile(
    r"\b(?i:difference\s+between|compared?\s+(?:with|to)|compare|versus|rather\s+than)\b|\bvs\.?\s"
    r"|\s(?:or|and)\s(?=[A-Z])|(?i:so\s+với|khác\s+nhau)|\shay\s|\svà\s(?=[A-ZĐ])|相比|相较|比较|还是|和|与|及"
)
_COMPARE_FIRST = re.compile(r"\s*(?i:compare|so\s+sánh|比较)\b")
_COMPARE_WITH = re.compile(r"\s(?i:with|to|and|against|với|và)\s|和|与")
EXPECTED_TYPES = ("amount", "percentage", "duration", "date", "count", "figure", "party", "yes-no", "definition", "other")


@dataclass(frozen=True)
class QuestionReading(JsonRecord):
    """What the question asks for: its expected answer type, the scaffolding
    (as typed, in order), and its two sides when it compares or names two."""

    expected_type: str
    scaffolding: tuple[str, ...]
    scaffolding_spans: tuple[tuple[int, int], ...]
    contrast: bool


def read_question(question: str) -> QuestionReading:
    """The reading of ``question`` (deterministic: fixed pattern order, sorted spans)."""
    read = _mask_names(question)
    expected = next((kind for pattern, kind in _CUES if pattern.search(read)), "other")
    spans: list[tuple[int, int]] = []
    for pattern in _SCAFFOLDING:
        for match in pattern.finditer(read):
            start, end = match.span()
            text = question[start:end]
            start += len(text) - len(text.lstrip())
            end -= len(text) - len(text.rstrip())
            if end > start:
                spans.append((start, end))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    contrast = any(not _inside(m.span(), merged) for m in _CONTRAST.finditer(question))
    return QuestionReading(expected, tuple(question[s:e] for s, e in merged), tuple(merged), contrast)


_NAMED_INTERROGATIVE = re.compile(r"\b(?:What|Which|When|Where|Why|Who|Whom|Whose|How)\b")


def _mask_names(question: str) -> str:
    """``question`` with each English interrogative written with a capital
    inside a sentence (``Doctor Who``, ``The Who``) blanked out, offsets kept:
    it is part of a name, neither scaffolding nor a type cue."""
    out = question
    for match in _NAMED_INTERROGATIVE.finditer(question):
        before = question[:match.start()].rstrip()
        if before and not before.endswith((".", "?", "!", ":", ";", '"', "“", "(")):
            out = out[:match.start()] + " " * (match.end() - match.start()) + out[match.end():]
    return out


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(s <= span[0] and span[1] <= e for s, e in spans)


def is_scaffolding(reading: QuestionReading, start: int, end: int, cjk: bool) -> bool:
    """Whether the question's term at ``[start, end)`` is scaffolding: inside a
    scaffolding span, or, for a CJK bigram, overlapping one (``么时`` in
    ``什么时候``, ``少天`` in ``多少天``)."""
    for s, e in reading.scaffolding_spans:
        if s <= start and end <= e:
            return True
        if cjk and start < e and s < end:
            return True
    return False


def contrast_sides(question: str, reading: QuestionReading) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The two sides of a contrast question, split at its first marker outside
    the scaffolding; None when it has none."""
    if not reading.contrast:
        return None
    if _COMPARE_FIRST.match(question):
        second = _COMPARE_WITH.search(question)
        if second is not None:
            return (0, second.start()), (second.end(), len(question))
    for match in _CONTRAST.finditer(question):
        if _inside(match.span(), list(reading.scaffolding_spans)):
            continue
        left, right = (0, match.start()), (match.end(), len(question))
        if question[left[0]:left[1]].strip() and question[right[0]:right[1]].strip():
            return left, right
    return None
