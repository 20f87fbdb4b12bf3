"""A modifier the cited sentence replaces: the question's "免费代驾服务" (free
designated-driver service) is not answered by a sentence on "免费道路救援服务"
(free roadside rescue service). The sentence holds the words around the
question's missing run, in order and close together, with other characters
between them: it speaks of another thing of the same kind (session 40)."""

from __future__ import annotations

import re

from regrag.text.scripts import HAS_CJK

# how many characters may stand between the two anchors in the sentence
MAX_GAP = 8
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def substituted_runs(question: str, tokens, terms: frozenset[str], missing: frozenset[str],
                     sentence_text: str) -> tuple[str, ...]:
    """``question word~sentence word`` for each run of the question's CJK
    characters that only missing bigrams (``missing``: content terms the
    sentence's context lacks; bigrams that are no content term, of ``terms``,
    are ignored) hold, when the sentence writes the two
    characters before the run and the two after it with 1 to ``MAX_GAP``
    other CJK characters between them; in question order."""
    found_at: set[int] = set()
    missing_at: set[int] = set()
    for term, start, end in tokens:
        if term not in terms or not HAS_CJK.search(term) or end - start != 2:
            continue
        (missing_at if term in missing else found_at).update(range(start, end))
    only = sorted(missing_at - found_at)
    runs: list[tuple[int, int]] = []
    for position in only:
        if runs and runs[-1][1] == position:
            runs[-1] = (runs[-1][0], position + 1)
        else:
            runs.append((position, position + 1))
    steps: list[str] = []
    for start, end in runs:
        left, right = question[start - 2:start], question[end:end + 2]
        if start < 2 or len(right) < 2 or not all(c in found_at for c in range(start - 2, start)) \
                or not all(c in found_at for c in range(end, end + 2)):
            continue
        pattern = re.escape(left) + r"([\u3400-\u9fff\uf900-\ufaff]{1,%d}?)" % MAX_GAP + re.escape(right)
        for match in re.finditer(pattern, sentence_text):
            between = match.group(1)
            if between != question[start:end]:
                steps.append(f"{question[start:end]}~{between}")
                break
    return tuple(steps)
