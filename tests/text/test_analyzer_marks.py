"""Offsets and normalisation around characters that join the character before them.

Combining marks, half-width katakana sound marks (U+FF9E/U+FF9F) and Hangul vowel/final jamo
normalise together with the character before them when NFKC composes them (``e`` + U+0301 ->
``é``, ``ｶﾞ`` -> ``ガ``, ``ᄀ`` + ``ᅡ`` -> ``가``). When they follow a character that is not part
of any term (a space, punctuation), the term they form must still report its own surface:
``text[start:end]`` must not take in the punctuation before it.

The rule (``regrag/text/normalize.py``): the joining run belongs to the character before it
when that character is a letter or digit, or when NFKC composes the two (``=`` + U+0338 -> ``≠``).
"""

from __future__ import annotations

import pytest

from regrag.text.analyzer import Analyzer
from regrag.text.normalize import normalize_term, normalize_with_offsets


def analyze(text: str) -> list[tuple[str, int, int]]:
    return Analyzer("zh").analyze(text)


# --- What works (fixed for ASCII bases) --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  \u0301", [("\u0301", 2, 3)]),
        ("x.\u0301", [("x", 0, 1), ("\u0301", 2, 3)]),
        ("a \uff9e", [("a", 0, 1), ("\u3099", 2, 3)]),
        ("cafe\u0301", [("caf\u00e9", 0, 5)]),  # a mark after an ASCII letter composes
        ("\uff76\uff9e\uff7d", [("\u30ac\u30b9", 0, 3)]),  # ｶﾞｽ -> ガス
    ],
)
def test_marks_after_ascii(text: str, expected: list[tuple[str, int, int]]) -> None:
    assert analyze(text) == expected


# --- Fixed: non-ASCII punctuation bases, and symbols that compose -------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\u2019\u0301", [("\u0301", 1, 2)]),  # typographic apostrophe + acute
        ("\u2019\uff9e", [("\u3099", 1, 2)]),  # typographic apostrophe + half-width voiced mark
        ("\u00a0\u0301", [("\u0301", 1, 2)]),  # no-break space + acute
        ("\u00b7\u0301", [("\u0301", 1, 2)]),  # middle dot + acute
        ("\u300c\uff9e", [("\u3099", 1, 2)]),  # corner bracket + half-width voiced mark
        ("\u2019\u1161", [("\u1161", 1, 2)]),  # typographic apostrophe + Hangul vowel jamo
    ],
)
def test_marks_after_non_ascii_punctuation_keep_their_own_offsets(
    text: str, expected: list[tuple[str, int, int]]
) -> None:
    assert analyze(text) == expected


@pytest.mark.parametrize(
    ("text", "normalized", "terms"),
    [
        ("=\u0338", "\u2260", []),
        ("a<\u0338b", "a\u226eb", [("a", 0, 1), ("b", 3, 4)]),
        ("x>\u0338", "x\u226f", [("x", 0, 1)]),
    ],
)
def test_ascii_symbol_and_combining_overlay_compose(
    text: str, normalized: str, terms: list[tuple[str, int, int]]
) -> None:
    assert normalize_term(text) == normalized
    assert normalize_with_offsets(text).text == normalized
    assert analyze(text) == terms


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A\uff9e", [("a", 0, 1), ("\u3099", 1, 2)]),
        ("x\u1161", [("x", 0, 1), ("\u1161", 1, 2)]),
        ("0\u1160", [("0", 0, 1), ("\u1160", 1, 2)]),
    ],
)
def test_joining_characters_after_ascii_do_not_merge_without_composition(
    text: str, expected: list[tuple[str, int, int]]
) -> None:
    assert analyze(text) == expected
    normalized = normalize_with_offsets(text)
    assert normalized.original_span(0, 1) == (0, 1)
