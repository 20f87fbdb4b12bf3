"""Example-based tests for regrag.text.analyzer: the analyzer's contract, rule by rule.

Every expected list is written by hand from the contract (not copied from output):
``Analyzer(name).analyze(text)`` returns ``(term, start, end)`` with code-point offsets into
the *original* text, so ``text[start:end]`` is the surface form of the term.

Some tests pin bugs found and fixed while this suite was written (tickers with possessives,
half-width sound marks, Hangul jamo, line separators in Vietnamese pairs, non-Vietnamese
marks, marks after punctuation, a BOM before a mark).
"""

from __future__ import annotations

import json
import unicodedata

import pytest

from regrag.errors import InputError
from regrag.text.analyzer import ANALYZER_NAMES, Analyzer, detect_language
from regrag.text.stopwords import LUCENE_ENGLISH_STOPWORDS

Term = tuple[str, int, int]


def analyze(name: str, text: str) -> list[Term]:
    terms = Analyzer(name).analyze(text)
    # Whatever the example, every offset pair must be a non-empty slice of the original.
    for term, start, end in terms:
        assert 0 <= start < end <= len(text), (term, start, end)
    return terms


def surfaces(name: str, text: str) -> list[tuple[str, str]]:
    """(term, surface) pairs: the surface is ``text[start:end]`` of the original."""
    return [(term, text[start:end]) for term, start, end in analyze(name, text)]


# --- Construction and identity ---------------------------------------------------------


def test_analyzer_names() -> None:
    assert ANALYZER_NAMES == ("auto", "en", "vi", "zh")
    assert Analyzer().name == "auto"


@pytest.mark.parametrize("name", ["xx", "fr", "", "english", "auto "])
def test_unknown_analyzer_raises_input_error(name: str) -> None:
    with pytest.raises(InputError) as info:
        Analyzer(name)
    assert repr(name) in str(info.value)


@pytest.mark.parametrize("name", ANALYZER_NAMES)
def test_identity_content(name: str) -> None:
    identity = Analyzer(name).identity()
    assert identity["name"] == name
    assert isinstance(identity["version"], str) and identity["version"]
    assert identity["unicode"] == unicodedata.unidata_version
    assert identity["normalization"] == "NFKC+casefold"
    assert identity["stemmer"] == "porter-1980"
    assert identity["stopwords"] == "lucene-english-33"
    assert identity["cjk"] == "bigrams"
    # Part of the index id: must be plain JSON, stable across calls.
    assert json.loads(json.dumps(identity, sort_keys=True)) == identity
    assert Analyzer(name).identity() == identity


def test_identities_differ_by_name_only() -> None:
    identities = [Analyzer(name).identity() for name in ANALYZER_NAMES]
    assert len({json.dumps(i, sort_keys=True) for i in identities}) == len(ANALYZER_NAMES)
    for identity in identities:
        rest = {k: v for k, v in identity.items() if k != "name"}
        assert rest == {k: v for k, v in identities[0].items() if k != "name"}


# --- Normalisation: offsets stay in the original text ----------------------------------


def test_bom_is_removed_and_offsets_skip_it() -> None:
    text = "\ufeffHello world"
    assert analyze("en", text) == [("hello", 1, 6), ("world", 7, 12)]
    assert surfaces("en", text) == [("hello", "Hello"), ("world", "world")]


def test_bom_inside_a_word_is_removed() -> None:
    text = "com\ufeffpany"
    assert analyze("zh", text) == [("company", 0, 8)]
    assert analyze("en", text) == [("compani", 0, 8)]


def test_ligature_fi() -> None:
    text = "\ufb01nancial \ufb01les"  # "ﬁnancial ﬁles"
    assert analyze("en", text) == [("financi", 0, 8), ("file", 9, 13)]
    assert surfaces("en", text) == [("financi", "\ufb01nancial"), ("file", "\ufb01les")]
    assert analyze("zh", text) == [("financial", 0, 8), ("files", 9, 13)]


