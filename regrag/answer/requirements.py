"""The parts of a question that need their own support: each *side* of a
question that names two entities or compares two things, and the expected
answer type.

- **sides**: when the question names entities of two or more different
  document sets (``星耀白金卡和轻盈贷``, ``SLK hay HVB``), each name is a side,
  supported when some hit of its documents is in the results; otherwise, when
  it has a contrast marker (``compared with``, ``so với``, ``相比``, ``和``, ``or``),
  the text on each side of the marker is a side, supported when one of its
  distinct content terms (those the other side lacks) is in the evidence. A side with no content term of its own
  (all scaffolding) needs nothing.
- **the entity asked**: when the question names an entity (docs/entities.md)
  and the cited sentence names entities, but none of the question's, the
  sentence is about another one ("… 7,8 triệu cổ phiếu HSQ" for a question on
  TLR): ``other_entities`` lists the names it gives instead.
- **type**: a question expecting a figure (amount, percentage, duration, date,
  count, figure) or a named party is supported when the evidence passages hold
  a span of that type (``regrag.answer.answer_types``); the other types
  (yes-no, definition, other) always are.
"""

from __future__ import annotations

import re

from regrag.corpus.model import TITLE_SEPARATOR

from regrag.answer.answer_types import TYPED, has_type, typed_spans
from regrag.answer.question import QuestionReading, contrast_sides
from regrag.answer.units import span_counts, span_has_unit
from regrag.text.scripts import HAS_CJK


def entity_sides(index, question: str) -> list[tuple[str, tuple[str, ...]]]:
    """The entity names of the question (as typed) with their documents, one
    per distinct document set, in question order; empty unless two or more."""
    sides: list[tuple[str, tuple[str, ...]]] = []
    for match in index.entity_catalog.match(question):
        documents = tuple(sorted(match.documents))
        if all(documents != known for _n, known in sides):
            sides.append((question[match.start:match.end], documents))
    return sides if len(sides) > 1 else []


def side_hits(hits, sides: list[tuple[str, tuple[str, ...]]]) -> list:
    """The best hit of each entity side's documents (when in the results)."""
    chosen = []
    for _name, documents in sides:
        best = next((hit for hit in hits if hit.document_id in documents), None)
        if best is not None and all(best.passage_id != hit.passage_id for hit in chosen):
            chosen.append(best)
    return chosen


def missing_sides(index, question: str, language: str, reading: QuestionReading, terms: tuple[str, ...],
                  evidence: set[str], hits) -> tuple[str, ...]:
    """The sides of the question (as typed) without support, in question order."""
    sides = entity_sides(index, question)
    if sides:
        present = {hit.document_id for hit in hits}
        return tuple(name for name, documents in sides if not present.intersection(documents))
    split = contrast_sides(question, reading)
    if split is None:
        return ()
    absent = []
    analysed = index.analyzer.analyze(question, language)
    parts = [[t for t, s, e in analysed if start <= s and e <= end and t in terms] for start, end in split]
    for (start, end), own, other in zip(split, parts, reversed(parts)):
        distinct = [t for t in own if t not in other]  # what tells this side from the other
        if distinct and not any(t in evidence for t in distinct):
            absent.append(question[start:end].strip(" ,，、?？.。"))
    return tuple(absent)


def other_entities(index, question: str, sentence) -> tuple[str, ...]:
    """The entity names ``sentence`` (the cited sentence, or None) gives when
    the question names entities and the sentence names only others (their
    document sets all differ from the question's), sorted; else empty."""
    if sentence is None:
        return ()
    asked = {tuple(sorted(match.documents)) for match in index.entity_catalog.match(question)}
    named = index.entity_catalog.match(sentence.text)
    if not asked or not named or any(tuple(sorted(match.documents)) in asked for match in named):
        return ()
    return tuple(sorted({sentence.text[match.start:match.end] for match in named}))


