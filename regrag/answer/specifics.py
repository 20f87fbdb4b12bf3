"""Specifics: the numbers and identifiers of a question that the evidence
must hold (``confidence.missing_specifics``, docs/answers.md).

A number (a term starting with a digit, or a Roman numeral i–iv as quarters
are written) is found when the evidence holds it, leading zeros ignored; an
identifier (capitals, possibly with digits: ``VN30``, ``HVB``) when the
evidence holds it or spells it out by the initials of consecutive words
(``CDD``: "customer due diligence"); a capitalised word just after an entity
name the question uses (``Business`` of "RiverPost Business") is held to the
same rule, since with it the name is another one; and the verb an English
question asks about (``keep`` of "how long must the FIU keep …",
``confidence.missing_predicate``) must be covered. Pure functions of the
question, its analysed terms and the evidence.
"""

from __future__ import annotations

import re

from regrag.text.scripts import HAS_CJK

ROMAN_NUMERALS = frozenset(("i", "ii", "iii", "iv"))


def number_key(term: str) -> str:
    """A numeric term compared without leading zeros (``03`` is ``3``)."""
    return (term.lstrip("0") or "0") if term.isdigit() else term


def _is_number(term: str) -> bool:
    return term[:1].isdigit() or term in ROMAN_NUMERALS


def missing_numbers(terms: tuple[str, ...], evidence: set[str],
                    scaled: dict[str, str] | None = None) -> tuple[str, ...]:
    """The numeric ``terms`` not in the evidence (leading zeros ignored); with
    ``scaled`` (``scaled_numbers``: a term written with a scale word and its
    whole value, ``5000`` of "5000万元": ``50000000``), a term is also found
    when the evidence writes that value in digits (``50,000,000``)."""
    found = {number_key(term) for term in evidence if _is_number(term)}
    values = {plain_integer(term) for term in evidence if _is_number(term)}
    scaled = scaled or {}
    return tuple(t for t in terms if _is_number(t) and number_key(t) not in found
                 and not (t in scaled and scaled[t] in values))


# scale words after a number: Chinese 万 and 亿, Vietnamese and English words for
# thousands, millions and billions ("5000万元" is 50,000,000 yuan)
_SCALES = {"千": 3, "万": 4, "萬": 4, "亿": 8, "億": 8, "nghìn": 3, "ngàn": 3, "triệu": 6, "tỷ": 9,
           "thousand": 3, "million": 6, "billion": 9}
_SCALED = re.compile(r"(?<![\d.,])(\d+)\s*(千|万|萬|亿|億|(?:nghìn|ngàn|triệu|tỷ|thousand|million|billion)(?![^\W\d_]))",
                     re.IGNORECASE)
_GROUPED = re.compile(r"\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*")


def plain_integer(term: str) -> str | None:
    """A whole number's digits without thousands separators (``50,000,000`` and
    ``50.000.000``: ``50000000``; ``5000``: itself), or None (a decimal, a date)."""
    if term.isdigit():
        return term.lstrip("0") or "0"
    if _GROUPED.fullmatch(term):
        return term.replace(",", "").replace(".", "").lstrip("0") or "0"
    return None


def scaled_numbers(question: str) -> dict[str, str]:
    """Each whole number of ``question`` written before a scale word, as the
    question writes it, with its whole value in digits (``{"5000": "50000000"}``
    for "5000万元"); decimals ("1,5 tỷ") are left out: their separator depends on the language."""
    return {match.group(1): str(int(match.group(1)) * 10 ** _SCALES[match.group(2).casefold()])
            for match in _SCALED.finditer(question)}


