"""Issuer, product and ticker awareness: a visible, switchable filter step.

When a query names an entity that the corpus metadata records (an issuer, a
product, a ticker, in any of the recorded names or abbreviations), search
and ask restrict the candidates to the documents of the named entities
before the top-k cut, and every hit's provenance lists the step and what
triggered it. Pass ``entities=False`` (``--no-entities``) to switch it off.

Names come from these metadata fields; ``issuer_aliases`` and
``product_aliases`` hold several names separated by ``|``, ``tickers`` by
``,``. A name written in capitals in the metadata (``VSMC``, ``QMT``) must
appear in capitals in the query; other names match case-insensitively
(NFKC + casefold). Latin names match whole words; CJK names match anywhere.
Longer names win over shorter ones they contain. Only distinctive values are
names (``regrag.retrieval.entity_rules``: a least length, no function words, no term
common in the corpus, a per-document cap); the others are listed in
``EntityCatalog.rejected`` with the rule they broke. If no passage of the
named entities' documents matches the query, the step is recorded as not
applied and the search runs over the whole corpus.

Matching looks up, at each position of the query, the slices as long as
the names (a dictionary of the names' forms; at most ``MAX_NAME_LENGTH``
lengths), so its time is linear in the query's length whatever the number
of names.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from regrag.audit.canonical import JsonRecord
from regrag.corpus.model import Document
from regrag.index.document_access import term_document_ids
from regrag.retrieval.entity_rules import (
    MAX_NAME_LENGTH, MIN_NAME_LENGTH, RejectedName, common_problem, is_function_words, length_problem,
)
from regrag.limits import DEFAULT_LIMITS, Limits
from regrag.text.normalize import cap_joining_runs, normalize_term, normalize_with_offsets
from regrag.text.rules import RULES
from regrag.text.scripts import HAS_CJK

LANGUAGES = tuple(language for language, _rules in RULES.languages)  # every language a document can have

ENTITY_FIELDS = ("issuer", "issuer_short", "issuer_aliases", "product", "product_short", "product_aliases", "ticker", "tickers")
_SEPARATORS = {"issuer_aliases": "|", "product_aliases": "|", "tickers": ","}
__all__ = ["ENTITY_FIELDS", "EntityCatalog", "EntityMatch", "EntityStep", "MAX_NAME_LENGTH", "MIN_NAME_LENGTH",
           "RejectedName"]


@dataclass(frozen=True)
class EntityMatch(JsonRecord):
    """One entity name found in the query."""

    field: str
    name: str
    start: int
    end: int
    documents: tuple[str, ...]


@dataclass(frozen=True)
class EntityStep(JsonRecord):
    """What the entity step did for one query."""

    matches: tuple[EntityMatch, ...]
    applied: bool
    documents: tuple[str, ...]


def _values(document: Document) -> list[tuple[str, str]]:
    """Every (field, value) of the entity fields, whitespace collapsed."""
    metadata = document.metadata_dict()
    values = []
    for field in ENTITY_FIELDS:
        value = metadata.get(field)
        if not value:
            continue
        separator = _SEPARATORS.get(field)
        for part in value.split(separator) if separator else [value]:
            part = " ".join(part.split())
            if part:
                values.append((field, part))
    return values


def _names(document: Document, limits: Limits, rejected: list[RejectedName],
           problems: dict[str, str | None] | None = None) -> list[tuple[str, str]]:
    """The document's names that pass rules 1, 2 and 4; the rest go to ``rejected``.
    ``problems``: rules 1 and 2's verdict on each name met so far (they depend on
    the name alone, and the same names recur across documents)."""
    values = _values(document)
    if len(values) > limits.entity_names_per_document:
        why = (f"the document has {len(values):,} entity names; the limit is {limits.entity_names_per_document:,} "
               "(regrag.limits.Limits.entity_names_per_document), so none of them is used")
        rejected.extend(RejectedName(document.id, field, name[:MAX_NAME_LENGTH], why) for field, name in values)
        return []
    names = []
    if problems is None:
        problems = {}
    for field, name in values:
        if name in problems:
            problem = problems[name]
        else:
            problem = length_problem(name)
            if problem is None and is_function_words(name):
                problem = "only function or question words"
            problems[name] = problem
        if problem is not None:
            rejected.append(RejectedName(document.id, field, name[:MAX_NAME_LENGTH], problem))
        else:
            names.append((field, name))
    return names


class EntityCatalog:
    """Every entity name in a corpus's metadata, with the documents it names.

    ``index`` (an ``InvertedIndex`` of the same documents) enables the
    common-term rule; ``rejected`` lists every value not used, sorted."""

    def __init__(self, documents: list[Document], index=None, limits: Limits = DEFAULT_LIMITS) -> None:
        rejected: list[RejectedName] = []
        table: dict[tuple[str, bool], dict[str, set[str]]] = {}
        problems: dict[str, str | None] = {}
        keys: dict[str, tuple[str, bool]] = {}  # _key of each name met so far
        for document in documents:
            for field, name in _names(document, limits, rejected, problems):
                key = keys.get(name)
                if key is None:
                    key = keys[name] = _key(name)
                table.setdefault(key, {}).setdefault(field, set()).add(document.id)
        if index is not None:
            common: dict[tuple[str, bool], str] = {}
            for entry in sorted(table):
                named = {d for ids in table[entry].values() for d in ids}
                problem = _common(index, entry[0], named, min(named))
                if problem is not None:
                    common[entry] = problem
                    del table[entry]
            if common:  # a second pass for the names as written (rare: kept out of the first for memory)
                for document in documents:
                    for field, name in _names(document, limits, []):
                        problem = common.get(_key(name))
                        if problem is not None:
                            rejected.append(RejectedName(document.id, field, name, problem))
        self.rejected: tuple[RejectedName, ...] = tuple(
            sorted(rejected, key=lambda r: (r.document_id, r.field, r.name, r.reason)))
        # Longest names first, then by text: a fixed order for matching.
        self._entries = sorted(
            ((key, sensitive, field, tuple(sorted(ids))) for (key, sensitive), fields in table.items() for field, ids in fields.items()),
            key=lambda entry: (-len(entry[0]), entry[0], entry[2]),
        )
        # each name's matching form -> (matches anywhere: it has CJK, entry numbers)
        self._forms: dict[str, tuple[bool, list[int]]] = {}
        for number, (key, _sensitive, _field, _documents) in enumerate(self._entries):
            form = normalize_term(key)
            self._forms.setdefault(form, (HAS_CJK.search(form) is not None, []))[1].append(number)
        self._first = frozenset(form[0] for form in self._forms)
        self._anywhere_lengths = tuple(sorted({len(f) for f, (anywhere, _n) in self._forms.items() if anywhere}))
        self._word_lengths = tuple(sorted({len(f) for f, (anywhere, _n) in self._forms.items() if not anywhere}))
        self._all_lengths = tuple(sorted(set(self._anywhere_lengths) | set(self._word_lengths)))

    def __bool__(self) -> bool:
        return bool(self._entries)

    def match(self, query: str) -> tuple[EntityMatch, ...]:
        """Entity names in ``query``; ``start``/``end`` index the query as given."""
        if not self._entries:
            return ()
        normalized = normalize_with_offsets(query)
        text = normalized.text
        size = len(text)
        occurrences: dict[int, list[tuple[int, int]]] = {}
        # At each position, look up the slices of the names' lengths (at most
        # MAX_NAME_LENGTH of them): linear in the query whatever the number of names.
        for start in range(size):
            if text[start] not in self._first:
                continue
            at_boundary = start == 0 or not _is_word(text[start - 1])
            for length in self._all_lengths if at_boundary else self._anywhere_lengths:
                end = start + length
                if end > size:
                    break
                found = self._forms.get(text[start:end])
                if found is None:
                    continue
                anywhere, numbers = found
                if anywhere or (at_boundary and (end == size or not _is_word(text[end]))):
                    for number in numbers:
                        occurrences.setdefault(number, []).append((start, end))
        owner: dict[int, tuple[int, int]] = {}
        matches: list[EntityMatch] = []
        for number in sorted(occurrences):
            key, sensitive, field, documents = self._entries[number]
            for start, end in _non_overlapping(occurrences[number]):
                start, end = normalized.original_span(start, end)
                if sensitive and unicodedata.normalize("NFKC", cap_joining_runs(query[start:end])) != key:
                    continue  # a name in capitals must be written in capitals
                if any(owner.get(p, (start, end)) != (start, end) for p in range(start, end)):
                    continue  # overlaps a longer (or earlier) name
                owner.update((p, (start, end)) for p in range(start, end))
                matches.append(EntityMatch(field, key, start, end, documents))
                break
        return tuple(sorted(matches, key=lambda m: (m.start, m.field, m.name)))


def _key(name: str) -> tuple[str, bool]:
    """A name's catalog key: NFKC for a name in capitals (matched case-sensitively), else the term form."""
    case_sensitive = name.isupper()
    return (unicodedata.normalize("NFKC", name) if case_sensitive else normalize_term(name)), case_sensitive


def _terms_of_name(analyzer, key: str, language) -> set[str]:
    """The distinct terms of ``key`` under the rules of ``language()``; the
    same under every language's rules (a ticker, most names) needs no language
    (a document's language is in its record, which would be parsed for it)."""
    found = [{term for term, _s, _e in analyzer.analyze(key, name)} for name in LANGUAGES]
    if all(terms == found[0] for terms in found):
        return found[0]
    return {term for term, _s, _e in analyzer.analyze(key, language())}


def _is_word(character: str) -> bool:
    """``\\w`` of ``re``: letters, digits and the underscore."""
    return character.isalnum() or character == "_"


def _non_overlapping(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Left to right, each span starting at or after the last one kept (what ``re.finditer`` yields)."""
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


def _common(index, key: str, named: set[str], first: str) -> str | None:
    """Rule 3 for a name that analyses to a single term (analysed as its first
    document, ``first``, is: in that document's language, which is read only
    when the languages' rules give the name different terms)."""
    terms = _terms_of_name(index.analyzer, key, lambda: index.document_languages[first])
    if len(terms) != 1:
        return None
    documents = term_document_ids(index, terms.pop())  # no scores computed for it
    if documents is None:
        return None
    return common_problem(documents, named, len(index.documents))