def unnamed_entities(index, question: str, sentence) -> tuple[str, ...]:
    """The entity names the question uses (as typed, in question order) when
    the cited ``sentence`` in its context (the sentence and its own section
    heading: not the document title, which in such a document may name
    several) names none of the question's entities (document
    sets): a sentence about the whole market, or about a product the question
    does not name, does not answer a question about one ticker. Only for a
    document about several entities (``_about_several``). Empty when the
    question names none, or ``sentence`` is None."""
    if sentence is None:
        return ()
    matches = index.entity_catalog.match(question)
    if not matches:
        return ()
    asked = {tuple(sorted(match.documents)) for match in matches}
    document = index.document(sentence.document_id)
    if not _about_several(document):
        return ()  # a document about one issuer or product: every sentence of it is about that one
    # the section's own heading: its path starts with the document's title, which may name several
    for text in (sentence.text, sentence.section_title.split(TITLE_SEPARATOR)[-1]):
        if any(tuple(sorted(match.documents)) in asked for match in index.entity_catalog.match(text)):
            return ()
    names: list[str] = []
    for match in matches:
        name = question[match.start:match.end]
        if name not in names:
            names.append(name)
    return tuple(names)


_NUMBER_UNIT = re.compile(r"(?<![\d.,])(\d+(?:[.,]\d+)*)(?![\d])(?:\s?([\u3400-\u9fff]|[^\W\d_\u3400-\u9fff]+))?")
_LABEL_BEFORE = re.compile(r"([^\W\d_\u3400-\u9fff]+)\s$")
_YEAR = re.compile(r"(?:1[5-9]|20)\d\d")
_FUNCTION_WORDS = frozenset("a an and at by for from in of on or the to with và của trong với là có các những từ đến".split())


def _numbers_with_units(text: str) -> list[tuple[str, str]]:
    """Each whole number of ``text`` with what it counts or labels:
    ``period-year`` for the year of a period (``2/2025``; other years are
    left out), else the word or CJK character right after it
    (``24期``: 期, ``9 yard``: yard) and the word right before it
    (``Article 5``: ``article<``), casefolded, function words left out."""
    found = []
    for match in _NUMBER_UNIT.finditer(text):
        number = match.group(1)
        if _YEAR.fullmatch(number):
            # a year closing a period ("quý 2/2025", "tháng 1/2026"); a year on its own
            # ("năm 1970") is left out: narrative text gives other years in passing
            if match.start() > 1 and text[match.start() - 1] == "/" and text[match.start() - 2].isdigit():
                found.append((number, "period-year"))
            continue
        unit = (match.group(2) or "").casefold()
        if unit and unit not in _FUNCTION_WORDS:
            found.append((number, unit))
        label = _LABEL_BEFORE.search(text, 0, match.start())
        if label and label.end() == match.start() and label.group(1).casefold() not in _FUNCTION_WORDS:
            word = label.group(1).casefold()
            found.append((number, (word[:-1] if word.isascii() and len(word) > 3 and word.endswith("s") else word) + "<"))
    return found


def conflicting_numbers(question: str, sentence, local: set[str]) -> tuple[str, ...]:
    """The question's numbers that the cited ``sentence`` in its context
    (``local``, its terms) lacks while the sentence gives another number of
    the same kind: another period's year (``quý 4/2024`` for ``quý 2/2025``),
    another count of the same unit (``12期`` for ``24期``), another number of
    the same label (``Articles 7 to 9`` for ``Article 5``). Such a sentence answers for
    another value of what the question fixes. Empty for None."""
    if sentence is None:
        return ()
    given = _numbers_with_units(sentence.text)
    conflicts = []
    for number, unit in _numbers_with_units(question):
        key = number.lstrip("0") or "0"
        if not unit or number in local or key in local or number in conflicts:
            continue
        # the year of a period the question names ("quý 2/2025") must be the sentence's own
        if unit == "period-year" or any(other_unit == unit and other != number for other, other_unit in given):
            conflicts.append(number)
    return tuple(conflicts)


# words naming an answer type: "what ownership percentage", "by what time", "số tiền"
TYPE_WORDS: dict[str, tuple[str, ...]] = {
    "amount": ("amount", "sum", "số tiền", "金额"),
    "percentage": ("percentage", "percent", "phần trăm", "百分比"),
    "duration": ("duration", "thời gian", "期限"),
    "date": ("date", "time", "deadline", "ngày", "日期", "时间"),
    "count": ("number", "số lượng", "数量"),
}


