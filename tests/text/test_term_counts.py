"""The indexing fast paths give exactly what the full analysis gives."""

from __future__ import annotations

import unicodedata
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.text.analyzer import Analyzer
from regrag.text.language import _language_by_letters, detect_language

ANALYZERS = {name: Analyzer(name) for name in ("auto", "en", "vi", "zh")}

ascii_texts = st.text(alphabet=st.sampled_from(list("abcXYZ HPG's 3.45% 1,250 T+1 5G'’-.,()\n\tIT ON")), max_size=120)
any_texts = st.text(max_size=120)
latin_with_marks = st.text(
    alphabet=st.sampled_from(list("aeiouyAEIUYdđĐ nghxz") + ["\u0300", "\u0301", "\u0303", "\u0306", "\u0309",
                                                              "\u0323", "\u031b", "\u0302", "\u20d0", "\u1dc0"]),
    max_size=80,
)


@settings(max_examples=300)
@given(st.one_of(ascii_texts, any_texts), st.sampled_from(sorted(ANALYZERS)), st.sampled_from([None, "en", "vi", "zh"]))
def test_term_counts_equal_the_counted_analysis(text, name, language):
    analyzer = ANALYZERS[name]
    expected = Counter(term for term, _s, _e in analyzer.analyze(text, language))
    assert analyzer.term_counts(text, language) == expected
    assert analyzer.term_counts(text, language) == expected  # and again, from the chunk cache


def test_term_counts_on_examples():
    text = "HPG's margin rose 3.45% in Q2; IT and ON stay, the company's fees fell."
    analyzer = Analyzer("en")
    assert analyzer.term_counts(text) == Counter(t for t, _s, _e in analyzer.analyze(text))
    assert analyzer.term_counts(text)["hpg"] == 1 and "the" not in analyzer.term_counts(text)


@settings(max_examples=500)
@given(latin_with_marks)
def test_the_vietnamese_precheck_never_changes_the_answer(text):
    decomposed = unicodedata.normalize("NFD", text)
    full = "en" if text.isascii() else _language_by_letters(decomposed)
    assert detect_language(text) == full


hostile_pieces = st.text(
    alphabet=st.sampled_from(list("ab Z\u00a0\u3000\u2028\t\n") + ["\u0301", "\ufeff", "\uff9e", "\u1161", "ｶ", "가", "½", "ﬁ", "Å", "µ", "年", "费", "İ"]),
    max_size=60,
)


@settings(max_examples=500)
@given(hostile_pieces, st.sampled_from(["en", "zh"]))
def test_term_counts_equal_analysis_at_whitespace_joiners_and_boms(text, language):
    analyzer = ANALYZERS["auto"]
    assert analyzer.term_counts(text, language) == Counter(t for t, _s, _e in analyzer.analyze(text, language))


@settings(max_examples=500)
@given(st.text(max_size=60))
def test_the_raw_precheck_never_changes_the_answer_on_any_text(text):
    decomposed = unicodedata.normalize("NFD", text)
    full = "en" if text.isascii() else _language_by_letters(decomposed)
    assert detect_language(text) == full


def test_vietnamese_detection_examples_still_hold():
    assert detect_language("Cổ phiếu HPG tăng mạnh trong phiên sáng nay") == "vi"
    assert detect_language("Thép Hòa Phát đạt lợi nhuận kỷ lục") == "vi"
    assert detect_language("The CEO, Nguyễn Văn An, said revenue grew strongly across all segments this year") == "en"
    assert detect_language("Crème brûlée and señor") == "en"
