"""Analysis under hostile input (issue 7): floods, joiners, bidi controls, expansions, every code point.

The invariants checked on every input (docs/analysis.md, "Hostile input"):

* no exception; every term is a non-empty string with ``0 <= start < end <= len(text)``;
* ``term_counts`` is the multiset of ``analyze``'s terms, for every analyzer and language;
* terms are in normal form (``normalize_term(term) == term``), with no BOM and no format
  character (ZWJ, ZWNJ, bidi controls, soft hyphen): those separate terms;
* the surface ``text[start:end]`` of a ``zh`` term, analysed alone, gives that term again
  (offsets slice the original at the term's own characters, whatever normalisation did);
* a run of more than 30 joining characters normalises as its first 30: the rest are kept in
  the surface but do not change the term.

Timing is not tested here (bench/worst_case_analysis.py measures growth per doubling).
"""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from regrag.text.analyzer import ANALYZER_NAMES, Analyzer, detect_language
from regrag.text.normalize import MAX_JOINING_RUN, cap_joining_runs, normalize_term
from regrag.text.sentences import sentence_spans
from tests.strategies import (
    BIDI_CONTROLS,
    COMBINING_MARKS,
    NFKC_EXPANDING,
    ZERO_WIDTH,
    any_texts,
    hostile_texts,
)

ANALYZERS = {name: Analyzer(name) for name in ANALYZER_NAMES}
LANGUAGES = (None, "en", "vi", "zh")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Format characters that must never be inside a term (they separate terms). The BOM is not
# here: it normalises to nothing, so it can sit inside a surface but never inside a term.
FORMAT_CHARACTERS = frozenset(BIDI_CONTROLS + ZERO_WIDTH[:4] + ("\u00ad", "\u2061", "\u180e"))

ATTACKS = {
    "combining flood, one class": "a" + "\u0301" * 5000,
    "combining flood, classes interleaved": "a" + "\u0301\u0316" * 2500,
    "combining flood, no base": "x \u0301\u0316\u0334" * 3 + "\u0301\u0316" * 2000,
    "combining flood after punctuation": "=" + "\u0338\u0301" * 1000 + " \u00b4" + "\u0301" * 500,
    "flood with BOMs inside": "e" + "\ufeff\u0301\u0323" * 1000,
    "half-width voiced marks": "\uff76" + "\uff9e\u0301" * 1000,
    "hangul jamo flood": "\u1100" + "\u1161\u11a8" * 1000,
    "zero-width joiners": "a\u200db\u200cc\u2060d\u200be" * 200,
    "emoji ZWJ sequence": "\U0001f468\u200d\U0001f469\u200d\U0001f467 family \u2764\ufe0f" * 50,
    "bidi overrides": "\u202eevil\u202c \u2066HPG\u2069 \u202a3.45%\u202c \u200fabc\u200e" * 100,
    "mixed scripts": "HPG中国lãi suất3.45%ｶﾞｽ한국어Nguyễn T+1 VN30 ệ\u0301" * 100,
    "NFKC expanders": "".join(NFKC_EXPANDING) * 50,
    "U+FDFA run": "\ufdfa" * 2000,
    "squared katakana": "".join(chr(c) for c in range(0x3300, 0x3358)) * 20,
    "1 MB ASCII token": "a" * 1_000_000,
    "one long non-ASCII token": "ệ" * 100_000,
    "digits and periods": "1." * 50_000,
    "digits and commas": "1,2" * 30_000 + "%",
    "apostrophes": "a'" * 50_000,
    "plus signs": "a+1" * 30_000,
    "tickers": "ABC IT's ON " * 10_000,
    "punctuation line": "!?.,;:-_/\\|" * 10_000,
    "line separators": "a\u2028b\u2029c\x85d\x0be\x0cf\r\n" * 1000,
    "controls and noncharacters": "\x00\x07\x1b\x7f\ufffe\uffff\U0010ffff\ue000\U000e0001a" * 500,
    "variation selectors": "\u2764\ufe0f a\ufe00 \u845b\U000e0100" * 200,
    "BOM run": "\ufeff" * 100_000 + "a" + "\ufeff" * 100_000 + "\u0301" + "b\ufeff" * 1000,
}


