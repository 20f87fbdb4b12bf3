"""``Analyzer.matches`` (provenance's analysis, which keeps only the wanted
terms and passes over new pieces that cannot hold one) gives exactly the
general path's wanted terms, offsets and order, in Vietnamese, Chinese and
English, with cold and warm caches, for wanted sets drawn from the text's own
terms and pairs, their halves, and terms it does not hold."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.text.analyzer import Analyzer, clear_piece_cache
from regrag.text import piece_cache

from tests.text.test_term_counts_paired import general, texts

ANALYZER = Analyzer("auto")
OTHER = ["của", "tăng", "tăng mạnh", "hà nội", "hpg", "ngân's", "ngân’s", "年费", "费用", "用", "3,45%", "a", "nội ngày",
         "'", "của tôi", "t+1", "năm-nay", "năm", "fi", "ss", "đồng tỷ", "x y z"]


def wanted_sets(text: str, language: str):
    terms = sorted({term for term, _s, _e in general(text, language)})
    halves = sorted({half for term in terms for half in term.split(" ")})
    return st.tuples(
        st.lists(st.sampled_from(terms), max_size=6) if terms else st.just([]),
        st.lists(st.sampled_from(halves), max_size=3) if halves else st.just([]),
        st.lists(st.sampled_from(OTHER), max_size=3),
    ).map(lambda parts: frozenset(term for part in parts for term in part))


@settings(max_examples=600, deadline=None)
@given(st.data(), st.one_of(texts, st.text(max_size=80)), st.sampled_from(["vi", "zh", "en"]), st.booleans())
def test_matches_are_the_general_path_terms_that_are_wanted(data, text, language, cold):
    wanted = data.draw(wanted_sets(text, language))
    if cold:
        clear_piece_cache()
    expected = [term for term in general(text, language) if term[0] in wanted]
    assert ANALYZER.matches(text, wanted, language) == expected
    assert ANALYZER.matches(text, wanted, language) == expected  # again, some pieces cached now
    ANALYZER.analyze(text, language)  # every piece cached
    assert ANALYZER.matches(text, wanted, language) == expected


def test_examples_pairs_across_skipped_and_unwanted_pieces():
    text = "Cổ phiếu HPG tăng\u00a0mạnh, hà nội - ngày 11/2/2024 của\u3000tôi, ngân’s năm-nay 年费用"
    for wanted in ({"tăng mạnh"}, {"hà nội", "ngày"}, {"của tôi", "tôi"}, {"ngân's"}, {"nay"}, {"年费", "费用"},
                   {"phiếu hpg", "cổ"}, {"nội ngày"}, set()):
        for cold in (True, False):
            if cold:
                clear_piece_cache()
            expected = [term for term in general(text, "vi") if term[0] in wanted]
            assert ANALYZER.matches(text, frozenset(wanted), "vi") == expected, wanted
    clear_piece_cache()
    ANALYZER.matches(text, frozenset({"tôi"}), "vi")
    assert "phiếu" not in piece_cache._PAIRED["vi"]  # passed over: neither analysed nor cached


def test_normalises_to_itself_is_what_normalisation_does():
    from regrag.text.normalize import normalize_with_offsets

    for piece in ["tăng", "Tăng", "ty,", "ĐỒNG", "ﬁ", "a\u0301", "\ufeffa", "ß", "年费", "ｶﾞ", "İ", "K", "3,45%", "x’y"]:
        if piece_cache._normalises_to_itself(piece):
            normalized = normalize_with_offsets(piece)
            assert normalized.text == piece
            assert normalized.starts is None or normalized.starts == list(range(len(piece)))
