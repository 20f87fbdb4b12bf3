"""Analysis from cached pieces: the general path's terms, offsets and order,
with each whitespace-separated piece analysed once.

A piece's tokens, and so its terms and their offsets relative to the piece,
depend on the piece alone: no token spans whitespace, and whitespace
normalises on its own, unless the piece starts with a character NFKC may join
to the one before it (a combining mark) or a BOM; then the whole text goes
through the general path (``general``). So ``piece_analysis`` (every
language without syllable pairs) shifts each piece's cached terms by the
piece's start. Under rules with syllable pairs and no word rules
(Vietnamese), only the pair of the last syllable before a gap and the first
after it depends on both sides: ``PairedPiece`` keeps, with a piece's terms,
what deciding it needs, and ``paired_term_counts`` / ``paired_analysis``
join the pieces as ``analyzer._terms`` does on the whole text (the pair comes
right after the second syllable's own term). The caches are bounded (filled,
never evicted) and change no result. tests/text/test_term_counts_paired.py
holds every path equal to the general one, offsets and order included.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import accumulate
from typing import Callable, Iterable, NamedTuple

from regrag.text.normalize import BYTE_ORDER_MARK, NormalizedText, _joins, normalize_with_offsets
from regrag.text.skipped_pieces import chunk_finder, normalises_to_itself, skippable, wanted_pieces
from regrag.text.tokenize import CJK_RUN, tokenize

_normalises_to_itself = normalises_to_itself  # (the name tests/text/test_matches.py checks)

CACHE_SIZE = 1 << 18  # pieces per language and cache
Term = tuple[str, int, int]
# the general path: (original text, its NormalizedText, language) -> terms with offsets
General = Callable[[str, NormalizedText, str], Iterable[Term]]
SamePhrase = Callable[[str], bool]  # whether a normalised gap keeps two syllables in one phrase

_WHITESPACE_RUN = re.compile(r"(\s+)")  # \s is str.isspace() (tests/text/test_term_counts_paired.py)


class PairedPiece(NamedTuple):
    """One piece analysed alone under rules with syllable pairs and no word
    rules, and what pairing it with its neighbours needs.

    ``terms`` and ``spans``: its terms in ``_terms`` order (pairs inside the
    piece included) and their [start, end) in the piece. ``head``: the term of
    its first token when that token is not a CJK run (it may pair with the
    syllable before the piece; it is ``terms[0]``), else None; ``lead``: the
    normalised text before that token. ``tail``: the term of its last token
    unless that is a CJK run (None then: a CJK run ends every phrase),
    ``tail_start`` where that token starts in the piece, ``trail`` the
    normalised text after it. ``through``: the piece has no token at all, so
    the syllable before it may still pair with the one after it, across
    ``trail`` (the whole normalised piece)."""

    terms: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    head: str | None
    lead: str
    tail: str | None
    tail_start: int
    trail: str
    through: bool


_PAIRED: dict[str, dict[str, PairedPiece]] = {}  # language -> piece -> its PairedPiece
_ANALYSED: dict[str, dict[str, tuple[Term, ...]]] = {}  # language -> piece -> its terms with offsets
_PHRASE_GAPS: dict[str, bool] = {}  # normalised gap -> same phrase


def clear() -> None:
    """Forget every cached piece (memory only)."""
    for caches in (_PAIRED, _ANALYSED):
        for cache in caches.values():
            cache.clear()
    _PHRASE_GAPS.clear()


def _starts_joined(piece: str) -> bool:
    return piece[0] == BYTE_ORDER_MARK or _joins(piece[0])


def _paired_piece(piece: str, language: str, general: General, apostrophe: str) -> PairedPiece:
    """``PairedPiece`` of ``piece`` (no word rules: every non-CJK token's term
    is its normalised text, ``apostrophe`` written ``'``)."""
    normalized = normalize_with_offsets(piece)
    found = list(general(piece, normalized, language))
    terms = tuple(term for term, _s, _e in found)
    spans = tuple((start, end) for _t, start, end in found)
    norm = normalized.text
    tokens = tokenize(norm)
    if not tokens:
        return PairedPiece(terms, spans, None, "", None, 0, norm, True)
    first, last = tokens[0], tokens[-1]
    head = tail = None
    tail_start = 0
    if first.kind != CJK_RUN:
        head = norm[first.start : first.end]
        head = head.replace(apostrophe, "'") if apostrophe else head
    if last.kind != CJK_RUN:
        tail = norm[last.start : last.end]
        tail = tail.replace(apostrophe, "'") if apostrophe else tail
        tail_start = normalized.original_span(last.start, last.end)[0]
    return PairedPiece(terms, spans, head, norm[: first.start], tail, tail_start, norm[last.end :], False)


def _shape(cache: dict[str, PairedPiece], piece: str, language: str, general: General,
           apostrophe: str) -> PairedPiece | None:
    """The cached ``PairedPiece``, or None for a piece that starts joined (never cached)."""
    shape = cache.get(piece)
    if shape is None:
        if _starts_joined(piece):
            return None
        shape = _paired_piece(piece, language, general, apostrophe)
        if len(cache) < CACHE_SIZE:
            cache[piece] = shape
    return shape


def _same_phrase(gap: str, same_phrase: SamePhrase) -> bool:
    found = _PHRASE_GAPS.get(gap)
    if found is None:
        found = same_phrase(gap)
        if len(_PHRASE_GAPS) < CACHE_SIZE:
            _PHRASE_GAPS[gap] = found
    return found


def _normalized_gap(gap: str) -> str:
    return gap if gap.isascii() else normalize_with_offsets(gap).text


def paired_term_counts(text: str, language: str, general: General, apostrophe: str,
                       same_phrase: SamePhrase) -> Counter[str]:
    """How often each term of ``text`` occurs (``language``: syllable pairs, no word rules)."""
    parts = _WHITESPACE_RUN.split(text)  # piece, whitespace, piece, ..., piece (first and last may be "")
    pieces, gaps = parts[0::2], parts[1::2]
    cache = _PAIRED.setdefault(language, {})
    phrase_gaps = _PHRASE_GAPS
    found: list[str] = []
    append, extend = found.append, found.extend
    carry: str | None = None  # the last syllable so far that a later one may pair with
    carry_gap = ""  # the normalised text after it
    for number, piece in enumerate(pieces):
        shape = cache.get(piece)
        if shape is None:
            shape = _shape(cache, piece, language, general, apostrophe) if piece else _EMPTY
            if shape is None:
                return Counter(term for term, _s, _e in general(text, normalize_with_offsets(text), language))
        terms, _spans, head, lead, tail, _tail_start, trail, through = shape
        if carry is not None and (head is not None or through):
            gap = carry_gap + _normalized_gap(gaps[number - 1]) + lead
            if through:
                carry_gap = gap + trail
                continue
            same = phrase_gaps.get(gap)
            if same is None:
                same = _same_phrase(gap, same_phrase)
            if same:
                append(terms[0])
                append(f"{carry} {head}")
                extend(terms[1:])
                carry, carry_gap = tail, trail
                continue
        extend(terms)
        if not through:
            carry, carry_gap = tail, trail
    return Counter(found)


_EMPTY = PairedPiece((), (), None, "", None, 0, "", True)


def paired_analysis(text: str, language: str, general: General, apostrophe: str,
                    same_phrase: SamePhrase) -> list[Term]:
    """Terms of ``text`` with offsets into it (``language``: syllable pairs, no word rules)."""
    parts = _WHITESPACE_RUN.split(text)  # piece, whitespace, piece, ..., piece (first and last may be "")
    cache = _PAIRED.setdefault(language, {})
    phrase_gaps = _PHRASE_GAPS
    found: list[Term] = []
    append, extend = found.append, found.extend
    carry: str | None = None  # the last syllable so far that a later one may pair with,
    carry_start = 0  # where it starts in the text,
    carry_gap = ""  # and the normalised text after it
    start = 0  # where the piece starts in the text
    gap = ""
    for number in range(0, len(parts), 2):
        piece = parts[number]
        if number:
            gap = parts[number - 1]
            start += len(parts[number - 2]) + len(gap)
        shape = cache.get(piece)
        if shape is None:
            shape = _shape(cache, piece, language, general, apostrophe) if piece else _EMPTY
            if shape is None:
                return list(general(text, normalize_with_offsets(text), language))
        terms, spans, head, lead, tail, tail_start, trail, through = shape
        items = [(term, start + s, start + e) for term, (s, e) in zip(terms, spans)]
        if carry is not None and (head is not None or through):
            gap = carry_gap + _normalized_gap(gap) + lead
            if through:
                carry_gap = gap + trail
                continue
            same = phrase_gaps.get(gap)
            if same is None:
                same = _same_phrase(gap, same_phrase)
            if same:
                first = items[0]
                append(first)
                append((f"{carry} {head}", carry_start, first[2]))
                extend(items[1:])
                carry, carry_start, carry_gap = tail, start + tail_start, trail
                continue
        extend(items)
        if not through:
            carry, carry_start, carry_gap = tail, start + tail_start, trail
    return found


def piece_analysis(text: str, language: str, general: General) -> list[Term]:
    """Terms of ``text`` with offsets into it (``language``: no syllable pairs)."""
    parts = _WHITESPACE_RUN.split(text)
    cache = _ANALYSED.setdefault(language, {})
    found: list[Term] = []
    extend = found.extend
    start = 0
    for number in range(0, len(parts), 2):
        piece = parts[number]
        if number:
            start += len(parts[number - 2]) + len(parts[number - 1])
        terms = cache.get(piece)
        if terms is None:
            if not piece:
                continue
            if _starts_joined(piece):
                return list(general(text, normalize_with_offsets(text), language))
            terms = tuple(general(piece, normalize_with_offsets(piece), language))
            if len(cache) < CACHE_SIZE:
                cache[piece] = terms
        if terms:
            extend([(term, s + start, e + start) for term, s, e in terms] if start else terms)
    return found


def paired_matches(text: str, language: str, general: General, apostrophe: str, same_phrase: SamePhrase,
                   wanted: frozenset[str]) -> list[Term]:
    """The terms of ``paired_analysis`` that are in ``wanted``, in its order,
    with its offsets: the same walk over the pieces, but a piece's terms are
    looked at only when one is wanted, a pair is decided only when its first
    syllable could begin a wanted pair (what provenance needs), and the walk
    jumps over the pieces ``skipped_pieces.wanted_pieces`` shows hold nothing
    wanted whenever the syllable carried so far begins no wanted pair."""
    # every text that a wanted term continues with a space: a pair "carry head" can be wanted only if carry is one
    firsts = frozenset(term[:i] for term in wanted for i, character in enumerate(term) if character == " ")
    find = chunk_finder(wanted)
    parts = _WHITESPACE_RUN.split(text)
    pieces = parts[0::2]
    starts = list(accumulate(map(len, parts), initial=0))[0::2]  # where each piece starts in the text
    order = wanted_pieces(text, pieces, starts, wanted, apostrophe) if find is not None else None
    cache = _PAIRED.setdefault(language, {})
    phrase_gaps = _PHRASE_GAPS
    found: list[Term] = []
    append = found.append
    carry: str | None = None  # as in paired_analysis
    carry_start = 0
    carry_gap = ""
    following = 0  # the place in ``order`` of the next piece that may hold something wanted
    number, count = -1, len(pieces)
    while True:
        number += 1
        if order is not None and (carry is None or carry not in firsts):
            # every piece before order[following] is skippable and nothing carried begins a wanted
            # pair: passing them over leaves the carry as None does (see the skippable case below)
            while following < len(order) and order[following] < number:
                following += 1
            if following == len(order):
                break
            if order[following] > number:
                carry, number = None, order[following]
        if number >= count:
            break
        piece, start = pieces[number], starts[number]
        gap = parts[2 * number - 1] if number else ""
        shape = cache.get(piece)
        if shape is None:
            if (carry is None or carry not in firsts) and skippable(piece, find, apostrophe):
                # neither its terms nor its edges are wanted, and whether it is through or not,
                # the carry after it begins no wanted pair: as None does
                carry = None
                continue
            shape = _shape(cache, piece, language, general, apostrophe) if piece else _EMPTY
            if shape is None:
                return [term for term in general(text, normalize_with_offsets(text), language) if term[0] in wanted]
        terms, spans, head, lead, tail, tail_start, trail, through = shape
        if carry is not None and (head is not None or through):
            if carry in firsts:  # otherwise no pair formed here is wanted, and carry_gap is never read
                gap = carry_gap + _normalized_gap(gap) + lead
                if through:
                    carry_gap = gap + trail
                    continue
                same = phrase_gaps.get(gap)
                if same is None:
                    same = _same_phrase(gap, same_phrase)
                if same:
                    pair = f"{carry} {head}"
                    if pair in wanted or not wanted.isdisjoint(terms):
                        first_start, first_end = spans[0]
                        if terms[0] in wanted:
                            append((terms[0], start + first_start, start + first_end))
                        if pair in wanted:
                            append((pair, carry_start, start + first_end))
                        for term, (s, e) in zip(terms[1:], spans[1:]):
                            if term in wanted:
                                append((term, start + s, start + e))
                    carry, carry_start, carry_gap = tail, start + tail_start, trail
                    continue
            elif through:
                continue
        if terms and not wanted.isdisjoint(terms):
            for term, (s, e) in zip(terms, spans):
                if term in wanted:
                    append((term, start + s, start + e))
        if not through:
            carry, carry_start, carry_gap = tail, start + tail_start, trail
    return found


def piece_matches(text: str, language: str, general: General, wanted: frozenset[str],
                  apostrophe: str | None = None) -> list[Term]:
    """The terms of ``piece_analysis`` that are in ``wanted``, in its order,
    with its offsets. ``apostrophe``: given (possibly "") when the rules
    change no word, so that a new piece holding no wanted chunk is passed
    over without analysis (``skipped_pieces``), and only the pieces that may
    hold a wanted term are visited."""
    find = chunk_finder(wanted) if apostrophe is not None else None
    parts = _WHITESPACE_RUN.split(text)
    pieces = parts[0::2]
    starts = list(accumulate(map(len, parts), initial=0))[0::2]  # where each piece starts in the text
    order = wanted_pieces(text, pieces, starts, wanted, apostrophe or "") if find is not None else None
    cache = _ANALYSED.setdefault(language, {})
    found: list[Term] = []
    append = found.append
    for number in range(len(pieces)) if order is None else order:
        piece, start = pieces[number], starts[number]
        terms = cache.get(piece)
        if terms is None:
            if not piece or skippable(piece, find, apostrophe or ""):
                continue
            if _starts_joined(piece):
                return [term for term in general(text, normalize_with_offsets(text), language) if term[0] in wanted]
            terms = tuple(general(piece, normalize_with_offsets(piece), language))
            if len(cache) < CACHE_SIZE:
                cache[piece] = terms
        for term, s, e in terms:
            if term in wanted:
                append((term, s + start, e + start))
    return found
