"""The rules table (regrag/text/rules.py): both analysis paths and the identity come from it.

* the identity is derived from the table: every entry of a changed copy changes it;
* the fast path (``_piece_terms``) and the general path (``_terms``) give the same terms on
  ASCII text under every language, for the shipped table and for changed copies of it;
* the ticker test inlined in the word rules is ``TickerRule.matches``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections import Counter
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.text import analyzer as analyzer_module
from regrag.text.analyzer import ANALYZER_NAMES, Analyzer, _path_settings, _piece_terms, _terms, clear_piece_cache
from regrag.text.normalize import normalize_with_offsets
from regrag.text.rules import (
    RELEASED,
    RULES,
    LanguageRules,
    RuleTable,
    TickerRule,
    chains,
    describe,
    digest,
    identity,
    version,
)
from regrag.text.tokenize import NUMBER, PLUS

LANGUAGES = [language for language, _rules in RULES.languages]


def _with_language(table: RuleTable, language: str, **changes) -> RuleTable:
    languages = tuple(
        (name, dataclasses.replace(rules, **changes) if name == language else rules) for name, rules in table.languages
    )
    return dataclasses.replace(table, languages=languages)


CHANGED_TABLES = {
    "en without stemmer": _with_language(RULES, "en", stemmer=""),
    "en without stopwords": _with_language(RULES, "en", stopwords=""),
    "en without possessive": _with_language(RULES, "en", possessive=""),
    "en with a plain possessive": _with_language(RULES, "en", possessive="s"),
    "en with syllable pairs": _with_language(RULES, "en", syllable_pairs=True),
    "vi without syllable pairs": _with_language(RULES, "vi", syllable_pairs=False),
    "zh with the English word rules": _with_language(
        RULES, "zh", possessive="'s", stopwords="lucene-english-33", stemmer="porter-1980"
    ),
    "no apostrophe folding": dataclasses.replace(RULES, apostrophe=""),
    "numbers not kept whole": dataclasses.replace(RULES, kept_whole=(PLUS,)),
    "CJK trigrams": dataclasses.replace(RULES, cjk_gram=3),
    "tickers of 2-4 letters": dataclasses.replace(RULES, tickers=TickerRule(shortest=2, longest=4)),
    "tickers of 3-5 letters": dataclasses.replace(RULES, tickers=TickerRule(shortest=3, longest=5)),
    "a fourth language": dataclasses.replace(RULES, languages=(*RULES.languages, ("xx", LanguageRules()))),
}


# --- the identity is derived from the table --------------------------------------------------


def test_the_shipped_table_is_released_version_2() -> None:
    assert version(RULES) == "2" and RELEASED["2"] == digest(RULES)
    assert all(Analyzer(name).identity() == identity(RULES, name) for name in ANALYZER_NAMES)


@pytest.mark.parametrize("change", sorted(CHANGED_TABLES))
def test_every_changed_entry_changes_the_identity(change: str) -> None:
    table = CHANGED_TABLES[change]
    assert digest(table) != digest(RULES)
    assert version(table).startswith("unreleased-") and version(table) != version(RULES)
    for name in ANALYZER_NAMES:
        assert identity(table, name) != identity(RULES, name)
        assert identity(table, name)["name"] == name
    assert version(RULES) == "2"  # the shipped table is untouched


def test_the_identity_names_the_table_components() -> None:
    without_stemming = _with_language(RULES, "en", stemmer="", stopwords="")
    assert identity(without_stemming, "en")["stemmer"] == "none"
    assert identity(without_stemming, "en")["stopwords"] == "none"
    assert identity(dataclasses.replace(RULES, cjk_gram=3), "zh")["cjk"] == "3-grams"
    assert identity(RULES, "vi")["stemmer"] == "porter-1980"  # a component of the table, not of the name


def test_the_table_names_the_analyzers() -> None:
    assert ANALYZER_NAMES == RULES.analyzer_names() == ("auto", *LANGUAGES)
    assert CHANGED_TABLES["a fourth language"].analyzer_names() == ("auto", "en", "vi", "zh", "xx")


def test_the_description_is_canonical_json_and_pins_the_stopwords() -> None:
    description = describe(RULES)
    assert json.loads(json.dumps(description)) == description  # plain JSON types, no sets
    assert len(description["stopword_sets"]["lucene-english-33"]) == 33
    assert description["stopword_sets"]["lucene-english-33"] == sorted(description["stopword_sets"]["lucene-english-33"])


def test_the_digest_does_not_depend_on_the_hash_seed() -> None:
    code = "from regrag.text.rules import RULES, digest; print(digest(RULES))"
    digests = set()
    for seed in ("0", "1", "4242"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)
        digests.add(result.stdout.strip())
    assert digests == {digest(RULES)}


@pytest.mark.parametrize(
    "changes",
    [{"normalization": "NFC"}, {"apostrophe": "ab"}, {"apostrophe": "x"}, {"cjk_gram": 0}, {"kept_whole": ("cjk",)}],
)
def test_a_table_naming_no_implementation_is_refused(changes) -> None:
    with pytest.raises(ValueError):
        dataclasses.replace(RULES, **changes)


@pytest.mark.parametrize("changes", [{"stemmer": "snowball"}, {"stopwords": "nltk"}])
def test_a_language_naming_no_implementation_is_refused(changes) -> None:
    with pytest.raises(ValueError):
        _with_language(RULES, "en", **changes)


# --- the two paths agree -----------------------------------------------------------------------

# Any ASCII character, or a piece of ASCII that exercises a rule (tickers, stopwords, stems,
# possessives, numbers), joined into one text.
ASCII_TEXT = st.lists(
    st.one_of(
        st.characters(min_codepoint=0, max_codepoint=0x7F),
        st.sampled_from(list("aeinrst'sS.,%+-() \t\n") + ["IT", "HPG", "The", "the", "running", "company's", "3.45%"]),
    ),
    max_size=40,
).map("".join)


def _general(piece: str, language: str) -> tuple[str, ...]:
    return tuple(term for term, _s, _e in _terms(piece, normalize_with_offsets(piece), language))


def _fast_languages(table: RuleTable) -> list[str]:
    return [language for language, rules in table.languages if not rules.syllable_pairs]


@settings(max_examples=400, deadline=None)
@given(ASCII_TEXT)
def test_fast_path_equals_general_path_on_ascii(text: str) -> None:
    for language in _fast_languages(RULES):
        for piece in text.split():
            assert _piece_terms(piece, language) == _general(piece, language), (language, piece)


@settings(max_examples=200, deadline=None)
@given(ASCII_TEXT)
def test_term_counts_equal_analysis_on_ascii_for_every_analyzer(text: str) -> None:
    for name in ANALYZER_NAMES:
        analyzer = Analyzer(name)
        expected = Counter(term for term, _s, _e in analyzer.analyze(text))
        clear_piece_cache()
        assert analyzer.term_counts(text) == expected, name  # every piece through the fast path
        assert analyzer.term_counts(text) == expected, name  # and from the cache


@contextmanager
def _installed(table: RuleTable):
    """Run both paths under ``table`` (the module reads its settings from two globals)."""
    saved = analyzer_module._FAST_PATH, analyzer_module._GENERAL_PATH
    analyzer_module._FAST_PATH, analyzer_module._GENERAL_PATH = _path_settings(table)
    try:
        yield
    finally:
        analyzer_module._FAST_PATH, analyzer_module._GENERAL_PATH = saved


@pytest.mark.parametrize("change", sorted(set(CHANGED_TABLES) - {"a fourth language"}))
@settings(max_examples=60, deadline=None)
@given(text=ASCII_TEXT)
def test_a_changed_table_changes_both_paths_alike(change: str, text: str) -> None:
    table = CHANGED_TABLES[change]
    with _installed(table):
        for language in _fast_languages(table):
            for piece in text.split():
                assert _piece_terms(piece, language) == _general(piece, language), (language, piece)


@pytest.mark.parametrize(
    "change, language, text, expected",
    [
        ("en without stemmer", "en", "the running fees", ("running", "fees")),
        ("en without stopwords", "en", "the running fees", ("the", "run", "fee")),
        ("en without possessive", "en", "company's", ("company's",)),
        ("en with a plain possessive", "en", "fees", ("fee",)),
        ("zh with the English word rules", "zh", "the running fees IT", ("run", "fee", "it")),
        ("numbers not kept whole", "en", "3.45% 12", ("3.45%", "12")),
        ("tickers of 2-4 letters", "en", "RATES IT", ("rate", "it")),
        ("tickers of 3-5 letters", "en", "IT HPG", ("hpg",)),
    ],
)
def test_a_changed_entry_is_what_both_paths_run(change, language, text, expected) -> None:
    with _installed(CHANGED_TABLES[change]):
        general = tuple(term for piece in text.split() for term in _general(piece, language))
        fast = tuple(term for piece in text.split() for term in _piece_terms(piece, language))
    assert general == fast == expected


def test_cjk_gram_and_apostrophe_entries_reach_the_general_path() -> None:
    with _installed(CHANGED_TABLES["CJK trigrams"]):
        assert _general("中国人民", "zh") == ("中国人", "国人民")
        assert _general("中国", "zh") == ("中国",)
    with _installed(CHANGED_TABLES["no apostrophe folding"]):
        assert _general("rock\u2019n", "zh") == ("rock\u2019n",)
    assert _general("中国人民", "zh") == ("中国", "国人", "人民")
    assert _general("rock\u2019n", "zh") == ("rock'n",)


# --- the inlined ticker test ---------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ABZaz1'\u00c9\u00e9\u0130\u01c5\u2160\uff21")), max_size=7))
def test_the_word_rules_keep_exactly_the_tickers(surface: str) -> None:
    for tickers in (RULES.tickers, TickerRule(shortest=1, longest=3)):
        table = dataclasses.replace(RULES, tickers=tickers)
        finish = chains(table)["en"].finish
        assert finish("the", surface) == ("the" if tickers.matches(surface) else None)
        assert chains(table)["en"].is_ticker(surface) == tickers.matches(surface)


def test_kept_whole_classes_are_token_classes() -> None:
    assert set(RULES.kept_whole) == {NUMBER, PLUS}


@pytest.mark.parametrize("piece", ["cells.", "cells,", "fees.,.", "2014.", "1,250.", "3.45%.", "VNM.", "HPG,", "5G.",
                                   "u.s.", "U.S.", "a.b.", "company's.", "The.", "running,", "x.", "9,", "ab,cd."])
def test_a_plain_chunk_ending_in_stops_takes_the_fast_path_to_the_same_terms(piece: str) -> None:
    for table in (RULES, *CHANGED_TABLES.values()):
        with _installed(table):
            for language in _fast_languages(table):
                assert _piece_terms(piece, language) == _general(piece, language), (language, piece)