def missing_identifiers(
    index, question: str, language: str, terms: tuple[str, ...], evidence: set[str], hits
) -> tuple[str, ...]:
    """Content terms written as identifiers in the question (capitals such as
    ``VN30``, ``HVB``, ``CBV``) that the evidence lacks, neither as a term nor
    spelled out (``CDD`` in "customer due diligence"); and a capitalised word
    just after an entity name the question uses (``Business`` of "RiverPost
    Business"): with it the name is another one, which the evidence must hold."""
    extended = _name_extensions(index, question)
    identifiers = sorted(
        {term for term, start, end in index.analyzer.analyze(question, language)
         if term in terms and not _is_number(term)
         and (_is_identifier(question[start:end]) or start in extended)}
    )
    absent = [t for t in identifiers if t not in evidence]
    if not absent:
        return ()
    initials = evidence_initials(index, hits)
    return tuple(t for t in absent if not t.isalpha() or f" {t} " not in initials)


_WORD = re.compile(r"[^\W\d_]+")
_NEXT_WORD = re.compile(r" ([^\W\d_][\w'-]*)")


def _name_extensions(index, question: str) -> frozenset[int]:
    """Where a capitalised word starts just after an entity name of the
    question, one space after it and not itself inside a name ("RiverPost
    Business": the offset of ``Business``)."""
    matches = index.entity_catalog.match(question)
    found = set()
    for match in matches:
        word = _NEXT_WORD.match(question, match.end)
        if word is not None and word.group(1)[0].isupper() and not any(
                other.start <= word.start(1) < other.end for other in matches):
            found.add(word.start(1))
    return frozenset(found)


def evidence_initials(index, hits) -> str:
    """For every run of 2–6 consecutive words in the evidence, the run's
    initials, casefolded and separated by spaces (acronyms spelled out)."""
    found: set[str] = set()
    for hit in hits:
        document = index.document(hit.document_id)
        start, end = hit.passage_span
        for part in (document.text[start:end], hit.section_title, document.title):
            letters = [word[0].casefold() for word in _WORD.findall(part)]
            for size in range(2, 7):
                found.update("".join(letters[i : i + size]) for i in range(len(letters) - size + 1))
    return " " + " ".join(sorted(found)) + " "


def _is_identifier(surface: str) -> bool:
    letters = [c for c in surface if c.isalpha()]
    return len(surface) >= 2 and bool(letters) and all(c.isupper() for c in letters) and surface.isalnum()


# The verb an English question asks about: after "have/has to" ("have to respond"), or after a
# modal or "does" and a subject written in capitals ("must the Financial Intelligence Unit keep",
# "does the VBSA set"; not "can I ask", the user's own asking). A lowercase subject is not read:
# where its words end cannot be told.
_PREDICATE = (
    re.compile(r"\bha(?:ve|s)\s+to\s+([a-z]+)\b"),
    re.compile(r"\b(?:must|should|can|may|will|does|do)\s+(?:an?\s+|the\s+|its\s+)?(?!I\s)(?:[A-Z][\w-]*\s+(?:of\s+)?)+([a-z]+)\b"),
)

# A Chinese question's verb: the two characters after a modal asking whether it may be done
# ("可以修改", "能否提前"); a bigram, as the analyzer indexes it.
_CJK_PREDICATE = re.compile(r"(?:可以|可否|能否|能够|能不能|可不可以|是否)([\u4e00-\u9fff]{2})")


def missing_predicate(analyzer, question: str, language: str, terms: tuple[str, ...],
                      covered: tuple[str, ...]) -> tuple[str, ...]:
    """The question's verb (``_PREDICATE``), as typed, when it is a content
    term the evidence does not cover, not even through the lexicon: what is
    asked is done by someone (``keep`` reports, ``respond`` to a report), and a
    passage on the same subject that never says it answers something else."""
    if HAS_CJK.search(question):
        match = _CJK_PREDICATE.search(question)
        if match is None:
            return ()
        verb = match.group(1)
        return (verb,) if verb in terms and verb not in covered else ()
    if language != "en":
        return ()
    for pattern in _PREDICATE:
        match = pattern.search(question)
        if match is None:
            continue
        verb = match.group(1)
        analysed = [term for term, _s, _e in analyzer.analyze(verb, language)]
        if analysed and analysed[0] in terms and analysed[0] not in covered:
            return (verb,)
        return ()
    return ()
