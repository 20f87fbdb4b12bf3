"""Split normalised text into raw tokens: numbers, words and CJK runs.

Works on a ``NormalizedText`` and returns ``RawToken``s whose positions are
offsets into the *normalised* text; the analyzer maps them back to the
original. The scan is linear: one regular expression with a single character
class finds chunks, and a small loop merges the pieces of each chunk, so no
input can make it backtrack.

Rules (docs/analysis.md):
- a number is digits with ``.``/``,`` between digit groups and an optional
  trailing ``%``: ``3.45%``, ``1,250.5``, ``12.000`` stay whole;
- ``T+1``: letters, ``+``, digits stay whole;
- letters and digits together stay whole: ``5G``, ``VN30``;
- words may contain apostrophes between letters (``company's``);
- CJK runs (Han, Hiragana, Katakana, Hangul) are separate tokens, split where
  the script changes, and never joined to digits or Latin letters.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from regrag.text.scripts import HAS_CJK, SCRIPT_RUN, has_astral, mark_class

NUMBER = "number"
PLUS = "plus"
WORD = "word"
CJK_RUN = "cjk"

_NUMBER_JOINERS = frozenset(".,")
_APOSTROPHES = frozenset("'\u2019")


class RawToken(NamedTuple):
    """A token's kind and its [start, end) in the normalised text."""

    kind: str
    start: int
    end: int


@lru_cache(maxsize=2)
def _patterns(astral: bool = True) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The chunk and atom patterns; ``astral=False``: for text without a
    character beyond the BMP (``scripts.has_astral``), the same matches, faster."""
    marks = mark_class(astral)
    chunk = re.compile(f"[\\w{marks}][\\w{marks}.,'\u2019+%]*")
    atom = re.compile(f"(?P<word>(?:[^\\W_]|[{marks}])+)|(?P<separator>.)", re.DOTALL)
    return chunk, atom


_ASCII_WORD = re.compile(r"[a-z0-9]+")


def _atoms(text: str, start: int, end: int, atom_pattern: re.Pattern[str]) -> list[tuple[str, int, int]]:
    """Pieces of one chunk: ``('w', s, e)`` a non-CJK word run, ``('c', s, e)``
    a run of one CJK script, or ``(separator, s, e)`` for one joiner character."""
    atoms: list[tuple[str, int, int]] = []
    for match in atom_pattern.finditer(text, start, end):
        s, e = match.span()
        if match.lastgroup == "separator":
            atoms.append((match.group(), s, e))
            continue
        piece = match.group()
        if HAS_CJK.search(piece) is None:
            atoms.append(("w", s, e))
            continue
        for run in SCRIPT_RUN.finditer(piece):
            kind = "w" if run.lastgroup == "other" else "c"
            atoms.append((kind, s + run.start(), s + run.end()))
    return atoms


def tokenize(text: str) -> list[RawToken]:
    """Raw tokens of normalised ``text`` in order of position."""
    chunk_pattern, atom_pattern = _patterns(not text.isascii() and has_astral(text))
    tokens: list[RawToken] = []
    append = tokens.append
    for chunk in chunk_pattern.finditer(text):
        start, end = chunk.span()
        if _ASCII_WORD.fullmatch(text, start, end):
            piece = chunk.group()
            append(RawToken(NUMBER if piece.isdigit() else WORD, start, end))
            continue
        _merge_atoms(text, _atoms(text, start, end, atom_pattern), append)
    return tokens


def _merge_atoms(text: str, atoms: list[tuple[str, int, int]], append) -> None:
    count = len(atoms)
    index = 0
    while index < count:
        kind, start, end = atoms[index]
        if kind == "c":
            append(RawToken(CJK_RUN, start, end))
            index += 1
            continue
        if kind != "w":
            index += 1
            continue
        piece = text[start:end]
        if piece.isdecimal():
            while (
                index + 2 < count
                and atoms[index + 1][0] in _NUMBER_JOINERS
                and atoms[index + 2][0] == "w"
                and text[atoms[index + 2][1] : atoms[index + 2][2]].isdecimal()
            ):
                index += 2
                end = atoms[index][2]
            if index + 1 < count and atoms[index + 1][0] == "%":
                index += 1
                end = atoms[index][2]
            append(RawToken(NUMBER, start, end))
            index += 1
            continue
        if (
            index + 2 < count
            and atoms[index + 1][0] == "+"
            and atoms[index + 2][0] == "w"
            and not any(ch.isdigit() for ch in piece)
            and text[atoms[index + 2][1] : atoms[index + 2][2]].isdecimal()
        ):
            append(RawToken(PLUS, start, atoms[index + 2][2]))
            index += 3
            continue
        while (
            index + 2 < count
            and atoms[index + 1][0] in _APOSTROPHES
            and atoms[index + 2][0] == "w"
        ):
            index += 2
            end = atoms[index][2]
        append(RawToken(WORD, start, end))
        index += 1
