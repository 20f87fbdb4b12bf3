"""Which whitespace-separated pieces provenance may pass over unanalysed.

``Analyzer.matches`` (``regrag.text.piece_cache``) wants only the query's
terms of a passage. Under rules that change no word, a piece that
normalises to itself and holds no space-separated chunk of a wanted term
(apostrophes written ``'``) gives no wanted term and no part of one: every
term, and each half of a pair, is a substring of the normalised piece.
``wanted_pieces`` finds, for a whole passage and with C-level calls only
(one ``re.finditer`` over the text, set operations on its characters), the
pieces that are *not* so: the ones the walk must look at. The walk then
jumps from one to the next instead of visiting every piece
(tests/text/test_matches.py holds the result equal to the full analysis).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Callable, Iterable, Sequence

from regrag.text.normalize import BYTE_ORDER_MARK, _joins, normalize_term

_STABLE: set[str] = set()  # characters that are a segment of their own and normalise to themselves
_UNSTABLE: set[str] = set()  # the others
# of _UNSTABLE, the characters that are a segment of their own and normalise to one other character
# that is stable (an upper-case letter, most often), by code point: a str.translate table
_FOLDS: dict[int, str] = {}


def _one_stable(character: str) -> bool:
    if character < "\x80":
        return character.lower() == character
    return character != BYTE_ORDER_MARK and not _joins(character) and normalize_term(character) == character


def _classify(characters: set[str]) -> None:
    """File each of ``characters`` under ``_STABLE`` or ``_UNSTABLE`` (and ``_FOLDS``)."""
    for character in characters.difference(_STABLE, _UNSTABLE):
        if _one_stable(character):
            _STABLE.add(character)
            continue
        _UNSTABLE.add(character)
        if character == BYTE_ORDER_MARK or _joins(character):
            continue
        folded = character.lower() if character < "\x80" else normalize_term(character)
        if len(folded) == 1 and _one_stable(folded):
            _FOLDS[ord(character)] = folded


def normalises_to_itself(piece: str) -> bool:
    """Whether ``normalize_with_offsets(piece).text == piece``, offsets the
    identity, shown character by character: no character is a joiner or a BOM
    (so each is a segment of its own) and each segment's ``normalize_term``
    (``lower`` for ASCII) is itself. False may also mean "not shown"."""
    if piece.isascii():
        return piece == piece.lower()
    if _STABLE.issuperset(piece):
        return True
    _classify(set(piece))
    return _STABLE.issuperset(piece)


def _chunks(wanted: frozenset[str]) -> list[str] | None:
    chunks = {chunk for term in wanted for chunk in term.split(" ")}
    if not chunks or "" in chunks:
        return None
    return sorted(chunks)


def chunk_finder(wanted: frozenset[str]) -> Callable[[str], object] | None:
    """``search`` of a pattern of every space-separated chunk of the wanted
    terms (None if one is empty)."""
    chunks = _chunks(wanted)
    return None if chunks is None else re.compile("|".join(map(re.escape, chunks))).search


def skippable(piece: str, find: Callable[[str], object] | None, apostrophe: str) -> bool:
    """Whether ``piece`` can be passed over without analysis."""
    if find is None or not piece or not normalises_to_itself(piece):
        return False
    return find(piece.replace(apostrophe, "'") if apostrophe else piece) is None


def _pieces_holding(text: str, needles: Iterable[str], starts: Sequence[int], found: set[int]) -> None:
    """Add to ``found`` the number of every piece in which one of ``needles``
    (no whitespace in any) occurs: each needle is searched with ``str.find``,
    one occurrence at a time (an occurrence overlapping the one before lies
    in the same piece, so none is missed)."""
    for needle in needles:
        at = text.find(needle)
        while at >= 0:
            found.add(bisect_right(starts, at) - 1)
            at = text.find(needle, at + len(needle))


def wanted_pieces(text: str, pieces: Sequence[str], starts: Sequence[int], wanted: frozenset[str],
                  apostrophe: str) -> list[int] | None:
    """The numbers (ascending) of the pieces of ``text`` that may hold a
    wanted term or a part of one: empty pieces, pieces with a character that
    neither normalises to itself nor folds to one stable character (a joiner,
    a ligature, ...), and pieces whose normalised text (apostrophes written
    ``'``) holds a chunk of a wanted term; every other piece is passed over. ``pieces`` and ``starts``: the text's pieces and
    where each starts. None when nothing may be skipped (a chunk is empty, or
    the apostrophe is not one character)."""
    chunks = _chunks(wanted)
    if chunks is None or len(apostrophe) > 1 or not pieces:
        return None
    characters = set(text)
    _classify(characters)
    # only the first and the last piece can be empty (whitespace at either end of the text)
    found = {number for number in (0, len(pieces) - 1) if not pieces[number]}
    unstable = characters.intersection(_UNSTABLE)
    _pieces_holding(text, sorted(character for character in unstable if ord(character) not in _FOLDS), starts, found)
    # A piece of stable and folding characters normalises character by character (each is a
    # segment of its own) to the piece with every folding character replaced by its fold: the
    # chunks are looked for in that text (one character for one, so the same offsets).
    searched = text.translate(_FOLDS) if unstable else text
    searched = searched.replace(apostrophe, "'") if apostrophe else searched
    _pieces_holding(searched, chunks, starts, found)
    return sorted(found)