def check_invariants(text: str) -> None:
    """Every invariant of the module docstring, for every analyzer (and every language)."""
    for name, analyzer in ANALYZERS.items():
        terms = analyzer.analyze(text)
        assert analyzer.analyze(text) == terms
        for term, start, end in terms:
            assert isinstance(term, str) and term, (name, term)
            assert 0 <= start < end <= len(text), (name, term, start, end)
            assert normalize_term(term) == term, (name, term)
            assert "\ufeff" not in term and not FORMAT_CHARACTERS.intersection(term), (name, term)
        assert analyzer.term_counts(text) == Counter(term for term, _s, _e in terms), name
    for language in LANGUAGES[1:]:
        analyzer = ANALYZERS["auto"]
        expected = Counter(term for term, _s, _e in analyzer.analyze(text, language))
        assert analyzer.term_counts(text, language) == expected, language


def check_surfaces(text: str) -> None:
    """A ``zh`` term's surface, analysed alone, gives the term again."""
    analyzer = ANALYZERS["zh"]
    for term, start, end in analyzer.analyze(text):
        surface = text[start:end]
        again = [t for t, _s, _e in analyzer.analyze(surface)]
        assert term in again, (term, surface, again)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_attack_inputs_keep_the_invariants(attack: str) -> None:
    text = ATTACKS[attack]
    check_invariants(text if len(text) <= 200_000 else text[:200_000])


@pytest.mark.parametrize("attack", sorted(name for name in ATTACKS if len(ATTACKS[name]) <= 20_000))
def test_attack_surfaces_slice_the_original(attack: str) -> None:
    check_surfaces(ATTACKS[attack])


def test_a_one_megabyte_token_is_one_term_with_the_whole_span() -> None:
    text = "a" * 1_000_000
    assert Analyzer("zh").analyze(text) == [(text, 0, len(text))]
    assert Analyzer("en").term_counts(text) == Counter({text: 1})  # Porter leaves a vowel-only word whole


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_texts())
@example("a" + "\u0301\u0316" * 40)
@example(" \u0301" * 3 + "\ufeff" * 40 + "\u0301")
@example("\u0130\u0301" + "\u0345" * 31 + "x")
@example("\ufdfa\u200d\u202e\ufb03")
def test_hostile_texts_keep_the_invariants(text: str) -> None:
    check_invariants(text)


@SETTINGS
@given(any_texts())
def test_uniform_code_points_keep_the_invariants(text: str) -> None:
    check_invariants(text)


@SETTINGS
@given(hostile_texts(max_elements=12))
@example("x.\u0301b \u00bd \u333d \u2474 \u00b8")
@example("a" + "\u0301" * 45 + "b")
def test_hostile_surfaces_slice_the_original(text: str) -> None:
    check_surfaces(text)


# --- combining floods: the 30-mark cut --------------------------------------------------------


MARKS_OR_BOMS = st.lists(st.sampled_from(COMBINING_MARKS + ("\ufeff",)), min_size=MAX_JOINING_RUN + 1, max_size=120)


def _cut_after(marks: list[str], count: int) -> int:
    """Position in ``marks`` just after its ``count``-th mark (BOMs are not counted)."""
    seen = 0
    for position, mark in enumerate(marks):
        if mark != "\ufeff":
            seen += 1
            if seen == count:
                return position + 1
    return len(marks)


