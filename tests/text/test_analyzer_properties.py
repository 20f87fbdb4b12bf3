"""Property tests (hypothesis) for regrag.text.analyzer, on arbitrary Unicode text.

Three text strategies, each run against every analyzer name:

* ``any``: ``st.characters(blacklist_categories=("Cs",))``, hypothesis' own mix of code points
  (every category except surrogates, unassigned included);
* ``uniform``: any code point 0..0x10FFFF except surrogates, drawn as an integer;
* ``focused``: the first mixed with characters that exercise the rules (apostrophes, number
  joiners, BOM, ligatures, full-width forms, İ, combining marks, CJK of each script,
  half-width katakana, Vietnamese letters, line separators).

Regressions: the ``*_regressions`` tests pin, as ``@example``s, inputs that once broke a
property (Hangul jamo, a BOM before a mark, half-width sound marks, a mark after a space, a
LINE SEPARATOR between syllables), on top of the focused strategy.

Why the zh surface property is "contains", with "equals" only for simple surfaces: one
original code point can normalise to several characters that become several terms (``½`` ->
``1⁄2`` gives ``1`` and ``2``; ``㌽`` -> ``ポイント`` gives three bigrams; ``¸`` -> a space and
U+0327). Each of those terms correctly reports the whole code point as its surface, so the term
is then a *part* of the normalised surface. Where every code point of the surface normalises
to token characters and the surface alone is one term, the term must *equal* the normalised
surface.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from regrag.text.analyzer import ANALYZER_NAMES, Analyzer
from regrag.text.normalize import normalize_term
from regrag.text.scripts import HAS_CJK

# --- Strategies -------------------------------------------------------------------------

ANY_CHARACTER = st.characters(blacklist_categories=("Cs",))
UNIFORM_CHARACTER = (
    st.integers(min_value=0, max_value=0x10FFFF)
    .filter(lambda code: not 0xD800 <= code <= 0xDFFF)
    .map(chr)
)
INTERESTING = list(
    "aZe19T+%.,'\u2019 \t\n\r\u00a0\u3000\ufeff"  # ASCII, joiners, apostrophes, spaces, BOM
    "\ufb01\uff2c\uff11\u0130\u00df\u00bd\u00b4\u00b8"  # ﬁ Ｌ １ İ ß ½ ´ ¸
    "\u0301\u0323\u0309\u031b\u0306\u0303\u0111\u01b0\u1ea1"  # marks, đ ư ạ
    "\u4e2d\u56fd\u4eba\u306e\u304b\u3099\u30ab\u30fc\ud55c\uae00\uff76\uff9e\u333d"  # CJK
    "\u2028\u2029\x85\x0b"  # line separators
)
FOCUSED_CHARACTER = st.one_of(ANY_CHARACTER, st.sampled_from(INTERESTING))

STRATEGIES = {
    "any": st.text(alphabet=ANY_CHARACTER),
    "uniform": st.text(alphabet=UNIFORM_CHARACTER),
    "focused": st.text(alphabet=FOCUSED_CHARACTER, max_size=40),
}

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

strategy_names = pytest.mark.parametrize("strategy", sorted(STRATEGIES))
analyzer_names = pytest.mark.parametrize("name", ANALYZER_NAMES)


def _run(strategy: str, check) -> None:
    """Run ``check(text)`` as a hypothesis test over texts from ``STRATEGIES[strategy]``."""
    SETTINGS(given(STRATEGIES[strategy])(check))()


# --- Helpers ----------------------------------------------------------------------------

_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
_JOINERS = frozenset(".,'\u2019+%\ufeff")
_PHRASE_SPACE = frozenset("\t")  # plus every Zs character, see _is_phrase_gap


def _is_mark(character: str) -> bool:
    return unicodedata.category(character)[0] == "M"


def _is_token_character(character: str) -> bool:
    return bool(_LETTER_OR_DIGIT.match(character)) or _is_mark(character)


def _is_phrase_gap(gap: str) -> bool:
    """What the contract allows between the two syllables of a pair: spaces and tabs only."""
    return bool(gap) and all(c in _PHRASE_SPACE or unicodedata.category(c) == "Zs" for c in gap)


def _simple_surface(surface: str) -> bool:
    """Every code point is a number/apostrophe joiner, a BOM, or normalises to token characters."""
    for character in surface:
        if character in _JOINERS:
            continue
        normalized = normalize_term(character)
        if not normalized or not all(_is_token_character(c) for c in normalized):
            return False
    return True


def _comparable(surface: str) -> str:
    return normalize_term(surface).replace("\u2019", "'")


def _check_zh_surfaces(text: str) -> None:
    analyzer = Analyzer("zh")
    for term, start, end in analyzer.analyze(text):
        surface = text[start:end]
        normalized = _comparable(surface)
        assert term in normalized, (term, surface, normalized)
        if _simple_surface(surface) and len(analyzer.analyze(surface)) == 1:
            assert term == normalized, (term, surface, normalized)


def _shifted(terms, by: int):
    return [(term, start + by, end + by) for term, start, end in terms]


# --- No exception, offsets in range, deterministic --------------------------------------


@analyzer_names
@strategy_names
def test_offsets_in_range_and_deterministic(name: str, strategy: str) -> None:
    def check(text: str) -> None:
        analyzer = Analyzer(name)
        terms = analyzer.analyze(text)
        assert isinstance(terms, list)
        for term, start, end in terms:
            assert isinstance(term, str) and term
            assert isinstance(start, int) and isinstance(end, int)
            assert 0 <= start < end <= len(text), (term, start, end)
        assert analyzer.analyze(text) == terms
        assert Analyzer(name).analyze(text) == terms

    _run(strategy, check)


@analyzer_names
@strategy_names
def test_single_terms_in_start_order(name: str, strategy: str) -> None:
    def check(text: str) -> None:
        starts = [start for term, start, _end in Analyzer(name).analyze(text) if " " not in term]
        assert starts == sorted(starts)

    _run(strategy, check)


def _check_terms_normalised(name: str, text: str) -> None:
    for term, _start, _end in Analyzer(name).analyze(text):
        assert "\ufeff" not in term
        assert "\u2019" not in term
        assert normalize_term(term) == term, (term, normalize_term(term))


@analyzer_names
@strategy_names
def test_terms_are_normalised(name: str, strategy: str) -> None:
    """Terms are NFKC+casefold forms: no BOM, nothing left to fold, no typographic apostrophe."""

    def check(text: str) -> None:
        _check_terms_normalised(name, text)

    _run(strategy, check)


@analyzer_names
def test_terms_are_normalised_regressions(name: str) -> None:
    @SETTINGS
    @example("\u1100\u1161")
    @example("A\ufeff\u0301")
    @example("\u304b\uff9e")
    @given(STRATEGIES["focused"])
    def check(text: str) -> None:
        _check_terms_normalised(name, text)

    check()


# --- A prefix of spaces only shifts offsets ---------------------------------------------


@analyzer_names
@strategy_names
def test_space_prefix_only_shifts_offsets(name: str, strategy: str) -> None:
    def check(text: str) -> None:
        analyzer = Analyzer(name)
        assert analyzer.analyze("  " + text) == _shifted(analyzer.analyze(text), 2)

    _run(strategy, check)


@analyzer_names
def test_space_prefix_only_shifts_offsets_regressions(name: str) -> None:
    @SETTINGS
    @example("\u0301")
    @given(STRATEGIES["focused"])
    def check(text: str) -> None:
        analyzer = Analyzer(name)
        assert analyzer.analyze("  " + text) == _shifted(analyzer.analyze(text), 2)

    check()


# --- zh: terms are the normalised surface -----------------------------------------------


@strategy_names
def test_zh_terms_match_normalised_surface(strategy: str) -> None:
    def check(text: str) -> None:
        _check_zh_surfaces(text)

    _run(strategy, check)


@pytest.mark.parametrize(
    "text",
    [
        "\u0301",
        "\u00e9 e\u0301",
        "\ufb01nancial company\u2019s \ufeffＬＰＲ 3.45%",
        "中华人民共和国 ｶﾀｶﾅ 日本の株",
        "\u00bd \u333d \u00b8 \u2474",  # expansions: each term is part of the normalised surface
        "\ufdfa",  # one code point that normalises to four words
    ],
)
def test_zh_surface_examples(text: str) -> None:
    _check_zh_surfaces(text)


def test_zh_surface_simple_cases_are_equal() -> None:
    text = "\ufb01nancial company\u2019s \ufeffＬＰＲ 3.45% 中华 ｶﾀ e\u0301"
    terms = Analyzer("zh").analyze(text)
    assert [(term, _comparable(text[s:e])) for term, s, e in terms] == [
        ("financial", "financial"),
        ("company's", "company's"),
        ("lpr", "lpr"),
        ("3.45%", "3.45%"),
        ("中华", "中华"),
        ("カタ", "カタ"),
        ("\u00e9", "\u00e9"),
    ]


def test_zh_terms_match_normalised_surface_regressions() -> None:
    @SETTINGS
    @example("a.\u0301b")
    @example("\u1100\u1161")
    @given(STRATEGIES["focused"])
    def check(text: str) -> None:
        _check_zh_surfaces(text)

    check()


# --- vi: pairs are two adjacent syllables of one phrase ---------------------------------


def _check_vi_pairs(text: str) -> None:
    terms = Analyzer("vi").analyze(text)
    singles: list[tuple[str, int, int]] = []
    for index, (term, start, end) in enumerate(terms):
        if " " not in term:
            singles.append((term, start, end))
            continue
        # A pair comes right after its second syllable and joins the two syllables before it.
        assert len(singles) >= 2 and terms[index - 1] == singles[-1], (term, terms)
        (first, first_start, first_end), (second, second_start, second_end) = singles[-2:]
        assert term == f"{first} {second}"
        assert (start, end) == (first_start, second_end)
        gap = text[first_end:second_start].replace("\ufeff", "")  # a BOM normalises to nothing
        if first_end >= second_start or not gap:
            # The separator lies inside an original code point that also holds a syllable:
            # U+FDFA normalises to four words, U+00AF (macron) to " \u0304".
            continue
        assert _is_phrase_gap(gap), (term, gap)
    # Conversely: adjacent non-CJK syllables separated by spaces/tabs only always form a pair
    # (unless a syllable's code point normalises to more than the syllable, e.g. ⑴ -> "(1)").
    pairs = {(start, end) for term, start, end in terms if " " in term}
    for (a, a_start, a_end), (b, b_start, b_end) in zip(singles, singles[1:]):
        if (
            HAS_CJK.search(a + b) is None
            and _is_phrase_gap(text[a_end:b_start])
            and _comparable(text[a_start:a_end]).endswith(a)
            and _comparable(text[b_start:b_end]).startswith(b)
        ):
            assert (a_start, b_end) in pairs, (a, b)


@pytest.mark.parametrize(
    "text",
    [
        "Việt Nam\tơi, chứng khoán\nlợi nhuận 12.000 tỷ",
        "a \ufeff b",  # a BOM in the gap normalises to nothing
        "\ufdfa",  # one code point, four words: the pairs share its span
        "0\ufeff\u00af",  # the macron normalises to " \u0304": the space is inside it
        "\u2474 A",  # ⑴ normalises to "(1)": no pair across ")"
    ],
)
def test_vi_pair_examples(text: str) -> None:
    _check_vi_pairs(text)


@strategy_names
def test_vi_pairs_join_adjacent_syllables(strategy: str) -> None:
    def check(text: str) -> None:
        _check_vi_pairs(text)

    _run(strategy, check)


def test_vi_pairs_join_adjacent_syllables_regressions() -> None:
    @SETTINGS
    @example("a\u2028b")
    @given(STRATEGIES["focused"])
    def check(text: str) -> None:
        _check_vi_pairs(text)

    check()
