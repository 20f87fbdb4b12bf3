"""The analyzer: text in, ``(term, start, end)`` out, offsets into the original.

One analyzer is chosen per index; its ``identity()`` (name, version, rules,
Unicode version) is part of the index id and of every provenance record.

Latin-script handling by language:
- ``en``: possessive ``'s`` removed, Lucene's 33 English stopwords dropped,
  Porter (1980) stemming of words made of ASCII letters only.
- ``vi``: each syllable is a term, plus each pair of adjacent syllables within
  a phrase (separated by whitespace only) as ``"syllable1 syllable2"``; no
  stemming, no stopwords.
- ``zh``: Latin-script words casefolded only (product codes, names).

Under every language, CJK runs become overlapping character bigrams (a
one-character run gives that character), numbers stay whole, and an
all-capitals token of 2–5 letters in the original (a ticker such as ``IT``,
``ON``, ``HPG``) is neither stemmed nor dropped.

``auto`` picks ``vi`` or ``en`` per text: ``vi`` when the text has letters
that only Vietnamese uses among Latin scripts (see ``detect_language``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from regrag.errors import InputError
from regrag.text.language import detect_language
from regrag.text.normalize import BYTE_ORDER_MARK, NormalizedText, _joins, normalize_with_offsets
from regrag.text.porter import stem
from regrag.text.stopwords import LUCENE_ENGLISH_STOPWORDS, STOPWORD_SET_NAME
from regrag.text.tokenize import CJK_RUN, WORD, tokenize

ANALYZER_VERSION = "2"
ANALYZER_NAMES = ("auto", "en", "vi", "zh")

Term = tuple[str, int, int]

PIECE_CACHE_SIZE = 1 << 18
# Terms of a whitespace-separated piece under "en" and "zh" rules (bounded: filled, never evicted).
# Every str.isspace() character is safe to split at: none is a joiner and NFKC maps each to whitespace.
_PIECE_TERMS: dict[str, dict[str, tuple[str, ...]]] = {"en": {}, "zh": {}}


def clear_piece_cache() -> None:
    """Forget the cached terms of pieces (memory only; results never depend on it)."""
    for cache in _PIECE_TERMS.values():
        cache.clear()


def _piece_terms(piece: str, language: str) -> tuple[str, ...]:
    """Terms of one whitespace-free piece under ``en``/``zh`` rules. In ASCII,
    a chunk of plain letters and digits (most of them) is one token, handled
    here directly by the rules of ``_terms``; any other chunk goes through
    ``_terms`` itself (a chunk's terms never depend on its neighbours)."""
    if not piece.isascii():
        return tuple(term for term, _s, _e in _terms(piece, normalize_with_offsets(piece), language))
    lower = piece.lower()
    found: list[str] = []
    for match in _chunk_pattern().finditer(lower):
        chunk = match.group()
        start, end = match.span()
        if not _PLAIN_ASCII.fullmatch(chunk):
            original = piece[start:end]
            found.extend(term for term, _s, _e in _terms(original, normalize_with_offsets(original), language))
        elif chunk.isdigit() or language == "zh" or _is_ticker(piece[start:end]):
            found.append(chunk)
        elif chunk not in LUCENE_ENGLISH_STOPWORDS:
            found.append(stem(chunk) if chunk.isalpha() else chunk)
    return tuple(found)


_PLAIN_ASCII = re.compile(r"[a-z0-9]+")


def _chunk_pattern() -> re.Pattern[str]:
    from regrag.text.tokenize import _patterns

    return _patterns()[0]


def _same_phrase(gap: str) -> bool:
    """Two syllables are in one phrase when only spaces or tabs separate them
    (any space separator, category Zs; never a line or paragraph break)."""
    return bool(gap) and all(c == "\t" or unicodedata.category(c) == "Zs" for c in gap)


def _is_ticker(surface: str) -> bool:
    return 2 <= len(surface) <= 5 and surface.isalpha() and surface.isupper()


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
        return {
            "name": self.name,
            "version": ANALYZER_VERSION,
            "normalization": "NFKC+casefold",
            "stemmer": "porter-1980",
            "stopwords": STOPWORD_SET_NAME,
            "cjk": "bigrams",
            "unicode": unicodedata.unidata_version,
        }

    def language_of(self, text: str) -> str:
        """The Latin-script language rules used for ``text``."""
        if self.name == "auto":
            return detect_language(text)
        return self.name

    def analyze(self, text: str, language: str | None = None) -> list[Term]:
        """Terms of ``text`` with [start, end) offsets into ``text`` itself."""
        normalized = normalize_with_offsets(text)
        return list(_terms(text, normalized, language or self.language_of(text)))

    def term_counts(self, text: str, language: str | None = None) -> Counter[str]:
        """How often each term occurs in ``text``: the same multiset as
        ``analyze`` gives, without offsets (what indexing needs).

        Outside Vietnamese rules (where a term pairs neighbouring syllables) a
        whitespace-separated piece's terms depend on the piece alone, so
        pieces are analysed once and cached. The exception is a piece that
        starts with a character NFKC may join to the one before it (a
        combining mark, a BOM): then the whole text is analysed as usual."""
        language = language or self.language_of(text)
        if language == "vi":
            return Counter(term for term, _s, _e in self.analyze(text, language))
        pieces = text.split()
        if not text.isascii() and any(piece[0] == BYTE_ORDER_MARK or _joins(piece[0]) for piece in pieces):
            return Counter(term for term, _s, _e in self.analyze(text, language))
        found: list[str] = []
        extend = found.extend
        cache = _PIECE_TERMS[language]
        get = cache.get
        for piece in pieces:
            terms = get(piece)
            if terms is None:
                terms = _piece_terms(piece, language)
                if len(cache) < PIECE_CACHE_SIZE:
                    cache[piece] = terms
            extend(terms)
        return Counter(found)


def _terms(original: str, normalized: NormalizedText, language: str) -> Iterable[Term]:
    norm = normalized.text
    span = normalized.original_span
    previous: tuple[str, int, int, int] | None = None  # term, start, end, normalised end
    for kind, start, end in tokenize(norm):
        if kind == CJK_RUN:
            previous = None
            if end - start == 1:
                yield (norm[start:end], *span(start, end))
                continue
            for position in range(start, end - 1):
                yield (norm[position : position + 2], *span(position, position + 2))
            continue
        term = norm[start:end].replace("\u2019", "'")
        original_start, original_end = span(start, end)
        if language == "vi":
            yield (term, original_start, original_end)
            if previous is not None and _same_phrase(norm[previous[3] : start]):
                yield (f"{previous[0]} {term}", previous[1], original_end)
            previous = (term, original_start, original_end, end)
            continue
        if kind != WORD or _is_ticker(original[original_start:original_end]):
            yield (term, original_start, original_end)
            continue
        if language == "zh":
            yield (term, original_start, original_end)
            continue
        if term.endswith("'s"):
            term = term[:-2]
            if not term:
                continue
            original_start, original_end = span(start, end - 2)
            if _is_ticker(original[original_start:original_end]):
                yield (term, original_start, original_end)
                continue
        if term in LUCENE_ENGLISH_STOPWORDS:
            continue
        if term.isascii() and term.isalpha():
            term = stem(term)
        yield (term, original_start, original_end)
