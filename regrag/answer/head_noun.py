"""The head noun of an English "what/which" question: the thing asked for.

In "Which form number must be used to report …" the answer is a form
number; in "What customer due diligence threshold applies to …" it is a
threshold. A cited sentence that holds none of the head's terms (in its
context, with the words naming the expected type and the lexicon) answers
something else, however many of the question's other words it holds: its
"forming the suspicion" supplies ``form``, not a number.

The head is the last word before the question's verb, after at most five
modifiers that are not prepositions or articles (so "What percentage of the
votes is needed" has none: the pattern reads only a bare noun phrase).
"""

from __future__ import annotations

import re

from regrag.answer.requirements import sentence_evidence

_MODIFIER = r"(?:(?!(?:of|for|in|on|to|at|by|with|from|the|a|an)\b)[A-Za-z][\w-]*\s+)"
_VERB = (r"(?:is|are|was|were|must|should|shall|can|could|may|might|does|do|did|has|have|had|will|would"
         r"|applies|apply)")
WH_HEAD = re.compile(r"^\s*(?:what|which)\s+" + _MODIFIER + r"{0,5}?(?!" + _VERB + r"\b)([A-Za-z][\w-]*)\s+"
                     + _VERB + r"\b", re.IGNORECASE)


def head_span(question: str) -> tuple[int, int] | None:
    """Where the head noun of a "what/which <noun phrase> <verb>" question is, or None."""
    match = WH_HEAD.match(question)
    return match.span(1) if match else None


def missing_head(index, question: str, language: str, terms: tuple[str, ...], sentence,
                 names: dict[str, tuple[str, ...]], typewords: set[str], rules) -> tuple[str, ...]:
    """The head noun's content terms when the cited ``sentence`` in its
    context (``sentence_evidence``, with ``typewords``: the terms naming the
    expected type when the evidence holds a span of it) holds none of them,
    not even through the lexicon; else empty."""
    from regrag.answer.lexicon import synonym_cover

    span = head_span(question)
    if span is None or sentence is None:
        return ()
    wanted = tuple(t for t, start, end in index.analyzer.analyze(question, language)
                   if span[0] <= start and end <= span[1] and t in terms)
    if not wanted:
        return ()
    local = sentence_evidence(index, sentence, names) | typewords
    if any(t in local for t in wanted) or synonym_cover(index.analyzer, language, wanted, local, rules):
        return ()
    return tuple(dict.fromkeys(wanted))
