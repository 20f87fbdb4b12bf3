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

The same reading for longer gaps (session 30): a run of several missing
bigrams between two found ones counts as many bigrams as it has uncovered
characters, one fewer than it has bigrams, so a missing word beside a found
one is not counted twice (``料研`` and ``研发`` of ``材料研发蒸汽`` when only
``研发`` is missing); the run's left end is the one left out.
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
    junction_ends = _run_ends(by_start, content, evidence)
    for start in sorted(by_start):
        term = by_start[start]
        if term not in content or term in evidence:
            continue
        left_ok, left_found = _side(by_start.get(start - 1), term[0], content, evidence, characters)
        right_ok, right_found = _side(by_start.get(start + 1), term[1], content, evidence, characters)
        bridged = (left_ok and right_ok and (left_found or right_found)) or start in junction_ends
        verdicts[term] = verdicts.get(term, True) and bridged
    return frozenset(term for term, bridged in verdicts.items() if bridged)


def _run_ends(by_start: dict[int, str], content: frozenset[str], evidence: set[str]) -> set[int]:
    """Starts of the bigrams that a run of missing content bigrams holds
    beyond its uncovered characters. A run of ``m`` consecutive missing
    bigrams spans ``m + 1`` characters; when found content bigrams border it
    on both sides, its two end characters are covered by them and ``m - 1``
    are not (``材料研发蒸汽`` with ``材料`` and ``蒸汽`` found: ``料研 研发 发蒸``
    leave ``研 发`` uncovered). The run then counts ``m - 1`` bigrams: its
    left end is a junction. (``m = 1`` is the bridged bigram above; a run
    bordered on one side only leaves ``m`` characters uncovered and counts
    all its bigrams.)"""
    missing = [s for s in sorted(by_start) if by_start[s] in content and by_start[s] not in evidence]
    runs: list[list[int]] = []
    for start in missing:
        if runs and runs[-1][-1] == start - 1:
            runs[-1].append(start)
        else:
            runs.append([start])

    def found(start: int) -> bool:
        term = by_start.get(start)
        return term is not None and term in content and term in evidence

    return {run[0] for run in runs if len(run) >= 2 and found(run[0] - 1) and found(run[-1] + 1)}


def _side(neighbour: str | None, character: str, content: frozenset[str], evidence: set[str],
          characters: frozenset[str]) -> tuple[bool, bool]:
    """(vouched for, by a found neighbour) for one character of a bigram."""
    if neighbour is not None and neighbour in content:
        found = neighbour in evidence
        return found, found
    return character in characters, False
