"""Which Latin-script rules ``auto`` applies to a text: ``vi`` or ``en``.

``detect_language`` is a pure function of the text: ``vi`` when the text has a letter
that only Vietnamese uses among Latin scripts and enough of its letters carry
diacritics, else ``en``. It runs in linear time (runs of joining characters are cut
as analysis cuts them, see ``normalize.cap_joining_runs``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from regrag.text.normalize import cap_joining_runs
from regrag.text.scripts import has_astral, mark_class
from regrag.text.unicode_tables import VIETNAMESE_NFD_CHECK, characters

# Marks that, on a Latin letter, only Vietnamese uses among Latin-script
# languages: hook above, dot below, horn.
_VIETNAMESE_MARKS = frozenset("\u0309\u0323\u031b")
_BREVE, _TILDE = "\u0306", "\u0303"
_VIETNAMESE_LETTERS = frozenset("đĐ")


@lru_cache(maxsize=2)
def _maybe_vietnamese(astral: bool = True) -> re.Pattern[str]:
    """A necessary condition for a Vietnamese-only letter in NFD text: đ, one
    of the three marks, two combining marks in a row (every character with a
    nonzero combining class is in category M), a breve on a, a tilde on e i u y."""
    return re.compile(VIETNAMESE_NFD_CHECK.format(marks=mark_class(astral)))


@lru_cache(maxsize=1)
def _vietnamese_triggers() -> frozenset[str]:
    """Characters one of which raw text must contain for ``detect_language``
    to find evidence: a combining mark (it may stack after decomposition), đ/Đ,
    or a character whose NFD meets the NFD condition (ệ, ơ, ă, ...; found by
    decomposing every BMP character that has a decomposition: outside the BMP
    none decomposes to a Latin letter, which evidence needs; the set is
    ``unicode_tables``' ``vietnamese_triggers``). A set, because testing a
    string against it runs in C far faster than a huge regex class."""
    return frozenset(characters("vietnamese_triggers"))


def _is_vietnamese_letter(letter: str, marks: str) -> bool:
    if letter in _VIETNAMESE_LETTERS:
        return True
    if any(mark in _VIETNAMESE_MARKS for mark in marks) or len(marks) >= 2:
        return True  # stacked marks (ấ, ệ, ở) are Vietnamese too
    lower = letter.lower()
    return (_BREVE in marks and lower == "a") or (_TILDE in marks and lower in "eiuy")


def detect_language(text: str) -> str:
    """``vi`` when the text has at least one Vietnamese-only letter (đ; a
    hook above, dot below or horn; two stacked marks; ă; ẽ ĩ ũ ỹ) and at
    least 1 in 25 of its Latin letters carries a diacritic (Vietnamese marks
    most syllables, 1 in 7 letters or more; an English text quoting a
    Vietnamese name has far fewer);
    else ``en``. Pure function of the text."""
    if text.isascii() or _vietnamese_triggers().isdisjoint(text):
        return "en"
    # as in analysis, joining characters after the 30th of a run do not count;
    # and NFD of a long run of marks is quadratic (CPython sorts it by insertion)
    decomposed = unicodedata.normalize("NFD", cap_joining_runs(text))
    if _maybe_vietnamese(has_astral(decomposed)).search(decomposed) is None:
        return "en"  # no candidate for a Vietnamese-only letter at all: the count below would find none
    return _language_by_letters(decomposed)


@lru_cache(maxsize=1)
def _letter_patterns() -> tuple[dict[int, str], re.Pattern[str]]:
    """What the letter count of ``detect_language`` looks for over NFD text:
    a ``str.translate`` table that writes every letter (a character whose
    lower case is between "a" and "z", or đ/Đ: ``unicode_tables``'
    ``latin_letters``) as ``\x01`` and every combining mark (nonzero
    combining class) as ``\x02`` (and ``\x01``, ``\x02`` themselves as
    ``\x00``), so that the letters and the letters with a mark after them are
    counted in C (``str.count``); and a regular expression for evidence of
    Vietnamese (``_is_vietnamese_letter`` on a letter and the run of marks
    after it: đ, a run of two marks or more, a first mark that only Vietnamese
    uses, ă, a tilde on e i u y). The character sets are those the letter loop
    tests (tests/text/test_language_letters.py holds both equal)."""
    letters = characters("latin_letters")
    combining = characters("combining")
    table = {1: "\x00", 2: "\x00"}
    table.update(dict.fromkeys(map(ord, combining), "\x02"))
    table.update(dict.fromkeys(map(ord, letters), "\x01"))
    breve_letters = [character for character in letters if character.lower() == "a"]
    tilde_letters = [character for character in letters if character.lower() in "eiuy"]
    letter = _character_class(list(letters))
    mark = _character_class(list(combining))
    evidence = (f"[{re.escape(''.join(sorted(_VIETNAMESE_LETTERS)))}]|{letter}{mark}{{2}}"
                f"|{letter}[{re.escape(''.join(sorted(_VIETNAMESE_MARKS)))}]"
                f"|{_character_class(breve_letters)}{_BREVE}|{_character_class(tilde_letters)}{_TILDE}")
    return table, re.compile(evidence)


def _character_class(characters: list[str]) -> str:
    return "[" + "".join(re.escape(character) for character in characters) + "]"


def _language_by_letters(decomposed: str) -> str:
    """The letter count behind ``detect_language``, on NFD text: every
    letter, how many carry a mark, and whether one is Vietnamese-only."""
    table, evidence = _letter_patterns()
    if evidence.search(decomposed) is None:
        return "en"
    coded = decomposed.translate(table)
    letters = coded.count("\x01")
    marked = coded.count("\x01\x02")  # a mark is never a letter: these never overlap
    return "vi" if marked * 25 >= letters else "en"


def _language_by_letters_loop(decomposed: str) -> str:
    """The letter count as a loop over the characters: what ``_language_by_letters``
    computes (kept as the reference the tests compare it with)."""
    evidence = 0
    letters = 0
    marked = 0
    position = 0
    length = len(decomposed)
    while position < length:
        character = decomposed[position]
        position += 1
        if not ("a" <= character.lower() <= "z" or character in _VIETNAMESE_LETTERS):
            continue
        start = position
        while position < length and unicodedata.combining(decomposed[position]):
            position += 1
        letters += 1
        if position > start:
            marked += 1
        if _is_vietnamese_letter(character, decomposed[start:position]):
            evidence += 1
    return "vi" if evidence >= 1 and marked * 25 >= letters else "en"
