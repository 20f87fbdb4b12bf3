"""Which metadata values may be entity names (docs/entities.md, "Which names are used").

Corpus metadata is untrusted (docs/security.md): a document listing common
words as its aliases (``the|of|what|fee|rate``) would otherwise restrict
almost every query to itself. A value is used as an entity name only when it
is distinctive; every value left out is kept as a ``RejectedName`` with the
rule it broke, so nothing is dropped silently (``EntityCatalog.rejected``,
a ``regrag: note:`` line on the command line).

The rules, in the order they are checked:

1. *length*: at least ``MIN_NAME_LENGTH`` (3) characters, or 2 for a name
   written in capitals (a ticker) or containing CJK characters; at most
   ``MAX_NAME_LENGTH`` (200);
2. *function word*: not made only of function and question words
   (``FUNCTION_WORDS``, English and Vietnamese, any case; for CJK, only
   characters of ``regrag.text.question_words.QUESTION_CHARACTERS``);
3. *common*: a name that analyses to a single term is not used when that term
   occurs in at least ``COMMON_FRACTION`` (one half) of the documents the
   name does not name, and in at least ``COMMON_MIN_DOCUMENTS`` (2) of them;
4. *limit*: a document with more than ``Limits.entity_names_per_document``
   names contributes none of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from regrag.audit.canonical import JsonRecord
from regrag.text.question_words import QUESTION_CHARACTERS, QUESTION_WORDS
from regrag.text.scripts import HAS_CJK

MIN_NAME_LENGTH = 3
MIN_SHORT_NAME_LENGTH = 2  # names in capitals, and names with CJK characters
# Longer metadata values are not names (a real issuer, product or ticker name
# is far shorter): they are left out of the catalog, which keeps building it
# linear in the metadata (normalising a long run of combining marks is not).
MAX_NAME_LENGTH = 200
COMMON_FRACTION = 0.5
COMMON_MIN_DOCUMENTS = 2

FUNCTION_WORDS = frozenset(
    (QUESTION_WORDS["en"] + " " + QUESTION_WORDS["vi"] + " "
     "a an the of in on at to for from by with and or nor not no yes is it its this that these those than then "
     "into onto over under up down out off if so but all each every both few more most less other such only own "
     "same very just also as per via vs etc").casefold().split()
)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class RejectedName(JsonRecord):
    """A metadata value not used as an entity name, and why."""

    document_id: str
    field: str
    name: str
    reason: str


def length_problem(name: str) -> str | None:
    """Why ``name`` is too short or too long to be a name, or None."""
    short = name.isupper() or HAS_CJK.search(name) is not None
    minimum = MIN_SHORT_NAME_LENGTH if short else MIN_NAME_LENGTH
    if len(name) < minimum:
        kind = "a name in capitals or CJK" if short else "a name"
        return f"shorter than {minimum} characters (the least for {kind})"
    if len(name) > MAX_NAME_LENGTH:
        return f"longer than {MAX_NAME_LENGTH} characters"
    return None


def is_function_words(name: str) -> bool:
    """True when ``name`` is made only of function or question words."""
    if HAS_CJK.search(name):
        characters = [c for c in name if not c.isspace()]
        return all(c in QUESTION_CHARACTERS for c in characters)
    words = _WORD.findall(name.casefold())
    return bool(words) and all(word in FUNCTION_WORDS for word in words)


def common_problem(term_documents: set[str], named: set[str], document_count: int) -> str | None:
    """Why a single-term name is too common: its term is in at least half of
    the documents it does not name (and in at least two of them)."""
    others = document_count - len(named)
    elsewhere = len(term_documents - named)
    if others > 0 and elsewhere >= COMMON_MIN_DOCUMENTS and elsewhere >= COMMON_FRACTION * others:
        return (f"a common term: in {elsewhere} of the {others} documents it does not name "
                f"(a one-term name must be in fewer than {COMMON_FRACTION:.0%} of them)")
    return None