def type_word_terms(index, expected_type: str, language: str) -> set[str]:
    """The analysed terms of the words naming ``expected_type`` (``TYPE_WORDS``):
    when the cited sentence holds a span of that type, the question's
    "percentage" in "what ownership percentage" is supported by ``25%``."""
    return {term for word in TYPE_WORDS.get(expected_type, ())
            for term, _s, _e in index.analyzer.analyze(word, language) if " " not in term}


# the attribute a question asks of something: "<Vốn điều lệ> của CKV là bao nhiêu",
# "星耀白金卡的<年费>是多少", "What is the <cable charge> for ..."
_ATTRIBUTE = (
    re.compile(r"^\s*(?:(?:có|tổng)\s+)?(.+?)\s+của\s+.+?\s+(?:là\s+)?(?:bao\s+nhiêu|gì|ai|khi\s+nào|ở\s+đâu)", re.IGNORECASE),
    re.compile(r"的([^的，,。？?\s]{2,8}?)(?:分别|各|大约|大概)?(?:是|为|有)?(?:多少|什么|几|哪|谁)"),
    re.compile(r"^\s*what\s+(?:is|are|was|were)\s+the\s+(.+?)\s+(?:of|for|on|in|to|at|that|which|does|do|with)\b", re.IGNORECASE),
    # "康悦重疾每年最低要交多少<保费>？": the thing asked names the question's end, after 多少/几,
    # unless that is a unit or classifier (几天, 几张: units.py checks those) or a type word (多少比例)
    re.compile(r"(?:多少|几)(?![天月年日周时分秒次张个种项笔位家名只件倍元岁期钱]|比例|百分比|比率|费率|利率)"
               r"([^的，,。？?\s\d]{2,6})[？?]?\s*$"),
)


# where a period or number starts inside an attribute: "Lãi trước thuế <6 tháng đầu năm 2026>",
# "Doanh thu xuất khẩu <quý 2/2026>": the period is checked by conflicting_numbers, not as the attribute
_PERIOD = re.compile(r"(?<!\S)(?:(?:quý|tháng|năm|ngày|phiên|tuần|kỳ|quarter|year|month|fiscal)\s+)?\d", re.IGNORECASE)


def attribute_span(question: str) -> tuple[int, int] | None:
    """Where the question names the attribute it asks of something (the
    first pattern of ``_ATTRIBUTE`` that matches), or None."""
    for pattern in _ATTRIBUTE:
        match = pattern.search(question)
        if match:
            return match.span(1)
    return None


def lacks_attribute(index, question: str, language: str, terms: tuple[str, ...], sentence,
                    names: dict[str, tuple[str, ...]], rules) -> tuple[str, ...]:
    """For a question naming an entity (``names``: the documents' names it
    uses), the content terms of the attribute it asks (``attribute_span``,
    less the entity names) when the cited ``sentence`` in its context holds
    none of them, not even through the lexicon; else empty. ("Vốn điều lệ
    của CKV" is not answered by a sentence on CKV's margin lending.)"""
    from regrag.answer.lexicon import synonym_cover

    span = attribute_span(question) if names else None
    if span is None:
        return ()
    period = _PERIOD.search(question, span[0], span[1])
    if period is not None and period.start() > span[0]:
        span = (span[0], period.start())
    named = {term for match in index.entity_catalog.match(question)
             for term, _s, _e in index.analyzer.analyze(question[match.start:match.end], language)}
    wanted = tuple(t for t, start, end in index.analyzer.analyze(question, language)
                   if span[0] <= start and end <= span[1] and t in terms and t not in named)
    if not wanted:
        return ()
    local = sentence_evidence(index, sentence, names)
    # a Vietnamese attribute of several syllables is held by one of its syllable pairs,
    # not by a lone syllable ("giá" of "giá trị" is not "giá đóng cửa")
    pairs = tuple(t for t, start, end in index.analyzer.analyze(question, language)
                  if span[0] <= start and end <= span[1] and " " in t
                  and all(part in wanted for part in t.split(" ")))
    held = pairs if pairs else wanted
    if any(t in local for t in held) or synonym_cover(index.analyzer, language, wanted, local, rules):
        return ()
    return tuple(dict.fromkeys(wanted))


def _about_several(document) -> bool:
    """Whether the document's metadata lists several entities it is about
    (``tickers: QTB, DLB, TGA``: a market report), rather than one issuer or
    product, whose every sentence is about it."""
    return any(key == "tickers" and len([v for v in value.split(",") if v.strip()]) > 1
               for key, value in document.metadata)


