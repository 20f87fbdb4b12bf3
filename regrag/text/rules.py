"""The analyzer's rules, stated once: one frozen record per language, in one table.

Both analysis paths read their rules from ``RULES``: the general one
(``analyzer._terms``, terms with offsets) and the ASCII fast path of indexing
(``analyzer._piece_terms``). ``Analyzer.identity()`` is derived from it too:

- ``normalization``, ``stemmer``, ``stopwords`` and ``cjk`` name the table's
  components (over all languages, since one table serves every analyzer name);
- ``version`` is the released analyzer version whose rules the table states:
  ``RELEASED`` maps each version to the SHA-256 of the table's canonical
  description (``describe``), which covers every entry, the stopwords
  themselves and the normaliser's joining-run bound. A table that matches no
  released version gets ``unreleased-<digest>``, so any change to an entry
  changes the identity and with it the index id. Changing a rule therefore
  means adding a version here (and a row to docs/analysis.md).

The algorithms stay in their modules (``normalize``, ``tokenize``, ``porter``);
the table says which of them a language uses and with which settings.
"""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Mapping

from regrag.audit.canonical import canonical_json, sha256_hex
from regrag.text.normalize import MAX_JOINING_RUN
from regrag.text.porter import stem
from regrag.text.stopwords import LUCENE_ENGLISH_STOPWORDS, STOPWORD_SET_NAME
from regrag.text.tokenize import CJK_RUN, NUMBER, PLUS, WORD

# The implementations a table may name.
STEMMERS: Mapping[str, Callable[[str], str]] = {"porter-1980": stem}
STOPWORD_SETS: Mapping[str, frozenset[str]] = {STOPWORD_SET_NAME: LUCENE_ENGLISH_STOPWORDS}
NORMALIZATIONS = ("NFKC+casefold",)  # normalize.normalize_with_offsets; the only one
AUTO = "auto"


@dataclass(frozen=True)
class TickerRule:
    """An all-capitals token of ``shortest``..``longest`` letters in the
    original (``IT``, ``ON``, ``HPG``) is kept as its casefolded form: no word
    rule (possessive, stopwords, stemming) touches it."""

    shortest: int = 2
    longest: int = 5

    def matches(self, surface: str) -> bool:
        """Whether ``surface`` (original text) is a ticker."""
        return self.shortest <= len(surface) <= self.longest and surface.isalpha() and surface.isupper()


@dataclass(frozen=True)
class LanguageRules:
    """What one language's rules do to the non-CJK tokens of a text.

    The word rules apply, in this order, to ``word`` tokens that are not
    tickers: ``possessive`` (a suffix removed, ``"'s"``; ``""`` for none),
    ``stopwords`` (the name of a set in ``STOPWORD_SETS`` whose words are
    dropped; ``""`` for none), ``stemmer`` (the name of a stemmer in
    ``STEMMERS``, applied to words of ASCII letters only; ``""`` for none).
    ``syllable_pairs``: each token also gives, with the one before it in the
    same phrase (only spaces or tabs between them), the term ``"first second"``;
    its terms then depend on their neighbours, so the fast path caches pieces with
    what pairing them needs (``regrag.text.piece_cache``)."""

    possessive: str = ""
    stopwords: str = ""
    stemmer: str = ""
    syllable_pairs: bool = False

    @property
    def changes_words(self) -> bool:
        """Whether any word rule can change or drop a word."""
        return bool(self.possessive or self.stopwords or self.stemmer)


@dataclass(frozen=True)
class RuleTable:
    """Every rule of every analyzer.

    ``normalization``: how terms are compared (one of ``NORMALIZATIONS``).
    ``apostrophe``: a character written as ``'`` in every term (``’``; ``""`` for none).
    ``kept_whole``: token classes no word rule touches (numbers such as
    ``3.45%``, ``T+1``), in every language. ``cjk_gram``: CJK runs become
    overlapping character n-grams of this length (a shorter run is one term).
    ``tickers``: see ``TickerRule``. ``languages``: the Latin-script rules by
    language name; each is an analyzer name, and so is ``auto``, which picks
    ``en`` or ``vi`` per text (``language.detect_language``)."""

    normalization: str
    apostrophe: str
    kept_whole: tuple[str, ...]
    cjk_gram: int
    tickers: TickerRule
    languages: tuple[tuple[str, LanguageRules], ...]

    def __post_init__(self) -> None:
        if self.normalization not in NORMALIZATIONS:
            raise ValueError(f"unknown normalization {self.normalization!r}")
        for language, rules in self.languages:
            if rules.stemmer and rules.stemmer not in STEMMERS:
                raise ValueError(f"{language}: unknown stemmer {rules.stemmer!r}")
            if rules.stopwords and rules.stopwords not in STOPWORD_SETS:
                raise ValueError(f"{language}: unknown stopword set {rules.stopwords!r}")
        if AUTO in dict(self.languages) or not {"en", "vi"} <= set(dict(self.languages)):
            raise ValueError("the languages must include en and vi (auto chooses between them), not auto")
        if not set(self.kept_whole) <= {NUMBER, PLUS, WORD}:
            raise ValueError(f"kept_whole names token classes of tokenize: {NUMBER}, {PLUS}, {WORD}")
        if self.cjk_gram < 1 or len(self.apostrophe) > 1 or self.apostrophe.isalnum():
            raise ValueError("cjk_gram must be positive, the apostrophe one character, not a letter or digit")

    def analyzer_names(self) -> tuple[str, ...]:
        """``auto`` first, then each language."""
        return (AUTO, *(language for language, _rules in self.languages))


