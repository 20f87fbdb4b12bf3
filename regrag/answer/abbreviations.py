"""Abbreviations: the evidence writing ``LCR`` for the words the question
spells out, "liquidity coverage ratio" (``HQLA`` for "high-quality liquid
assets", ``HĐQT`` for "Hội đồng quản trị").

Regulations define a term once and abbreviate it after, so the sentence
that answers ("shall maintain an LCR of at least 100%") often holds none of
the question's words. ``spelled_out`` reads, from the question, every run of
three to six consecutive content words joined only by spaces or hyphens,
keyed by their initials (casefolded); ``abbreviated`` finds in a text the
words written in capitals (three to seven letters, a plural ``s`` allowed)
whose letters are such a key, and gives that run's terms at the word's
characters. The reverse (the question writes ``CDD``, the evidence spells it
out) is ``regrag.answer.specifics.missing_identifiers``. A pure function of
the question, its analysed terms and the text: no list of abbreviations.
"""

from __future__ import annotations

import re

_MIN_RUN, _MAX_RUN = 3, 6
# a word of letters only, not inside a longer word or joined to digits
_LETTERS = re.compile(r"(?<![^\W_])[^\W\d_]{3,8}(?![^\W_])")


def spelled_out(analyzer, question: str, language: str, terms) -> dict[str, tuple[frozenset[str], str]]:
    """Initials (casefolded) of each run of 3–6 consecutive content ``terms``
    of the question (joined by spaces or hyphens only) -> the run's terms and
    its words as typed (the first run of those initials)."""
    wanted = set(terms)
    analysed = [(term, start, end) for term, start, end in analyzer.analyze(question, language) if " " not in term]
    found: dict[str, tuple[frozenset[str], str]] = {}
    for first in range(len(analysed)):
        run: list[tuple[str, int, int]] = []
        for term, start, end in analysed[first:first + _MAX_RUN]:
            if term not in wanted or (run and question[run[-1][2]:start].strip(" -")):
                break
            run.append((term, start, end))
            if len(run) >= _MIN_RUN:
                key = "".join(question[s].casefold() for _t, s, _e in run)
                if key not in found:
                    found[key] = (frozenset(t for t, _s, _e in run), question[run[0][1]:run[-1][2]])
    return dict(sorted(found.items()))


def _capitals(text: str, start: int, end: int, table):
    """(start, end, key) of each word in capitals of ``text[start:end]`` that ``table`` knows."""
    for match in _LETTERS.finditer(text, start, end):
        word = match.group()
        core = word[:-1] if word.endswith("s") and len(word) > _MIN_RUN else word
        if core.isupper() and core.casefold() in table:
            yield match.start(), match.start() + len(core), core.casefold()


def abbreviated(text: str, start: int, end: int, table) -> list[tuple[int, int, str]]:
    """``(start, end, term)`` for each term spelled out by a capitalised
    abbreviation of ``text[start:end]`` that ``table`` (``spelled_out``) knows,
    in text order, terms sorted."""
    return [(low, high, term) for low, high, key in _capitals(text, start, end, table)
            for term in sorted(table[key][0])]


def abbreviation_steps(text: str, table) -> tuple[str, ...]:
    """The abbreviations ``text`` uses for the question's words, as
    ``words as typed~ABBREVIATION`` (``liquidity coverage ratio~LCR``), each
    once, in text order: the record of what counted and why."""
    steps: list[str] = []
    for low, high, key in _capitals(text, 0, len(text), table):
        step = f"{table[key][1]}~{text[low:high]}"
        if step not in steps:
            steps.append(step)
    return tuple(steps)
