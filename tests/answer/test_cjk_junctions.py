"""CJK bigrams that only join two found words are not missing evidence (regrag.answer.cjk_junctions)."""

from __future__ import annotations

from regrag import Index
from regrag.answer.cjk_junctions import bridged_bigrams


def _occurrences(text: str) -> list[tuple[str, int, int]]:
    return [(text[i:i + 2], i, i + 2) for i in range(len(text) - 1)]


def test_a_bigram_between_two_found_words_is_bridged():
    analysed = _occurrences("宪法例外")  # 宪法 法例 例外
    content = frozenset({"宪法", "法例", "例外"})
    assert bridged_bigrams(analysed, content, {"宪法", "例外"}, frozenset("宪法例外")) == frozenset({"法例"})


def test_a_missing_neighbour_keeps_the_bigram_missing():
    analysed = _occurrences("宪法例外")
    content = frozenset({"宪法", "法例", "例外"})
    assert bridged_bigrams(analysed, content, {"宪法"}, frozenset("宪法例外")) == frozenset()


def test_the_edge_of_a_run_is_vouched_for_by_its_character():
    # 法中 ends the content run (中有 holds the question character 有): 中 must occur in the evidence
    analysed = _occurrences("宪法中有")
    content = frozenset({"宪法", "法中"})
    assert bridged_bigrams(analysed, content, {"宪法"}, frozenset("宪法中")) == frozenset({"法中"})
    assert bridged_bigrams(analysed, content, {"宪法"}, frozenset("宪法")) == frozenset()


def test_a_word_with_no_found_neighbour_stays_missing():
    # 议员 alone between scaffolding: its characters occurring apart do not make it found
    analysed = _occurrences("哪位议员是谁")
    content = frozenset({"议员"})
    assert bridged_bigrams(analysed, content, set(), frozenset("议员")) == frozenset()


def test_every_occurrence_must_be_bridged():
    analysed = _occurrences("宪法例外") + [("法例", 10, 12)]  # a second, isolated 法例
    content = frozenset({"宪法", "法例", "例外"})
    assert bridged_bigrams(analysed, content, {"宪法", "例外"}, frozenset("宪法例外")) == frozenset()


def test_a_run_between_found_words_counts_its_uncovered_characters():
    # 材料 研发 蒸汽: 料研 研发 发蒸 are missing, 材料 and 蒸汽 found; 研 and 发 are uncovered,
    # so two of the three count and the run's left end, 料研, is the junction (session 30)
    analysed = _occurrences("材料研发蒸汽")
    content = frozenset(term for term, _s, _e in analysed)
    assert bridged_bigrams(analysed, content, {"材料", "蒸汽"}, frozenset("材料蒸汽")) == frozenset({"料研"})
    # two missing bigrams between found ones leave one character uncovered: one counts
    analysed = _occurrences("材料研蒸汽")  # 材料 料研 研蒸 蒸汽
    content = frozenset(term for term, _s, _e in analysed)
    assert bridged_bigrams(analysed, content, {"材料", "蒸汽"}, frozenset("材料蒸汽")) == frozenset({"料研"})


def test_a_run_bordered_on_one_side_counts_every_bigram():
    # 材料 found, then 料研 研发 up to the end: 研 and 发 are uncovered, both bigrams count
    analysed = _occurrences("材料研发")
    content = frozenset(term for term, _s, _e in analysed)
    assert bridged_bigrams(analysed, content, {"材料"}, frozenset("材料研发")) == frozenset()


def test_ask_does_not_report_a_junction_as_a_missing_word(make_doc):
    index = Index.from_documents([
        make_doc("a", "维多利亚宪法可以修订，但某些条款除外。根深蒂固的例外条款需要绝对多数。"),
        make_doc("b", "该银行的年费为每年人民币880元。"),
        make_doc("c", "法例汇编另行出版。"),  # 法例 is in the corpus, so the older rule (unseen bigrams only) kept it
    ])
    confidence = index.ask("宪法例外条款需要什么？", threshold=0.0).confidence
    assert "法例" not in confidence.content_terms and "法例" not in confidence.missing_words
    assert {"宪法", "例外", "条款"} <= set(confidence.covered_terms)
    assert confidence.coverage == 1.0