RULES = RuleTable(
    normalization="NFKC+casefold",
    apostrophe="\u2019",
    kept_whole=(NUMBER, PLUS),
    cjk_gram=2,
    tickers=TickerRule(shortest=2, longest=5),
    languages=(
        ("en", LanguageRules(possessive="'s", stopwords=STOPWORD_SET_NAME, stemmer="porter-1980")),
        ("vi", LanguageRules(syllable_pairs=True)),
        ("zh", LanguageRules()),
    ),
)


@dataclass(frozen=True)
class Chain:
    """One language's rules of a table, resolved to what the analysis paths
    run, with the table-wide rules they need. Built by ``chains``; both paths
    of ``analyzer`` read it. ``finish(word, surface)``: the term of a word
    (normalised, after the possessive rule) whose original text is
    ``surface``, or ``None`` when it is dropped (see ``word_rules``)."""

    syllable_pairs: bool
    changes_words: bool
    possessive: str
    finish: Callable[[str, str], str | None]
    is_ticker: Callable[[str], bool]
    kept_whole: frozenset[str]
    apostrophe: str
    cjk_gram: int


def word_rules(rules: LanguageRules, tickers: TickerRule) -> Callable[[str, str], str | None]:
    """The word rules after the possessive, as one function: a ticker stays
    as it is; a stopword is dropped; a word of ASCII letters only is stemmed.
    (A closure, not a method: it runs once per word, on the indexing hot path.)"""
    shortest, longest = tickers.shortest, tickers.longest
    stopwords = STOPWORD_SETS[rules.stopwords] if rules.stopwords else frozenset()
    stemmer = STEMMERS[rules.stemmer] if rules.stemmer else None

    def finish(word: str, surface: str) -> str | None:
        # TickerRule.matches, inlined (one call less per word; tests/text/test_rules.py holds them equal)
        if shortest <= len(surface) <= longest and surface.isalpha() and surface.isupper():
            return word
        if word in stopwords:
            return None
        if stemmer is not None and word.isascii() and word.isalpha():
            return stemmer(word)
        return word

    return finish


def chains(table: RuleTable) -> dict[str, Chain]:
    """Each language's ``Chain`` under ``table``."""
    return {
        language: Chain(
            syllable_pairs=rules.syllable_pairs,
            changes_words=rules.changes_words,
            possessive=rules.possessive,
            finish=word_rules(rules, table.tickers),
            is_ticker=table.tickers.matches,
            kept_whole=frozenset(table.kept_whole),
            apostrophe=table.apostrophe,
            cjk_gram=table.cjk_gram,
        )
        for language, rules in table.languages
    }


def describe(table: RuleTable) -> dict[str, Any]:
    """The canonical description of ``table``: every entry, plus what its
    names stand for that a name alone would not pin (the stopwords, sorted;
    the normaliser's joining-run bound; the token classes). Plain JSON types."""
    used_sets = sorted({rules.stopwords for _language, rules in table.languages if rules.stopwords})
    description = {
        "table": dataclasses.asdict(table),
        "stopword_sets": {name: sorted(STOPWORD_SETS[name]) for name in used_sets},
        "max_joining_run": MAX_JOINING_RUN,
        "token_classes": [NUMBER, PLUS, WORD, CJK_RUN],
    }
    return json.loads(canonical_json(description))  # tuples as lists


def digest(table: RuleTable) -> str:
    """SHA-256 of the canonical JSON of ``describe(table)``."""
    return sha256_hex(describe(table))


# Released analyzer versions and the digest of the table each one states. Version 1
# predates the table (it had no joining-run bound) and is refused on open anyway.
RELEASED: Mapping[str, str] = {
    "2": "580aed6e726799921c79bcc7fa04f337a4ef41b9f8bd9f300b79dc9726440aa8",
}


@lru_cache(maxsize=16)
def version(table: RuleTable) -> str:
    """The released version whose rules ``table`` states, else ``unreleased-`` and 16 hex digits.
    (Cached: ``identity()`` is part of every search's provenance.)"""
    found = digest(table)
    for name, released in sorted(RELEASED.items()):
        if released == found:
            return name
    return f"unreleased-{found[:16]}"


def _component(names: set[str]) -> str:
    return "+".join(sorted(names)) or "none"


def identity(table: RuleTable, name: str) -> dict[str, str]:
    """The identity of analyzer ``name`` under ``table`` (see the module docstring)."""
    languages = [rules for _language, rules in table.languages]
    return {
        "name": name,
        "version": version(table),
        "normalization": table.normalization,
        "stemmer": _component({rules.stemmer for rules in languages if rules.stemmer}),
        "stopwords": _component({rules.stopwords for rules in languages if rules.stopwords}),
        "cjk": "bigrams" if table.cjk_gram == 2 else f"{table.cjk_gram}-grams",
        "unicode": unicodedata.unidata_version,
    }