def test_full_width_latin() -> None:
    text = "ＬＰＲ ｒａｔｅｓ"
    # ＬＰＲ is an all-capitals 3-letter token: a ticker, kept unstemmed.
    assert analyze("en", text) == [("lpr", 0, 3), ("rate", 4, 9)]
    assert surfaces("en", text) == [("lpr", "ＬＰＲ"), ("rate", "ｒａｔｅｓ")]


def test_full_width_ticker_is_not_a_stopword() -> None:
    assert surfaces("en", "ＩＴ ｉｔ") == [("it", "ＩＴ")]


def test_dotted_capital_i() -> None:
    text = "İstanbul"
    expected = [("i\u0307stanbul", 0, 8)]  # casefold(İ) == "i" + COMBINING DOT ABOVE
    assert analyze("en", text) == expected
    assert analyze("zh", text) == expected
    assert surfaces("en", text) == [("i\u0307stanbul", "İstanbul")]


def test_decomposed_e_acute() -> None:
    text = "cafe\u0301 menu"
    assert analyze("en", text) == [("caf\u00e9", 0, 5), ("menu", 6, 10)]
    assert surfaces("en", text) == [("caf\u00e9", "cafe\u0301"), ("menu", "menu")]


def test_decomposed_and_precomposed_give_the_same_term() -> None:
    decomposed = "re\u0301sume\u0301"
    precomposed = "r\u00e9sum\u00e9"
    assert analyze("en", decomposed) == [("r\u00e9sum\u00e9", 0, 8)]
    assert analyze("en", precomposed) == [("r\u00e9sum\u00e9", 0, 6)]


def test_all_four_normalisations_in_one_text() -> None:
    text = "\ufeffＬＰＲ \ufb01xed İ e\u0301"
    assert analyze("zh", text) == [
        ("lpr", 1, 4),
        ("fixed", 5, 9),
        ("i\u0307", 10, 11),
        ("\u00e9", 12, 14),
    ]
    assert surfaces("zh", text) == [
        ("lpr", "ＬＰＲ"),
        ("fixed", "\ufb01xed"),
        ("i\u0307", "İ"),
        ("\u00e9", "e\u0301"),
    ]


def test_casefold_not_just_lower() -> None:
    assert analyze("zh", "STRASSE Straße") == [("strasse", 0, 7), ("strasse", 8, 14)]


# --- English: stemming, stopwords, possessives -----------------------------------------


def test_english_sentence() -> None:
    text = "The central bank is raising interest rates"
    assert analyze("en", text) == [
        ("central", 4, 11),
        ("bank", 12, 16),
        ("rais", 20, 27),
        ("interest", 28, 36),
        ("rate", 37, 42),
    ]


def test_lucene_stopword_set() -> None:
    assert LUCENE_ENGLISH_STOPWORDS == frozenset(
        "a an and are as at be but by for if in into is it no not of on or such that the "
        "their then there these they this to was will with".split()
    )
    assert len(LUCENE_ENGLISH_STOPWORDS) == 33


def test_every_stopword_is_dropped_in_english_only() -> None:
    words = sorted(LUCENE_ENGLISH_STOPWORDS)
    text = " ".join(words)
    assert analyze("en", text) == []
    assert analyze("en", text.title()) == []  # "The", "It", "On": capitalised, not tickers
    assert [term for term, _s, _e in analyze("zh", text)] == words
    assert [term for term, _s, _e in analyze("vi", text) if " " not in term] == words


def test_non_stopwords_that_look_like_stopwords_are_kept() -> None:
    # Not in Lucene's 33: "i", "its", "he", "from", "have".
    assert [t for t, _s, _e in analyze("en", "i its he from have")] == ["i", "it", "he", "from", "have"]


def test_possessive_ascii_apostrophe() -> None:
    text = "The company's margin"
    assert analyze("en", text) == [("compani", 4, 11), ("margin", 14, 20)]
    assert surfaces("en", text) == [("compani", "company"), ("margin", "margin")]


def test_possessive_typographic_apostrophe() -> None:
    text = "The company\u2019s margin"
    assert analyze("en", text) == [("compani", 4, 11), ("margin", 14, 20)]
    assert surfaces("en", text) == [("compani", "company"), ("margin", "margin")]


