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
Longer names win over shorter ones they contain; a name must have 2 to 200
characters (``MIN_NAME_LENGTH``, ``MAX_NAME_LENGTH``). If no passage of the named
entities' documents matches the query, the step is recorded as not applied
and the search runs over the whole corpus.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from regrag.corpus.model import Document
from regrag.text.normalize import cap_joining_runs, normalize_term, normalize_with_offsets
from regrag.text.scripts import HAS_CJK

ENTITY_FIELDS = ("issuer", "issuer_short", "issuer_aliases", "product", "product_short", "product_aliases", "ticker", "tickers")
_SEPARATORS = {"issuer_aliases": "|", "product_aliases": "|", "tickers": ","}
MIN_NAME_LENGTH = 2
# Longer metadata values are not names (a real issuer, product or ticker name
# is far shorter): they are left out of the catalog, which keeps building it
# linear in the metadata (normalising a long run of combining marks is not).
MAX_NAME_LENGTH = 200


@dataclass(frozen=True)
class EntityMatch:
    """One entity name found in the query."""

    field: str
    name: str
    start: int
    end: int
    documents: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"documents": list(self.documents), "end": self.end, "field": self.field, "name": self.name, "start": self.start}


@dataclass(frozen=True)
class EntityStep:
    """What the entity step did for one query."""

    matches: tuple[EntityMatch, ...]
    applied: bool
    documents: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"applied": self.applied, "documents": list(self.documents), "matches": [m.to_dict() for m in self.matches]}


def _names(document: Document) -> list[tuple[str, str]]:
    metadata = document.metadata_dict()
    names = []
    for field in ENTITY_FIELDS:
        value = metadata.get(field)
        if not value:
            continue
        separator = _SEPARATORS.get(field)
        parts = value.split(separator) if separator else [value]
        for part in parts:
            part = " ".join(part.split())
            if MIN_NAME_LENGTH <= len(part) <= MAX_NAME_LENGTH:
                names.append((field, part))
    return names


class EntityCatalog:
    """Every entity name in a corpus's metadata, with the documents it names."""

    def __init__(self, documents: list[Document]) -> None:
        table: dict[tuple[str, bool], dict[str, set[str]]] = {}
        for document in documents:
            for field, name in _names(document):
                case_sensitive = name.isupper()
                key = unicodedata.normalize("NFKC", name) if case_sensitive else normalize_term(name)
                table.setdefault((key, case_sensitive), {}).setdefault(field, set()).add(document.id)
        # Longest names first, then by text: a fixed order for matching.
        self._entries = sorted(
            ((key, sensitive, field, tuple(sorted(ids))) for (key, sensitive), fields in table.items() for field, ids in fields.items()),
            key=lambda entry: (-len(entry[0]), entry[0], entry[2]),
        )
        self._patterns = {key: _pattern(normalize_term(key)) for key, _s, _f, _d in self._entries}

    def __bool__(self) -> bool:
        return bool(self._entries)

    def match(self, query: str) -> tuple[EntityMatch, ...]:
        """Entity names in ``query``; ``start``/``end`` index the query as given."""
        if not self._entries:
            return ()
        normalized = normalize_with_offsets(query)
        taken: list[tuple[int, int]] = []
        found: list[EntityMatch] = []
        for key, sensitive, field, documents in self._entries:
            for match in self._patterns[key].finditer(normalized.text):
                start, end = normalized.original_span(*match.span())
                if sensitive and unicodedata.normalize("NFKC", cap_joining_runs(query[start:end])) != key:
                    continue  # a name in capitals must be written in capitals
                if any(start < e and s < end for s, e in taken if (s, e) != (start, end)):
                    continue
                taken.append((start, end))
                found.append(EntityMatch(field, key, start, end, documents))
                break
        return tuple(sorted(found, key=lambda m: (m.start, m.field, m.name)))


def _pattern(name: str) -> re.Pattern[str]:
    escaped = re.escape(name)
    if HAS_CJK.search(name):
        return re.compile(escaped)
    return re.compile(rf"(?<![\w]){escaped}(?![\w])")
