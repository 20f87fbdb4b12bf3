"""Normalisation that remembers where every character came from.

Terms are compared in NFKC + casefold form, but every offset regrag reports
indexes the *original* text. ``normalize_with_offsets`` normalises the text in
small segments (an ASCII character, or a non-ASCII character with the combining
marks that follow it) and records, for each normalised character, the span of
the original segment it came from. A BOM (U+FEFF) normalises to nothing.

A segment also takes in what NFKC composes with it although it is not a
combining mark: half-width katakana sound marks (ｶﾞ → ガ) and Hangul vowel
and final jamo (ᄀ+ᅡ → 가), and a BOM inside it, which normalises to nothing.
Only the first ``MAX_JOINING_RUN`` (30) joining characters of a run count: the
rest are dropped (kept inside the segment's span), which keeps normalisation
linear.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from regrag.text.scripts import has_astral, mark_class

BYTE_ORDER_MARK = "\ufeff"

_NON_ASCII_SEGMENT = re.compile(r"[^\x00-\x7f]")
_BOM_RUN = re.compile("\ufeff+")

# The most joining characters (combining marks and the like, BOMs not counted)
# of one run that count: the stream-safe bound of UAX #15, which no real text
# reaches. CPython sorts a run of marks into canonical order by insertion, in
# time quadratic in the run's length, so an unbounded run (a "combining flood")
# would make normalisation quadratic. The analyzer (and language detection)
# drop the joining characters of a run after its 30th (they normalise to
# nothing, like a BOM), so analysis stays linear.
MAX_JOINING_RUN = 30


def normalize_term(text: str) -> str:
    """BOM removed, then NFKC, casefold, NFKC again: the form in which terms
    are compared. Quadratic in the length of a run of combining marks (the
    analyzer calls it on segments of at most 31 characters plus BOMs; other
    callers bound what they pass, or cut runs with ``cap_joining_runs``)."""
    return unicodedata.normalize(
        "NFKC", unicodedata.normalize("NFKC", text.replace(BYTE_ORDER_MARK, "")).casefold()
    )


def cap_joining_runs(text: str) -> str:
    """``text`` with every run of more than ``MAX_JOINING_RUN`` joining
    characters cut to its first ``MAX_JOINING_RUN`` (BOMs inside a run are not
    removed here, and end it: remove them first to count across them)."""
    if text.isascii():
        return text
    pattern = _long_joining_run(has_astral(text))
    if pattern.search(text) is None:
        return text
    return pattern.sub(lambda run: run.group()[:MAX_JOINING_RUN], text)


@lru_cache(maxsize=65536)
def _normalize_segment(segment: str) -> str:
    return normalize_term(segment)


# Characters that NFKC composes with the character before them although they
# are not combining marks: half-width katakana voiced/semi-voiced sound marks,
# and Hangul vowel and final jamo (conjoining and compatibility vowels).
_JOINING_RANGES = ((0xFF9E, 0xFF9F), (0x1160, 0x11FF), (0xD7B0, 0xD7FF), (0x314F, 0x3163))
_JOINING = re.compile("[" + "".join(f"{chr(first)}-{chr(last)}" for first, last in _JOINING_RANGES) + "]")


def _is_mark(character: str) -> bool:
    return unicodedata.combining(character) != 0 or unicodedata.category(character)[0] == "M"


@lru_cache(maxsize=2)
def _joiner_pattern(astral: bool = True) -> re.Pattern[str]:
    return re.compile(f"[{mark_class(astral)}{_JOINING.pattern[1:-1]}]")


@lru_cache(maxsize=2)
def _long_joining_run(astral: bool = True) -> re.Pattern[str]:
    """More than ``MAX_JOINING_RUN`` joining characters in a row (linear: one
    repeated class); ``astral=False``: the same on text without a character
    beyond the BMP (``scripts.has_astral``)."""
    return re.compile(f"{_joiner_pattern(astral).pattern}{{{MAX_JOINING_RUN + 1},}}")


@lru_cache(maxsize=1)
def _joiner_set() -> frozenset[str]:
    """Every character ``_joiner_pattern`` matches, for a membership test in C."""
    from regrag.text.unicode_tables import ranges

    runs = (*ranges("marks"), *_JOINING_RANGES)
    return frozenset(chr(code) for first, last in runs for code in range(first, last + 1))


def _joins(character: str) -> bool:
    """A combining mark or another character that NFKC may compose with the one before."""
    return character >= "\x80" and character in _joiner_set()


def _segment_end(text: str, base: int, length: int) -> tuple[int, int]:
    """End of the segment that starts at ``text[base]``, and end of the
    characters it swallows. The joining run after the base belongs to it when
    it is a combining mark after a letter or digit, or when NFKC treats the two
    together differently from apart (``=`` + U+0338 → ``≠``, or marks reordered
    after ``´``), so that a mark after a space or punctuation keeps offsets of
    its own; otherwise the segment is one character. A run longer than
    ``MAX_JOINING_RUN`` joining characters is cut there: the segment ends after
    the limit and the rest of the run (second value) normalises to nothing."""
    character = text[base]
    limited, end = _continuation_end(text, base + 1, length, 1 if _joins(character) else 0)
    if end == base + 1:
        return end, end
    joiners = text[base + 1 : limited].replace(BYTE_ORDER_MARK, "")
    if _joins(character):
        return limited, end  # a run of marks with no base is one segment (keeps this linear)
    if character.isalnum() and _is_mark(joiners[0]):
        return limited, end
    together = unicodedata.normalize("NFKC", character + joiners)
    apart = unicodedata.normalize("NFKC", character) + unicodedata.normalize("NFKC", joiners)
    return (limited, end) if together != apart else (base + 1, base + 1)


def _continuation_end(text: str, start: int, length: int, counted: int = 0) -> tuple[int, int]:
    """End of the run of joining characters at ``start`` (a BOM inside the run,
    followed by a joining character, belongs to it too): first where the run's
    ``MAX_JOINING_RUN``-th joining character ends (or the run's end, if
    sooner), then where the run ends. ``counted``: joining characters of the
    run before ``start`` (1 when the segment's base is itself one)."""
    end = start
    count = counted
    limited = -1
    while end < length:
        after_boms = end
        while after_boms < length and text[after_boms] == BYTE_ORDER_MARK:
            after_boms += 1
        if after_boms < length and _joins(text[after_boms]):
            end = after_boms + 1
            count += 1
            if count == MAX_JOINING_RUN:
                limited = end
        else:
            break
    return (end if limited < 0 else limited), end


@dataclass(frozen=True)
class NormalizedText:
    """Normalised text plus, per normalised character, its original span.

    ``starts``/``ends`` are ``None`` when the mapping is the identity (pure
    ASCII input), which saves building two lists for most English text.
    """

    text: str
    starts: list[int] | None
    ends: list[int] | None

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Original (start, end) of the normalised characters [start, end)."""
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


def normalize_with_offsets(text: str) -> NormalizedText:
    """Normalise ``text`` and keep a map from normalised to original offsets."""
    if text.isascii():
        return NormalizedText(text.lower(), None, None)
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    length = len(text)
    while position < length:
        match = _NON_ASCII_SEGMENT.search(text, position)
        ascii_end = match.start() if match else length
        segment_end = run_end = 0
        if match is not None and ascii_end > position:
            end, full_end = _segment_end(text, ascii_end - 1, length)
            if end > ascii_end:
                ascii_end -= 1  # the marks that follow belong with the ASCII character before them
                segment_end, run_end = end, full_end
        if ascii_end > position:
            pieces.append(text[position:ascii_end].lower())
            starts.extend(range(position, ascii_end))
            ends.extend(range(position + 1, ascii_end + 1))
        if match is None:
            break
        if not segment_end:
            if text[ascii_end] == BYTE_ORDER_MARK:
                # a BOM that starts a segment is a segment of its own that normalises
                # to nothing (NFKC joins nothing to it): skip the whole run at once, or
                # each BOM would look past all the others for a joining character
                position = _BOM_RUN.match(text, ascii_end).end()  # type: ignore[union-attr]
                continue
            segment_end, run_end = _segment_end(text, ascii_end, length)
        normalized = _normalize_segment(text[ascii_end:segment_end])
        pieces.append(normalized)
        # characters past MAX_JOINING_RUN (up to run_end) are dropped from the
        # normalised text but stay inside the original span of their segment
        starts.extend([ascii_end] * len(normalized))
        ends.extend([run_end] * len(normalized))
        position = run_end
    return NormalizedText("".join(pieces), starts, ends)
