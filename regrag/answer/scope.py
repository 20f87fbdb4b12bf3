"""The scope an English question ends with: "… applies to occasional
transactions **in casinos**?", "… fee **on the Qingying Loan**?" (session 41).

A question ending with ``in``, ``for``, ``at``, ``on`` or ``under`` and a
phrase of up to three words (an article aside) restricts what it asks to
that phrase. When the evidence covers none of the phrase's content terms
(numbers aside: a missing year is a missing number already), the evidence
speaks of the thing asked elsewhere, not there: the regulation's thresholds
for transfers and exchange offices do not answer for casinos. The phrase is
reported as typed (``Confidence.missing_scope``) and the confidence falls as
for a sentence about another entity. Other languages are not read.
"""

from __future__ import annotations

import re

_SCOPE = re.compile(r"\b(?:in|for|at|on|under)\s+((?:the\s+|a\s+|an\s+)?[\w'’-]+(?:\s+[\w'’-]+){0,2})\s*\?\s*$",
                    re.IGNORECASE)


def missing_scope(analyzer, question: str, language: str, terms, covered) -> tuple[str, ...]:
    """The question's closing scope phrase, as typed, when the evidence
    covers none of its content terms (``terms``; ``covered``: those found),
    else empty."""
    if language != "en":
        return ()
    match = _SCOPE.search(question)
    if match is None:
        return ()
    scope = [t for t, _s, _e in analyzer.analyze(match.group(1), language) if t in terms and not t[0].isdigit()]
    if scope and not any(t in covered for t in scope):
        return (match.group(1),)
    return ()