def test_possessive_variants() -> None:
    text = "James's COMPANY'S caf\u00e9\u2019s O'Neil's dogs' it's"
    assert surfaces("en", text) == [
        ("jame", "James"),
        ("compani", "COMPANY"),  # 7 letters: not a ticker
        ("caf\u00e9", "caf\u00e9"),  # possessive removed, non-ASCII word not stemmed
        ("o'neil", "O'Neil"),  # inner apostrophe kept, not stemmed
        ("dog", "dogs"),  # a trailing apostrophe is not part of the word
    ]  # "it's" -> "it": a stopword


def test_possessive_offsets() -> None:
    text = "Vietcombank\u2019s and Vietcombank's"
    assert analyze("en", text) == [("vietcombank", 0, 11), ("vietcombank", 18, 29)]


def test_contraction_apostrophe_stays_inside_word() -> None:
    assert surfaces("en", "don't") == [("don't", "don't")]
    assert surfaces("en", "don\u2019t") == [("don't", "don\u2019t")]


# --- Tickers vs stopwords ---------------------------------------------------------------


def test_tickers_are_kept_and_not_stemmed() -> None:
    text = "IT ON HPG FPT it on"
    assert analyze("en", text) == [("it", 0, 2), ("on", 3, 5), ("hpg", 6, 9), ("fpt", 10, 13)]


def test_ticker_length_bounds() -> None:
    # 1 capital letter: "A" is the stopword "a"; 2-5 capitals: tickers, kept as they are;
    # 6 capitals: not a ticker, so the normal rules (stemming) apply.
    assert surfaces("en", "A IS THE RATES SHARES STOCKS") == [
        ("is", "IS"),
        ("the", "THE"),
        ("rates", "RATES"),
        ("share", "SHARES"),
        ("stock", "STOCKS"),
    ]


def test_ticker_must_be_all_capitals_in_the_original() -> None:
    # "Hpg"/"The" are not all-capitals: the normal English rules apply.
    assert surfaces("en", "Hpg The Rates RATES") == [("hpg", "Hpg"), ("rate", "Rates"), ("rates", "RATES")]


def test_tickers_in_zh_and_vi() -> None:
    assert analyze("zh", "IT it") == [("it", 0, 2), ("it", 3, 5)]
    assert [t for t, _s, _e in analyze("vi", "HPG FPT")] == ["hpg", "fpt", "hpg fpt"]


def test_ticker_with_possessive_is_still_a_ticker() -> None:
    text = "IT's TCBS\u2019s ON's"
    assert analyze("en", text) == [("it", 0, 2), ("tcbs", 5, 9), ("on", 12, 14)]


def test_lowercase_ticker_like_word_is_stemmed() -> None:
    assert surfaces("en", "TCBS tcbs") == [("tcbs", "TCBS"), ("tcb", "tcbs")]


# --- Finance-safe numbers and codes -----------------------------------------------------


def test_numbers_stay_whole() -> None:
    text = "yield 3.45% on 1,250.5 bonds, 12.000 shares"
    assert analyze("en", text) == [
        ("yield", 0, 5),
        ("3.45%", 6, 11),
        ("1,250.5", 15, 22),
        ("bond", 23, 28),
        ("12.000", 30, 36),
        ("share", 37, 43),
    ]


@pytest.mark.parametrize("name", ANALYZER_NAMES)
@pytest.mark.parametrize(
    "number", ["3.45%", "1,250.5", "12.000", "1.000.000", "3,5%", "0.5", "2024", "100%"]
)
def test_number_alone_is_one_term(name: str, number: str) -> None:
    assert analyze(name, number) == [(number, 0, len(number))]


def test_number_punctuation_at_edges_is_not_part_of_the_number() -> None:
    text = "(3.45%), 1,250.5. 12.000,"
    assert surfaces("en", text) == [("3.45%", "3.45%"), ("1,250.5", "1,250.5"), ("12.000", "12.000")]


def test_full_width_number() -> None:
    text = "３．４５％"
    assert analyze("en", text) == [("3.45%", 0, 5)]