def type_supported(index, expected_type: str, hits, sentence=None, unit: str | None = None,
                   counter: str | None = None) -> bool:
    """Whether the cited sentence (given one), else some evidence passage,
    holds a span of the expected type (a party only in text with capitals:
    CJK names cannot be told apart); a duration in the question's ``unit``
    when it asks for one ("how many years": ``10 business days`` is not one,
    ``regrag.answer.units``); a count of the thing the question counts when
    it names one ("bao nhiêu mã": ``41 mã``, not ``21,63 điểm``)."""
    if expected_type not in TYPED:
        return True
    if expected_type == "party" and hits:
        start, end = hits[0].passage_span
        if HAS_CJK.search(index.document(hits[0].document_id).text[start:end]):
            return True

    def holds(text: str) -> bool:
        if expected_type == "duration" and unit is not None:
            return any(span_has_unit(text[s:e], unit) for s, e in typed_spans(text, "duration"))
        if expected_type == "count" and counter is not None:
            return any(span_counts(text, s, e, counter) for s, e in typed_spans(text, "count"))
        return has_type(text, expected_type)

    if sentence is not None:
        return holds(sentence.text)
    for hit in hits:
        start, end = hit.passage_span
        if holds(index.document(hit.document_id).text[start:end]):
            return True
    return False


def sentence_terms(index, sentence) -> set[str]:
    """Terms of the cited sentence's own text (a table row with its header
    line or CSV record), without its titles, metadata or entity names."""
    from regrag.answer.table_rows import row_context

    document = index.document(sentence.document_id)
    language = index.document_language(sentence.document_id)
    start, end = sentence.span
    passage = index.passage(index.position_of(sentence.passage_id))
    context = row_context(document.text, start, end, passage.start, passage.end)
    low, high = context if context is not None else (start, end)
    terms = {term for term, _s, _e in index.analyzer.analyze(document.text[min(low, start):max(high, end)], language)}
    return terms | set(sentence.matched_terms)  # with the words its abbreviations spell out (LCR)


def is_bare(index, language: str, asked: tuple[str, ...], sentence, rules) -> bool:
    """Whether the cited ``sentence``'s own text holds none of ``asked`` (the
    question's content terms outside the entity names it uses), not even
    through a synonym of ``rules``: it names the product but says nothing of
    what is asked about it (``星耀白金卡的信用额度为…`` for its complaint deadline)."""
    from regrag.answer.lexicon import synonym_cover

    own = sentence_terms(index, sentence)
    return bool(asked) and not any(t in own for t in asked) and not synonym_cover(index.analyzer, language, asked, own, rules)


def sentence_evidence(index, sentence, names: dict[str, tuple[str, ...]]) -> set[str]:
    """Terms of one cited sentence in its context: the sentence itself (a
    table row with its header line or CSV record), its
    passage's section title, its document's title and non-entity metadata,
    and the entity names the question used for that document
    (``regrag.answer.confidence.evidence_terms`` for a single sentence)."""
    from regrag.answer.table_rows import row_context
    from regrag.retrieval.entities import ENTITY_FIELDS

    document = index.document(sentence.document_id)
    language = index.document_language(sentence.document_id)
    start, end = sentence.span
    terms = {term for term, _s, _e in index.analyzer.analyze(document.text[start:end], language)}
    terms.update(sentence.matched_terms)  # with the words its abbreviations spell out (LCR)
    passage = index.passage(index.position_of(sentence.passage_id))
    context = row_context(document.text, start, end, passage.start, passage.end)
    if context is not None:  # a table row is read with its header line or its CSV record
        terms.update(term for term, _s, _e in index.analyzer.analyze(document.text[context[0]:context[1]], language))
    _body, title_terms = index.passage_terms(index.position_of(sentence.passage_id))
    terms.update(term for term, _s, _e in title_terms)
    parts = [document.title, *(value.replace("-", " ") for key, value in document.metadata if key not in ENTITY_FIELDS),
             *names.get(sentence.document_id, ())]
    for part in parts:
        terms.update(term for term, _s, _e in index.analyzer.analyze(part, language))
    return terms