@SETTINGS
@given(st.sampled_from(("a", "Z", "7", "\u4e2d", " ", "")), MARKS_OR_BOMS, st.sampled_from(("", "b", " b", ".")))
def test_a_flood_analyses_as_its_first_30_marks_over_the_whole_span(base: str, marks: list[str], after: str) -> None:
    """Marks past the 30th of a run (BOMs not counted) do not change any term; the span of the
    term still covers the whole run. After a letter or digit the run joins it; after a space,
    or at the start, it is a segment of its own. Either way its first 30 marks count."""
    marks = marks + ["\u0316"]  # a run ends at a mark: BOMs after its last mark are not part of it
    if base in ("", " "):
        marks = ["\u0301"] + marks  # a BOM first would be a segment of its own, before the run
    cut = _cut_after(marks, MAX_JOINING_RUN)
    analyzer = Analyzer("zh")
    full = analyzer.analyze(base + "".join(marks) + after)
    short = analyzer.analyze(base + "".join(marks[:cut]) + after)
    assert [term for term, _s, _e in full] == [term for term, _s, _e in short]
    dropped = len("".join(marks[cut:]))
    boundary = len(base) + cut

    def widened(offset: int) -> int:
        return offset + dropped if offset >= boundary else offset

    # a surface that ended at the cut now ends after the dropped marks; later ones shift
    assert [(s if s < boundary else s + dropped, widened(e)) for _t, s, e in short] == [(s, e) for _t, s, e in full]


def test_cap_joining_runs() -> None:
    assert cap_joining_runs("A" + "\u0301\u0316" * 40 + "b") == "A" + "\u0301\u0316" * 15 + "b"
    assert cap_joining_runs("\u0301" * 31 + " " + "\u0301" * 30) == "\u0301" * 30 + " " + "\u0301" * 30
    assert cap_joining_runs("\uff76" + "\uff9e" * 40) == "\uff76" + "\uff9e" * 30  # half-width marks join too


def test_flood_example() -> None:
    text = "a" + "\u0301\u0316" * 50 + " b"
    terms = Analyzer("zh").analyze(text)
    first = unicodedata.normalize("NFKC", "a" + "\u0301\u0316" * 15)
    assert terms == [(first, 0, 101), ("b", 102, 103)]
    assert Analyzer("zh").term_counts(text) == Counter({first: 1, "b": 1})


# --- what the analyzer does with format characters ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\u200db", [("a", 0, 1), ("b", 2, 3)]),  # ZWJ separates
        ("a\u200cb", [("a", 0, 1), ("b", 2, 3)]),  # ZWNJ separates
        ("\u202eHPG\u202c", [("hpg", 1, 4)]),  # an override is not part of the ticker
        ("\u2066fee\u2069", [("fee", 1, 4)]),
        ("fi\u00adnance", [("fi", 0, 2), ("nance", 3, 8)]),  # soft hyphen separates (not removed by NFKC)
        ("a\ufeffb", [("ab", 0, 3)]),  # a BOM normalises to nothing and joins
        ("\ufdfa", [("صلى", 0, 1), ("الله", 0, 1), ("عليه", 0, 1), ("وسلم", 0, 1)]),
    ],
)
def test_format_characters(text: str, expected: list[tuple[str, int, int]]) -> None:
    assert Analyzer("zh").analyze(text) == expected


@pytest.mark.parametrize("control", sorted(BIDI_CONTROLS + ZERO_WIDTH[:4]))
def test_a_format_character_never_joins_two_words(control: str) -> None:
    text = f"margin{control}rate"
    assert [term for term, _s, _e in Analyzer("en").analyze(text)] == ["margin", "rate"]


# --- every code point ----------------------------------------------------------------------------


def _every_code_point() -> list[str]:
    return [chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]


# The planes with assigned characters other than private use: 0-3 and 14. Planes 4-13 are
# unassigned and 15-16 private use (checked as a block: neither makes a term).
_ASSIGNED_PLANES = [chr(code) for code in (*range(0x40000), *range(0xE0000, 0xF0000)) if not 0xD800 <= code <= 0xDFFF]


def test_every_code_point_between_spaces() -> None:
    """Each code point of the assigned planes alone (between spaces): offsets in range, terms
    normal, every surface re-analysed gives its term, and ``term_counts`` equals ``analyze``'s
    multiset (zh, and en: the cached piece path)."""
    text = " ".join(_ASSIGNED_PLANES)
    zh, en = Analyzer("zh"), Analyzer("en")
    zh_terms = zh.analyze(text)
    assert zh.term_counts(text) == Counter(term for term, _s, _e in zh_terms)
    for term, start, end in zh_terms:
        assert 0 <= start < end <= len(text)
        assert normalize_term(term) == term, term
        assert term in {t for t, _s, _e in zh.analyze(text[start:end])}, (term, text[start:end])
    assert en.term_counts(text) == Counter(term for term, _s, _e in en.analyze(text))