def test_number_joiners_need_digits_on_both_sides() -> None:
    assert surfaces("en", "1..2 .5 7,") == [("1", "1"), ("2", "2"), ("5", "5"), ("7", "7")]


@pytest.mark.parametrize("name", ANALYZER_NAMES)
def test_letters_and_digits_stay_whole(name: str) -> None:
    assert surfaces(name, "5G VN30")[:2] == [("5g", "5G"), ("vn30", "VN30")]


def test_codes_are_not_stemmed() -> None:
    # Not all letters: no stemming even though "es"/"s" endings would be removed.
    assert surfaces("en", "Q1s VN30s") == [("q1s", "Q1s"), ("vn30s", "VN30s")]


@pytest.mark.parametrize("name", ANALYZER_NAMES)
def test_t_plus_1(name: str) -> None:
    assert surfaces(name, "T+1")[:1] == [("t+1", "T+1")]
    assert analyze(name, "T+1") == [("t+1", 0, 3)]


def test_t_plus_variants() -> None:
    text = "settle T+0, t+2 or T+10; AB+12"
    assert surfaces("en", text) == [
        ("settl", "settle"),
        ("t+0", "T+0"),
        ("t+2", "t+2"),
        ("t+10", "T+10"),
        ("ab+12", "AB+12"),
    ]


def test_plus_without_letters_and_digits_does_not_join() -> None:
    assert surfaces("en", "T + 1 T+ +1") == [("t", "T"), ("1", "1"), ("t", "T"), ("1", "1")]


# --- CJK bigrams ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ANALYZER_NAMES)
def test_han_run_overlapping_bigrams(name: str) -> None:
    assert analyze(name, "中华人民共和国") == [
        ("中华", 0, 2),
        ("华人", 1, 3),
        ("人民", 2, 4),
        ("民共", 3, 5),
        ("共和", 4, 6),
        ("和国", 5, 7),
    ]


@pytest.mark.parametrize("name", ANALYZER_NAMES)
def test_single_character_run(name: str) -> None:
    assert analyze(name, "中") == [("中", 0, 1)]
    assert analyze(name, "年。月") == [("年", 0, 1), ("月", 2, 3)]


def test_two_character_run_gives_one_bigram() -> None:
    assert analyze("zh", "银行") == [("银行", 0, 2)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("中国，人民", [("中国", 0, 2), ("人民", 3, 5)]),  # full-width comma
        ("中国、人民", [("中国", 0, 2), ("人民", 3, 5)]),  # ideographic comma
        ("中国。人民", [("中国", 0, 2), ("人民", 3, 5)]),
        ("中国.人民", [("中国", 0, 2), ("人民", 3, 5)]),
        ("中国 人民", [("中国", 0, 2), ("人民", 3, 5)]),
        ("中国\u3000人民", [("中国", 0, 2), ("人民", 3, 5)]),  # ideographic space
        ("中国\n人民", [("中国", 0, 2), ("人民", 3, 5)]),
        ("「中国」", [("中国", 1, 3)]),
        ("カタ・カナ", [("カタ", 0, 2), ("カナ", 3, 5)]),  # katakana middle dot
    ],
)
def test_bigram_never_crosses_punctuation_or_space(text: str, expected: list[Term]) -> None:
    assert analyze("zh", text) == expected


def test_bigram_never_crosses_digits() -> None:
    assert analyze("zh", "中国2024年3月") == [
        ("中国", 0, 2),
        ("2024", 2, 6),
        ("年", 6, 7),
        ("3", 7, 8),
        ("月", 8, 9),
    ]
    assert surfaces("zh", "利率3.45%的") == [("利率", "利率"), ("3.45%", "3.45%"), ("的", "的")]


def test_full_width_digits_next_to_han() -> None:
    assert surfaces("zh", "２０２４年") == [("2024", "２０２４"), ("年", "年")]


