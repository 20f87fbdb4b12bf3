"""CJK bigrams that only join two words: not missing evidence (docs/answers.md, "Confidence").

The analyzer indexes Chinese and Japanese text as overlapping character
bigrams, so a question such as ``宪法中有哪些例外`` yields ``宪法`` and also
``法中``, which spans the boundary between two words. When the evidence
holds both words but not side by side, that junction bigram is absent
although nothing the user asked for is: counting it as missing refused
answerable questions (XQuAD zh) and listed ``法中`` among the "missing
words", which the user never typed.

A bigram occurrence is *bridged* when it is not in the evidence and each of
its two characters is vouched for on its side: by the neighbouring bigram
that shares the character (``宪法`` for ``法``), when that bigram is a
content term found in the evidence, or, when the neighbour is not a content
term (the end of a run, scaffolding or a question character), by the
character itself occurring in the evidence. At least one side must be
vouched for by a found neighbour, so an isolated word whose characters occur
apart (``议员`` in ``哪位议员``) still counts as missing. A term is bridged
when every occurrence of it is.
"""

from __future__ import annotations

from typing import Iterable

from regrag.text.scripts import HAS_CJK


def bridged_bigrams(analysed: Iterable[tuple[str, int, int]], content: frozenset[str], evidence: set[str],
                    characters: frozenset[str]) -> frozenset[str]:
    """The content terms of the question (``analysed``: its terms with
    offsets) that are CJK bigrams bridged as described above."""
    by_start: dict[int, str] = {}
    for term, start, end in analysed:
        if len(term) == 2 and end - start == 2 and HAS_CJK.search(term[0]) and HAS_CJK.search(term[1]):
            by_start[start] = term
    verdicts: dict[str, bool] = {}
    for start in sorted(by_start):
        term = by_start[start]
        if term not in content or term in evidence:
            continue
        left_ok, left_found = _side(by_start.get(start - 1), term[0], content, evidence, characters)
        right_ok, right_found = _side(by_start.get(start + 1), term[1], content, evidence, characters)
        bridged = left_ok and right_ok and (left_found or right_found)
        verdicts[term] = verdicts.get(term, True) and bridged
    return frozenset(term for term, bridged in verdicts.items() if bridged)


def _side(neighbour: str | None, character: str, content: frozenset[str], evidence: set[str],
          characters: frozenset[str]) -> tuple[bool, bool]:
    """(vouched for, by a found neighbour) for one character of a bigram."""
    if neighbour is not None and neighbour in content:
        found = neighbour in evidence
        return found, found
    return character in characters, False