def test_every_code_point_side_by_side() -> None:
    """All code points run together in order (every neighbour pair of the code space)."""
    text = "".join(_every_code_point())
    zh = Analyzer("zh")
    terms = zh.analyze(text)
    assert all(0 <= start < end <= len(text) for _t, start, end in terms)
    assert zh.term_counts(text) == Counter(term for term, _s, _e in terms)
    unassigned = "".join(chr(code) for code in range(0x40000, 0xE0000, 7)) + "".join(map(chr, range(0xF0000, 0x110000, 5)))
    assert zh.analyze(unassigned) == []


def test_every_code_point_in_sentences_and_language_detection() -> None:
    text = "".join(_every_code_point())
    spans = sentence_spans(text)
    assert all(0 <= start < end <= len(text) for start, end in spans)
    assert spans == sorted(spans)
    assert detect_language(text) in ("en", "vi")


# --- sentences -------------------------------------------------------------------------------------


def _old_sentence_spans(text: str) -> list[tuple[int, int]]:
    """The splitter's rules with the lookahead regex it used before (quadratic on long runs of
    periods, fine on short texts): the reference for the linear version."""
    import re

    boundary = re.compile(
        r"[.!?]+[\"')\]\u201d\u2019]*(?=\s)|[\u3002\uff01\uff1f\uff1b]+[\u201d\u2019\u300d\u300f\uff09)]*"
        r"|[\n\r\x0b\x0c\x85\u2028\u2029]"
    )
    spans: list[tuple[int, int]] = []
    position = 0
    for match in boundary.finditer(text):
        spans.append((position, match.end()))
        position = match.end()
    spans.append((position, len(text)))
    trimmed = []
    for start, end in spans:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            trimmed.append((start, end))
    return trimmed


SENTENCE_ALPHABET = st.sampled_from(list(".!?\"')]\u201d\u2019\u3002\uff01\uff1f\uff1b\u300d\u300f\uff09 \t\n\u2028\u00a0a1"))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=SENTENCE_ALPHABET, max_size=40))
def test_sentence_spans_are_those_of_the_lookahead_rules(text: str) -> None:
    assert sentence_spans(text) == _old_sentence_spans(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=SENTENCE_ALPHABET, max_size=40), st.integers(0, 40), st.integers(0, 40))
def test_sentence_spans_of_a_slice(text: str, start: int, end: int) -> None:
    start, end = min(start, len(text)), min(max(start, end), len(text))
    spans = sentence_spans(text, start, end)
    assert [(s - start, e - start) for s, e in spans] == _old_sentence_spans(text[start:end])


@pytest.mark.parametrize(
    "text",
    ["." * 20_000, "!?" * 10_000 + '"' * 10_000, "." * 10_000 + "a", "a." * 10_000 + " b", COMBINING_MARKS[0] * 9],
)
def test_sentence_spans_on_long_punctuation_runs(text: str) -> None:
    spans = sentence_spans(text)
    assert all(0 <= start < end <= len(text) for start, end in spans)
    assert "".join(text[s:e] for s, e in spans) == "".join(text.split())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fee\ud800rate \udcff", [("fee", 0, 3), ("rate", 4, 8)]),
        ("\udfff" * 100, []),
        ("a\ud83d\ude00b", [("a", 0, 1), ("b", 3, 4)]),  # a surrogate pair in a str is two lone surrogates
        ("\ud800\u0301\u0316", [("\u0316\u0301", 1, 3)]),  # marks after one form a term of their own
    ],
)
def test_lone_surrogates_separate_terms(text: str, expected: list[tuple[str, int, int]]) -> None:
    """A str may hold lone surrogates (bytes decoded with surrogateescape): they separate terms
    (the engine refuses them in queries; the analyzer itself never fails on them)."""
    check_invariants(text)
    assert Analyzer("zh").analyze(text) == expected