def test_bigram_never_crosses_latin() -> None:
    assert analyze("zh", "中国abc人民") == [("中国", 0, 2), ("abc", 2, 5), ("人民", 5, 7)]
    assert surfaces("zh", "5G网络") == [("5g", "5G"), ("网络", "网络")]
    assert surfaces("zh", "A股") == [("a", "A"), ("股", "股")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Han -> Hiragana
        ("食べる", [("食", 0, 1), ("べる", 1, 3)]),
        # Katakana -> Han
        ("データ分析", [("デー", 0, 2), ("ータ", 1, 3), ("分析", 3, 5)]),
        # Han -> Hiragana -> Katakana -> Hangul
        ("漢字かなカナ한글", [("漢字", 0, 2), ("かな", 2, 4), ("カナ", 4, 6), ("한글", 6, 8)]),
        # Hangul -> Han
        ("한국銀行", [("한국", 0, 2), ("銀行", 2, 4)]),
        # Han, Hiragana, Han: single characters where a run has one character
        ("日本の株", [("日本", 0, 2), ("の", 2, 3), ("株", 3, 4)]),
    ],
)
def test_bigram_never_crosses_a_script_change(text: str, expected: list[Term]) -> None:
    assert analyze("zh", text) == expected


def test_japanese_sentence() -> None:
    assert surfaces("zh", "日本語のテキスト") == [
        ("日本", "日本"),
        ("本語", "本語"),
        ("の", "の"),
        ("テキ", "テキ"),
        ("キス", "キス"),
        ("スト", "スト"),
    ]


def test_hangul_bigrams() -> None:
    assert analyze("zh", "한국어 은행") == [("한국", 0, 2), ("국어", 1, 3), ("은행", 4, 6)]


def test_half_width_katakana_is_normalised() -> None:
    text = "ｶﾀｶﾅ"
    assert analyze("zh", text) == [("カタ", 0, 2), ("タカ", 1, 3), ("カナ", 2, 4)]


def test_half_width_katakana_with_voiced_mark() -> None:
    text = "ｶﾞｽ料金"  # NFKC: "ガス料金"
    assert analyze("zh", text) == [("ガス", 0, 3), ("料金", 3, 5)]


def test_decomposed_hiragana_voiced_mark_composes() -> None:
    text = "か\u3099き"  # "がき" with a combining voiced sound mark
    assert analyze("zh", text) == [("がき", 0, 3)]


def test_hangul_jamo_compose_into_syllables() -> None:
    assert analyze("zh", "\u1100\u1161\u11a8") == [("\uac01", 0, 3)]  # ᄀ+ᅡ+ᆨ == 각
    assert analyze("zh", "\u3131\u314f") == [("\uac00", 0, 2)]  # compatibility ㄱㅏ == 가


def test_cjk_compatibility_ideograph_is_normalised() -> None:
    assert surfaces("zh", "\uf900") == [("\u8c48", "\uf900")]


def test_cjk_terms_are_the_same_in_every_analyzer() -> None:
    text = "中国人民银行，日本銀行"
    expected = analyze("zh", text)
    for name in ANALYZER_NAMES:
        assert analyze(name, text) == expected


# --- Vietnamese: syllables and syllable pairs --------------------------------------------


def test_vietnamese_syllables_and_pairs() -> None:
    text = "Lợi nhuận tăng"
    assert analyze("vi", text) == [
        ("lợi", 0, 3),
        ("nhuận", 4, 9),
        ("lợi nhuận", 0, 9),
        ("tăng", 10, 14),
        ("nhuận tăng", 4, 14),
    ]


def test_vietnamese_number_pairs() -> None:
    text = "lãi 12.000 tỷ đồng"
    assert surfaces("vi", text) == [
        ("lãi", "lãi"),
        ("12.000", "12.000"),
        ("lãi 12.000", "lãi 12.000"),
        ("tỷ", "tỷ"),
        ("12.000 tỷ", "12.000 tỷ"),
        ("đồng", "đồng"),
        ("tỷ đồng", "tỷ đồng"),
    ]


def test_vietnamese_no_pair_across_newline() -> None:
    text = "thị trường\nchứng khoán"
    assert analyze("vi", text) == [
        ("thị", 0, 3),
        ("trường", 4, 10),
        ("thị trường", 0, 10),
        ("chứng", 11, 16),
        ("khoán", 17, 22),
        ("chứng khoán", 11, 22),
    ]


