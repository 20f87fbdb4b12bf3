"""The cached-piece paths give exactly the general path's terms, offsets and
order (``Analyzer.term_counts`` and ``Analyzer.analyze`` against ``_terms`` on
the whole text), in Vietnamese, Chinese and English, with cold and warm caches."""

from __future__ import annotations

import re
import sys
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.text.analyzer import Analyzer, _terms, clear_piece_cache
from regrag.text.normalize import normalize_with_offsets

ANALYZER = Analyzer("auto")

SYLLABLES = ["của", "và", "Hà", "Nội", "đồng", "tỷ", "HPG", "VN30", "T+1", "3,45%", "1.250", "cổ", "phiếu",
             "tăng", "ngày", "11/2/2024", "(NLT)", "quý", "4/2025.", "lãi,", "“Thép”", "Ngân’s", "năm-nay", "ĐỒNG"]
ODD = ["\u0301", "\u0323", "\ufeff", "½", "ﬁ", "\u00a8", "\u200b", "年", "费用", "アイ", "ｶﾞ", "가", "—", "...", ",", "'", "’",
       "\u0000", "İ", "K", "ǅ"]
GAPS = [" ", " ", " ", "  ", "\t", "\n", "\n\n", "\u00a0", "\u3000", "\u2028", "\u2029", "\u0085", "\u1680", " \t ", "\r\n",
        "\x0b", "\x1c", "\u202f"]

pieces = st.one_of(st.sampled_from(SYLLABLES), st.sampled_from(ODD), st.text(min_size=1, max_size=4))
words = st.lists(st.tuples(st.one_of(pieces, st.lists(pieces, min_size=1, max_size=3).map("".join)),
                           st.sampled_from(GAPS)), max_size=25)
texts = words.map(lambda pairs: "".join(piece + gap for piece, gap in pairs))


def general(text: str, language: str) -> list[tuple[str, int, int]]:
    return list(_terms(text, normalize_with_offsets(text), language))


def expected(text: str, language: str) -> list[tuple[str, int]]:
    return list(Counter(term for term, _s, _e in general(text, language)).items())


@settings(max_examples=1500, deadline=None)
@given(st.one_of(texts, st.text(max_size=80)), st.sampled_from(["vi", "zh", "en"]), st.booleans())
def test_cached_pieces_give_the_general_path_terms_in_order(text, language, cold):
    if cold:
        clear_piece_cache()
    want, terms = expected(text, language), general(text, language)
    assert list(ANALYZER.term_counts(text, language).items()) == want
    assert ANALYZER.analyze(text, language) == terms
    assert list(ANALYZER.term_counts(text, language).items()) == want  # again, from the caches
    assert ANALYZER.analyze(text, language) == terms


@settings(max_examples=300, deadline=None)
@given(words, words)
def test_a_piece_cached_in_one_context_is_right_in_another(first, second):
    texts = ["".join(piece + gap for piece, gap in pairs) for pairs in (first, second)]
    clear_piece_cache()
    for text in texts + [texts[1] + texts[0], " ".join(texts)]:
        for language in ("vi", "en", "zh"):
            assert list(ANALYZER.term_counts(text, language).items()) == expected(text, language)
            assert ANALYZER.analyze(text, language) == general(text, language)


def test_vietnamese_examples():
    text = "Cổ phiếu HPG tăng\u00a0mạnh, Hà Nội\nngày 11/2/2024 đạt 3,45% (NLT) lãi 年费 của\u3000tôi"
    counts = ANALYZER.term_counts(text, "vi")
    assert list(counts.items()) == expected(text, "vi")
    assert ANALYZER.analyze(text, "vi") == general(text, "vi")
    start = text.index("Hà")
    assert ("hà nội", start, start + len("Hà Nội")) in ANALYZER.analyze(text, "vi")
    assert counts["cổ phiếu"] == 1 and counts["tăng mạnh"] == 1 and counts["hà nội"] == 1
    assert "mạnh hà" not in counts and "nội ngày" not in counts and "lãi 年费" not in counts
    assert counts["của tôi"] == 1  # an ideographic space joins a phrase (category Zs)


def test_regex_whitespace_is_str_isspace():
    """The fast paths split at ``\\s+`` and at ``str.split()``: the same characters."""
    pattern = re.compile(r"\s")
    for code in range(sys.maxunicode + 1):
        character = chr(code)
        assert (pattern.fullmatch(character) is not None) == character.isspace(), hex(code)
