"""Which term a definition sentence defines: in a regulation, '"Person
discharging managerial responsibilities" (PDMR) means a member of …' defines
PDMR, however many words of "How does the VSMC define a senior manager?" its
body holds (``senior``, ``management``).

For a definition question, a cited sentence that defines one or more quoted
terms (``DEFINED``: a quoted phrase, an optional parenthesised abbreviation,
then "means", "refers to", "is defined as" or "has the meaning") and none of
them holds every content term the question asks (outside the entity names
it uses) defines something else: it goes after the other sentences when the
short answer is chosen, and the confidence falls when it still holds it
(docs/answers.md, "The evidence passage" and "Confidence": `defines_other`). The first hit whose passage defines the
asked term is the evidence passage (``regrag.answer.evidence_choice``).
"""

from __future__ import annotations

import re

DEFINED = re.compile(r"[\"“]([^\"“”]{2,80})[\"”]\s*(?:\([^)]{1,20}\)\s*)?(?:means|refers\s+to|is\s+defined\s+as|has\s+the\s+meaning)\b",
                     re.IGNORECASE)


def defines_other(searcher, language: str, asked: tuple[str, ...], expected_type: str, text: str) -> tuple[str, ...]:
    """The terms ``text`` defines (as written, in order) when ``expected_type``
    is "definition", ``text`` defines at least one quoted term, and none of
    those terms holds all of ``asked``; else empty."""
    if expected_type != "definition" or not asked:
        return ()
    defined = [match.group(1) for match in DEFINED.finditer(text)]
    if not defined or defines(searcher, language, asked, text):
        return ()
    return tuple(defined)


def defines(searcher, language: str, asked: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` defines a quoted term holding every term of ``asked``."""
    for match in DEFINED.finditer(text):
        held = {term for term, _s, _e in searcher.analyzer.analyze(match.group(1), language)}
        if asked and all(term in held for term in asked):
            return True
    return False
