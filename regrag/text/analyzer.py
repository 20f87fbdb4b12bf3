"""The analyzer: text in, ``(term, start, end)`` out, offsets into the original.

One analyzer is chosen per index; its ``identity()`` (name, version, rules,
Unicode version) is part of the index id and of every provenance record.

The rules of every language (en: possessive, stopwords, Porter stemming; vi:
syllable pairs; zh: words as they are; everywhere: CJK bigrams, numbers whole,
tickers kept) are stated once, in ``regrag/text/rules.py``; this module runs
them on two paths that give the same terms:

- the general path, ``_terms``: any text, with offsets (``analyze``);
- the fast path of indexing, ``term_counts``: whitespace-separated pieces
  analysed once each and cached, and in ASCII a plain chunk of letters and
  digits handled without tokenizing (``_piece_terms``).

``auto`` picks ``vi`` or ``en`` per text (``language.detect_language``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
import itertools
import operator
from typing import Iterable

from regrag.errors import InputError
from regrag.text import piece_cache
from regrag.text.language import detect_language
from regrag.text.normalize import BYTE_ORDER_MARK, NormalizedText, _joins, normalize_with_offsets
from regrag.text.rules import AUTO, RULES, RuleTable, chains, identity, version
from regrag.text.tokenize import CJK_RUN, NUMBER, tokenize

ANALYZER_VERSION = version(RULES)
ANALYZER_NAMES = RULES.analyzer_names()

Term = tuple[str, int, int]

PIECE_CACHE_SIZE = 1 << 18
# Terms of a whitespace-separated piece, per language whose terms of a piece depend on the
# piece alone (no syllable pairs); bounded: filled, never evicted. Every str.isspace()
# character is safe to split at: none is a joiner and NFKC maps each to whitespace.
_PIECE_TERMS: dict[str, dict[str, tuple[str, ...]]] = {
    language: {} for language, rules in RULES.languages if not rules.syllable_pairs
}


# Languages with syllable pairs and no word rules (vi): their pieces are cached with
# what pairing them with their neighbours needs (``piece_cache.PairedPiece``).
_PAIRED = frozenset(language for language, rules in RULES.languages if rules.syllable_pairs and not rules.changes_words)


def clear_piece_cache() -> None:
    """Forget the cached terms of pieces (memory only; results never depend on it)."""
    for cache in _PIECE_TERMS.values():
        cache.clear()
    piece_cache.clear()


def _piece_terms(piece: str, language: str) -> tuple[str, ...]:
    """Terms of one whitespace-free piece under the rules of a language
    without syllable pairs. In ASCII, the terms of its chunks in order
    (``chunk_terms``: a chunk's terms never depend on its neighbours);
    otherwise ``_terms`` on the piece."""
    if not piece.isascii():
        return tuple(term for term, _s, _e in _terms(piece, normalize_with_offsets(piece), language))
    if ASCII_CHUNK.fullmatch(piece):  # most pieces are one chunk
        return chunk_terms(piece, language)
    return tuple(itertools.chain.from_iterable(chunk_terms(chunk, language) for chunk in ASCII_CHUNK.findall(piece)))


def chunk_terms(original: str, language: str) -> tuple[str, ...]:
    """Terms of one ASCII chunk (a match of ``ASCII_CHUNK``) under the rules
    of a language without syllable pairs. A chunk of plain letters and
    digits (most of them) is one token, ``number`` if all digits, else
    ``word`` (as ``tokenize`` finds), and normalises to its lower case; the
    language's ``Chain`` applies to it here directly. Any other chunk, or
    one the possessive rule could shorten, goes through ``_terms`` itself."""
    finish, rewrites_words, rewrites_numbers, possessive = _FAST_PATH[language]
    chunk = original.lower()
    if chunk[-1] in ".," and _PLAIN_THEN_STOPS.fullmatch(chunk):
        # a plain chunk ending a sentence or clause: tokenize skips the trailing
        # stops, so its token is the plain part (tests/text/test_rules.py)
        chunk = chunk.rstrip(".,")
        original = original[: len(chunk)]
    if not _PLAIN_ASCII.fullmatch(chunk) or (possessive and chunk.endswith(possessive)):
        return tuple(term for term, _s, _e in _terms(original, normalize_with_offsets(original), language))
    if not rewrites_words or (chunk.isdigit() and not rewrites_numbers):
        return (chunk,)
    term = finish(chunk, original)
    return () if term is None else (term,)


def counts_by_chunk(text: str, language: str) -> bool:
    """Whether ``text``'s terms under ``language`` are those of its
    ``ASCII_CHUNK`` matches in order (``chunk_terms`` of each): ASCII text
    under rules without syllable pairs. No chunk spans whitespace, so the
    chunks of the text are those of its pieces (``_piece_terms``)."""
    return language in _PIECE_TERMS and text.isascii()


_PLAIN_ASCII = re.compile(r"[a-z0-9]+")
_PLAIN_THEN_STOPS = re.compile(r"[a-z0-9]+[.,]+")
# tokenize's chunk pattern on ASCII text: there, \w is [A-Za-z0-9_], and neither
# the combining marks nor U+2019 occur (tests/text/test_chunk_counts.py)
ASCII_CHUNK = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.,'+%]*")


def _path_settings(table: RuleTable) -> tuple[dict[str, tuple], dict[str, tuple]]:
    """What the fast path and the general path read from each language's
    ``Chain`` under ``table``, as tuples unpacked once per call."""
    fast: dict[str, tuple] = {}
    general: dict[str, tuple] = {}
    for language, chain in chains(table).items():
        fast[language] = (
            chain.finish,
            chain.changes_words,
            chain.changes_words and NUMBER not in chain.kept_whole,  # a plain chunk of digits is a number
            chain.possessive if _PLAIN_ASCII.fullmatch(chain.possessive) else "",  # only a plain suffix ends one
        )
        general[language] = (
            chain.finish,
            chain.changes_words,
            chain.kept_whole,
            chain.possessive,
            chain.is_ticker,
            chain.apostrophe,
            chain.cjk_gram,
            chain.syllable_pairs,
        )
    return fast, general


_FAST_PATH, _GENERAL_PATH = _path_settings(RULES)


def _same_phrase(gap: str) -> bool:
    """Two syllables are in one phrase when only spaces or tabs separate them
    (any space separator, category Zs; never a line or paragraph break)."""
    return bool(gap) and all(c == "\t" or unicodedata.category(c) == "Zs" for c in gap)


@dataclass(frozen=True)
class Analyzer:
    """A named, versioned analyzer. ``name`` is one of ``ANALYZER_NAMES``."""

    name: str = "auto"

    def __post_init__(self) -> None:
        if self.name not in ANALYZER_NAMES:
            raise InputError(
                f"unknown analyzer {self.name!r}; choose one of {', '.join(ANALYZER_NAMES)}"
            )

    def identity(self) -> dict[str, str]:
        """What determines the terms this analyzer produces."""
        return identity(RULES, self.name)

    def language_of(self, text: str) -> str:
        """The Latin-script language rules used for ``text``."""
        if self.name == AUTO:
            return detect_language(text)
        return self.name

    def analyze(self, text: str, language: str | None = None) -> list[Term]:
        """Terms of ``text`` with [start, end) offsets into ``text`` itself:
        ``_terms`` on the whole text, from pieces analysed once and cached
        (``regrag.text.piece_cache``: the same terms, offsets and order)."""
        language = language or self.language_of(text)
        if language in _PAIRED:
            return piece_cache.paired_analysis(text, language, _terms, _GENERAL_PATH[language][5], _same_phrase)
        return piece_cache.piece_analysis(text, language, _terms)

    def matches(self, text: str, wanted: frozenset[str], language: str | None = None) -> list[Term]:
        """The terms of ``analyze`` that are in ``wanted``, in its order and
        with its offsets, without building the others (provenance asks only
        where the query's terms occur)."""
        language = language or self.language_of(text)
        if language in _PAIRED:
            return piece_cache.paired_matches(text, language, _terms, _GENERAL_PATH[language][5], _same_phrase, wanted)
        settings = _GENERAL_PATH[language]
        return piece_cache.piece_matches(text, language, _terms, wanted, None if settings[1] else settings[5])

    def term_counts(self, text: str, language: str | None = None) -> Counter[str]:
        """How often each term occurs in ``text``: the same multiset as
        ``analyze`` gives, without offsets (what indexing needs).

        Outside Vietnamese rules (where a term pairs neighbouring syllables) a
        whitespace-separated piece's terms depend on the piece alone, so
        pieces are analysed once and cached. The exception is a piece that
        starts with a character NFKC may join to the one before it (a
        combining mark, a BOM): then the whole text is analysed as usual.
        Under Vietnamese rules pieces are cached too, with what pairing them
        needs (``_paired_term_counts``)."""
        language = language or self.language_of(text)
        if language not in _PIECE_TERMS:  # syllable pairs: a piece's terms depend on its neighbours
            if language in _PAIRED:
                return piece_cache.paired_term_counts(text, language, _terms, _GENERAL_PATH[language][5], _same_phrase)
            return Counter(term for term, _s, _e in self.analyze(text, language))
        pieces = text.split()
        if not text.isascii() and any(piece[0] == BYTE_ORDER_MARK or _joins(piece[0]) for piece in pieces):
            return Counter(term for term, _s, _e in self.analyze(text, language))
        cache = _PIECE_TERMS[language]
        found = list(map(cache.get, pieces))  # each piece's cached terms (in C), None where not cached yet
        if None in found:  # analyse the missing pieces only (their places picked in C)
            for number in itertools.compress(itertools.count(), map(operator.is_, found, itertools.repeat(None))):
                piece = pieces[number]
                terms = cache.get(piece)  # an earlier repeat of the piece in this text
                if terms is None:
                    terms = _piece_terms(piece, language)
                    if len(cache) < PIECE_CACHE_SIZE:
                        cache[piece] = terms
                found[number] = terms
        return Counter(itertools.chain.from_iterable(found))


def _terms(original: str, normalized: NormalizedText, language: str) -> Iterable[Term]:
    """The general path: every rule of ``language``'s ``Chain``, with offsets."""
    finish, rewrites_words, kept_whole, possessive, is_ticker, apostrophe, gram, pairs = _GENERAL_PATH[language]
    cut = len(possessive)
    norm = normalized.text
    span = normalized.original_span
    previous: tuple[str, int, int, int] | None = None  # term, start, end, normalised end
    for kind, start, end in tokenize(norm):
        if kind == CJK_RUN:
            previous = None
            if end - start <= gram:
                yield (norm[start:end], *span(start, end))
                continue
            for position in range(start, end - gram + 1):
                yield (norm[position : position + gram], *span(position, position + gram))
            continue
        term = norm[start:end]
        if apostrophe:
            term = term.replace(apostrophe, "'")
        original_start, original_end = span(start, end)
        if rewrites_words and kind not in kept_whole:
            surface = original[original_start:original_end]
            if possessive and term.endswith(possessive) and not is_ticker(surface):
                term = term[:-cut]
                if not term:
                    continue
                original_start, original_end = span(start, end - cut)
                surface = original[original_start:original_end]
            term = finish(term, surface)
            if term is None:
                continue
        yield (term, original_start, original_end)
        if pairs:
            if previous is not None and _same_phrase(norm[previous[3] : start]):
                yield (f"{previous[0]} {term}", previous[1], original_end)
            previous = (term, original_start, original_end, end)

