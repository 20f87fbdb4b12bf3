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
names (``regrag.index.entity_rules``: a least length, no function words, no term
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
from typing import Callable

from regrag.audit.canonical import JsonRecord
from regrag.corpus.model import Document
from regrag.index.document_access import documents_with_metadata, metadata_may_match
from regrag.index.entity_files import ENTITY_KEY
from regrag.index.entity_rules import MAX_NAME_LENGTH, MIN_NAME_LENGTH, RejectedName
from regrag.index.entity_table import ENTITY_FIELDS, EntityTable, build_entity_table
from regrag.limits import DEFAULT_LIMITS, Limits
from regrag.text.normalize import cap_joining_runs, normalize_term, normalize_with_offsets
from regrag.text.scripts import HAS_CJK

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


class EntityCatalog:
    """Every entity name in a corpus's metadata, with the documents it names.

    ``index`` (an ``InvertedIndex`` of the same documents) enables the
    common-term rule; ``rejected`` lists every value not used, sorted.
    ``EntityCatalog.from_table`` matches a table already built (the one a
    generation stores, ``regrag.index.entity_files``)."""

    def __init__(self, documents: list[Document], index=None, limits: Limits = DEFAULT_LIMITS) -> None:
        self._use(build_entity_table(documents, index, limits))

    @classmethod
    def from_table(cls, table: EntityTable) -> "EntityCatalog":
        catalog = cls.__new__(cls)
        catalog._use(table)
        return catalog

    def _use(self, table: EntityTable) -> None:
        self.table = table
        self.rejected: tuple[RejectedName, ...] = table.rejected
        self._entries = table.entries  # longest names first, then by text: a fixed order for matching
        # each name's matching form -> (matches anywhere: it has CJK, entry numbers)
        self._forms: dict[str, tuple[bool, list[int]]] = {}
        for number, entry in enumerate(self._entries):
            form = normalize_term(entry.key)
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
            entry = self._entries[number]
            key, sensitive, field = entry.key, entry.sensitive, entry.field
            for start, end in _non_overlapping(occurrences[number]):
                start, end = normalized.original_span(start, end)
                if sensitive and unicodedata.normalize("NFKC", cap_joining_runs(query[start:end])) != key:
                    continue  # a name in capitals must be written in capitals
                if any(owner.get(p, (start, end)) != (start, end) for p in range(start, end)):
                    continue  # overlaps a longer (or earlier) name
                owner.update((p, (start, end)) for p in range(start, end))
                matches.append(EntityMatch(field, key, start, end, self.table.documents(number)))
                break
        return tuple(sorted(matches, key=lambda m: (m.start, m.field, m.name)))


def catalog_for(inverted, limits: Limits, stored: Callable[[], EntityTable | None] | None = None) -> EntityCatalog:
    """The catalog of ``inverted``: the table its generation stores (``stored()``,
    ``regrag.index.entity_files.reader``) when there is one for these
    ``limits``, else built from the documents with metadata (a loaded index
    reads no document text for this)."""
    table = stored() if stored is not None else None
    if table is not None:
        return EntityCatalog.from_table(table)
    if metadata_may_match(inverted, ENTITY_KEY) is False:  # no entity field at all: nothing to parse
        return EntityCatalog.from_table(EntityTable((), ()))
    return EntityCatalog(documents_with_metadata(inverted), inverted, limits)


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


