"""The short answer inside a CJK clause (regrag/answer/cjk_clause.py) and the
CJK rules of the anchored phrase (regrag/answer/anchored_span.py), session 31.
The sentences are invented."""

from __future__ import annotations

import pytest

from regrag.answer.anchored_span import anchored_span
from regrag.answer.cjk_clause import balanced, longest_run, nearest_run, trim_asked, unasked_runs
from regrag.answer.question import read_question
from regrag.answer.short_answer import _clauses
from regrag.text.analyzer import Analyzer


class _Searcher:
    analyzer = Analyzer("auto")


def _asked(question: str) -> set[str]:
    return {term for term, _s, _e in _Searcher.analyzer.analyze(question, "zh")}


def _texts(text: str, spans) -> list[str]:
    return [text[s:e] for s, e in spans]


def test_runs_are_what_the_question_does_not_say():
    question = "星河科学奖首位北方得主是？"
    text = "林晓舟 ，星河科学奖首位北方得主；"
    asked = _asked(question)
    assert _texts(text, unasked_runs(_Searcher, asked, "zh", text, 0, 4)) == ["林晓舟"]
    # the second clause is all asked: no run; trimming it leaves one character
    assert unasked_runs(_Searcher, asked, "zh", text, 5, 16) == []
    assert text[slice(*trim_asked(_Searcher, asked, "zh", text, 5, 16))] == "主"


def test_a_run_never_cuts_a_figure():
    text = "观测面积约1,160,000平方公里。"
    asked = _asked("观测面积有多大？")
    assert _texts(text, unasked_runs(_Searcher, asked, "zh", text, 0, len(text) - 1)) == ["约1,160,000平方公里"]


def test_longest_run_ties_to_the_earlier():
    assert longest_run([(0, 3), (5, 8), (9, 10)]) == (0, 3)
    assert longest_run([(0, 2), (5, 8)]) == (5, 8)


@pytest.mark.parametrize("text, span, expected", [
    # an opener whose closer follows within the clause: the span grows to it
    ("产品风险等级为PR2级（中低风险）", (7, 13), "PR2级（中低风险）"),
    # closers left from the text before are dropped
    ("”）由青禾资管承保", (0, 9), "由青禾资管承保"),
    # an opener never closed in the clause: the span stops before it
    ("由青禾资管（以下简称", (0, 10), "由青禾资管"),
    ("《青禾条例》", (0, 6), "《青禾条例》"),
])
def test_balanced(text, span, expected):
    assert text[slice(*balanced(text, 0, len(text), *span))] == expected


@pytest.mark.parametrize("question, text, expected", [
    # a Latin word stops at a CJK character ("Orbit5是什么" is orbit5 and three characters), so it anchors
    ("Orbit5是什么？", "Orbit5是 一个由十所大学共同运营的研究网络。", "一个由十所大学共同运营的研究网络"),
    # a one-character gap (该) is not an answer; the phrase grows over the noun after 哪个
    ("哪个猜想称每个偶数都可以写成两个素数之和？", "白石猜想，该猜想称每个偶数都可以写成两个素数之和。", "白石猜想"),
    # the noun grows at most to where a function or modal character starts (不)
    ("什么学校不要求教师有资格证书？", "许多特许学校不要求教师有资格证书。", "许多特许学校"),
    # 谁 modifies no noun: nothing grows
    ("谁可以修改章程？", "董事会 可以修改章程。", "董事会"),
])
def test_anchored_cjk_phrases(question, text, expected):
    span = anchored_span(question, read_question(question), text, "zh")
    assert span is not None and text[span[0]:span[1]] == expected


DOCUMENTS = {
    "award.md": "# 奖项\n\n林晓舟 ，星河科学奖首位北方得主；她后来在青石大学任教。\n",
    "road.md": "# 公路\n\n省道27号，又称云岭高速公路，向西通往青石镇。\n",
    "fund.md": "# 理财\n\n青禾90的产品风险等级为PR2级（中低风险），适合稳健型投资者。\n",
}


@pytest.fixture(scope="module")
def index(index_of):
    return index_of("cjk_clause", DOCUMENTS)


@pytest.mark.parametrize("question, short", [
    ("星河科学奖首位北方得主是？", "林晓舟"),  # the clause with the question's words trims to "主"
    ("青禾90 风险等级", "PR2级（中低风险）"),
    ("省道27号的另一个名字是什么？", "又称云岭高速公路"),  # the run was 27号 (号 grew over the asked number)
])
def test_short_answer_is_the_unasked_run(index, question, short):
    answer = index.ask(question, threshold=0.0)
    assert answer.short_answer is not None
    assert (answer.short_answer.text, answer.short_answer.answer_type) == (short, "clause")
    start, end = answer.short_answer.span
    assert index.document(answer.short_answer.document_id).text[start:end] == short


def test_a_unit_after_an_asked_number_is_asked():
    text = "省道27号，又称云岭高速公路"
    asked = _asked("省道27号的另一个名字是什么？")
    assert _texts(text, unasked_runs(_Searcher, asked, "zh", text, 0, 4)) == []
    # a character that is not a unit stays unasked ("协" of "X.25协议")
    text = "X.25协议套件"
    assert _texts(text, unasked_runs(_Searcher, _asked("X.25使用哪种网络"), "zh", text, 0, len(text)))[-1] == "协议套件"


@pytest.mark.parametrize("near, expected", [
    # 程 (of 课程, beside 是什么) borders 天体测量学, past 是 and a space
    (set("讲的课程"), "天体测量学"),
    # were the question's words by its question word 林晓舟, the run after 舟 would be the answer
    (set("林晓舟"), "早年在青石大学任教多年"),
    # nothing near: the clause with most asked characters, then the longer run
    (set(), "天体测量学"),
])
def test_nearest_run_is_bordered_by_the_question_words_near_its_question_word(near, expected):
    text = "林晓舟早年在青石大学任教多年，她主讲的课程是 天体测量学 。"
    asked = _asked("林晓舟主讲的课程是什么？")
    assert text[slice(*nearest_run(_Searcher, asked, "zh", text, _clauses(text), near))] == expected