@pytest.mark.parametrize("gap", ["\n", "\r", "\r\n", " \n ", "\n\n"])
def test_vietnamese_no_pair_across_line_break(gap: str) -> None:
    text = f"chứng{gap}khoán"
    assert [t for t, _s, _e in analyze("vi", text)] == ["chứng", "khoán"]


@pytest.mark.parametrize(
    "gap",
    ["\v", "\f", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u2028", "\u2029"],
    ids=["VT", "FF", "FS", "GS", "RS", "US", "NEL", "LS", "PS"],
)
def test_vietnamese_no_pair_across_other_line_separators(gap: str) -> None:
    text = f"chứng{gap}khoán"
    assert [t for t, _s, _e in analyze("vi", text)] == ["chứng", "khoán"]


def test_vietnamese_no_pair_across_comma() -> None:
    text = "ngân hàng, chứng khoán"
    assert analyze("vi", text) == [
        ("ngân", 0, 4),
        ("hàng", 5, 9),
        ("ngân hàng", 0, 9),
        ("chứng", 11, 16),
        ("khoán", 17, 22),
        ("chứng khoán", 11, 22),
    ]


@pytest.mark.parametrize("gap", [".", " - ", "-", "/", ";", " (", ":"])
def test_vietnamese_no_pair_across_punctuation(gap: str) -> None:
    assert [t for t, _s, _e in analyze("vi", f"kinh{gap}tế")] == ["kinh", "tế"]


@pytest.mark.parametrize("gap", [" ", "  ", "\t", " \t ", "\u00a0", "\u3000"])
def test_vietnamese_pair_across_spaces_and_tabs(gap: str) -> None:
    text = f"Việt{gap}Nam"
    end = len(text)
    assert analyze("vi", text) == [
        ("việt", 0, 4),
        ("nam", end - 3, end),
        ("việt nam", 0, end),
    ]


def test_vietnamese_no_stemming_no_stopwords() -> None:
    text = "the rates are rising"
    assert [t for t, _s, _e in analyze("vi", text)] == [
        "the",
        "rates",
        "the rates",
        "are",
        "rates are",
        "rising",
        "are rising",
    ]


def test_vietnamese_no_pair_across_cjk() -> None:
    assert [t for t, _s, _e in analyze("vi", "ngân 中国 hàng")] == ["ngân", "中国", "hàng"]


def test_vietnamese_decomposed_marks() -> None:
    composed = "Hà Nội"
    decomposed = unicodedata.normalize("NFD", composed)
    assert analyze("vi", composed) == [("hà", 0, 2), ("nội", 3, 6), ("hà nội", 0, 6)]
    assert surfaces("vi", decomposed) == [
        ("hà", "Ha\u0300"),
        ("nội", decomposed[4:]),
        ("hà nội", decomposed),
    ]


# --- zh vs en ---------------------------------------------------------------------------


def test_zh_latin_is_only_casefolded() -> None:
    text = "The Running companies' rates"
    assert surfaces("zh", text) == [
        ("the", "The"),
        ("running", "Running"),
        ("companies", "companies"),
        ("rates", "rates"),
    ]
    assert surfaces("en", text) == [("run", "Running"), ("compani", "companies"), ("rate", "rates")]


def test_zh_keeps_possessive_and_normalises_apostrophe() -> None:
    assert surfaces("zh", "company\u2019s bank's") == [
        ("company's", "company\u2019s"),
        ("bank's", "bank's"),
    ]


def test_zh_vs_en_on_mixed_text() -> None:
    text = "央行 raising the LPR"
    assert analyze("zh", text) == [("央行", 0, 2), ("raising", 3, 10), ("the", 11, 14), ("lpr", 15, 18)]
    assert analyze("en", text) == [("央行", 0, 2), ("rais", 3, 10), ("lpr", 15, 18)]


def test_zh_has_no_syllable_pairs() -> None:
    assert [t for t, _s, _e in analyze("zh", "Công ty")] == ["công", "ty"]


# --- auto -------------------------------------------------------------------------------


ENGLISH_SAMPLE = "The central bank's rates are rising"
VIETNAMESE_SAMPLE = "Ngân hàng giảm lãi suất"
CHINESE_SAMPLE = "中国人民银行下调LPR利率 rates"


def test_detect_language_samples() -> None:
    assert detect_language(ENGLISH_SAMPLE) == "en"
    assert detect_language(VIETNAMESE_SAMPLE) == "vi"
    assert detect_language(CHINESE_SAMPLE) == "en"
    assert detect_language("") == "en"
    assert detect_language("café naïve résumé") == "en"  # marks, but not Vietnamese ones


def test_auto_on_english() -> None:
    assert analyze("auto", ENGLISH_SAMPLE) == analyze("en", ENGLISH_SAMPLE) == [
        ("central", 4, 11),
        ("bank", 12, 16),
        ("rate", 19, 24),
        ("rise", 29, 35),
    ]


def test_auto_on_vietnamese() -> None:
    assert Analyzer("auto").language_of(VIETNAMESE_SAMPLE) == "vi"
    assert analyze("auto", VIETNAMESE_SAMPLE) == analyze("vi", VIETNAMESE_SAMPLE) == [
        ("ngân", 0, 4),
        ("hàng", 5, 9),
        ("ngân hàng", 0, 9),
        ("giảm", 10, 14),
        ("hàng giảm", 5, 14),
        ("lãi", 15, 18),
        ("giảm lãi", 10, 18),
        ("suất", 19, 23),
        ("lãi suất", 15, 23),
    ]


def test_auto_on_chinese() -> None:
    assert Analyzer("auto").language_of(CHINESE_SAMPLE) == "en"
    assert analyze("auto", CHINESE_SAMPLE) == analyze("en", CHINESE_SAMPLE) == [
        ("中国", 0, 2),
        ("国人", 1, 3),
        ("人民", 2, 4),
        ("民银", 3, 5),
        ("银行", 4, 6),
        ("行下", 5, 7),
        ("下调", 6, 8),
        ("lpr", 8, 11),
        ("利率", 11, 13),
        ("rate", 14, 19),
    ]


def test_auto_decides_per_text() -> None:
    analyzer = Analyzer("auto")
    assert analyzer.analyze("Đà Nẵng") == [("đà", 0, 2), ("nẵng", 3, 7), ("đà nẵng", 0, 7)]
    assert analyzer.analyze("the rates") == [("rate", 4, 9)]


def test_explicit_language_overrides_auto() -> None:
    assert Analyzer("auto").analyze("the rates", "zh") == [("the", 0, 3), ("rates", 4, 9)]


@pytest.mark.parametrize("mark_text", ["Việt Nam", "Đà", "Hà Nội", "phở", "lợi"])
def test_vietnamese_only_marks_trigger_vi(mark_text: str) -> None:
    assert detect_language(mark_text) == "vi"


@pytest.mark.parametrize(
    "text",
    [
        "El Niño hurts coffee crops",  # ñ: n + tilde, a letter Vietnamese does not have
        "Erdoğan raised rates",  # ğ: g + breve, a letter Vietnamese does not have
        "Petrobras shares fell in São Paulo",  # ã: shared with Portuguese, not Vietnamese-only
    ],
)
def test_non_vietnamese_marks_do_not_trigger_vi(text: str) -> None:
    assert detect_language(text) == "en"
    assert Analyzer("auto").analyze(text) == Analyzer("en").analyze(text)


# --- Offsets next to stray combining marks ----------------------------------------------


def test_mark_after_letter_belongs_to_the_letter() -> None:
    assert analyze("zh", "xe\u0301 y") == [("x\u00e9", 0, 3), ("y", 4, 5)]


def test_mark_after_space_or_punctuation_has_its_own_offsets() -> None:
    assert analyze("zh", "  \u0301") == [("\u0301", 2, 3)]
    assert analyze("en", "rate \u0301") == [("rate", 0, 4), ("\u0301", 5, 6)]
    assert analyze("zh", "a.\u0301b") == [("a", 0, 1), ("\u0301b", 2, 4)]


def test_bom_between_letter_and_mark() -> None:
    assert analyze("zh", "A\ufeff\u0301") == [("\u00e1", 0, 3)]
