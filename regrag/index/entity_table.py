"""The entity names of a corpus's metadata and the documents each one names.

A pure function of an index's documents (their metadata), its analyzer and
postings (the common-term rule, ``entity_rules``) and one limit
(``Limits.entity_names_per_document``): so it is computed once when a
generation is published and stored with it (``entity_files``), and an index
opened from a directory reads it instead of every document's metadata
(docs/entities.md, "Stored with the index"). ``regrag.retrieval.entities``
matches queries against it.

Names come from the metadata fields ``ENTITY_FIELDS``; ``issuer_aliases``
and ``product_aliases`` hold several names separated by ``|``, ``tickers``
by ``,``. A name in capitals keeps its NFKC form and is matched
case-sensitively; any other name is keyed by its term form (NFKC + casefold).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field

from regrag.errors import CorruptIndexError
from regrag.index.document_access import term_document_ids
from regrag.index.entity_rules import MAX_NAME_LENGTH, RejectedName, common_problem, is_function_words, length_problem
from regrag.limits import DEFAULT_LIMITS, Limits
from regrag.text.normalize import normalize_term
from regrag.text.rules import RULES

LANGUAGES = tuple(language for language, _rules in RULES.languages)  # every language a document can have

ENTITY_FIELDS = ("issuer", "issuer_short", "issuer_aliases", "product", "product_short", "product_aliases", "ticker", "tickers")
_SEPARATORS = {"issuer_aliases": "|", "product_aliases": "|", "tickers": ","}


@dataclass(frozen=True)
class EntityEntry:
    """One name of one field: its catalog ``key`` (see the module), whether it
    is matched case-sensitively, and the sorted ids of the documents it names
    (a stored table's entry has ``span`` instead: where those ids are in its
    ``EntityTable.stored``, parsed when a query first matches the name)."""

    key: str
    sensitive: bool
    field: str
    documents: tuple[str, ...] = ()
    span: tuple[int, int] | None = None


@dataclass(frozen=True)
class EntityTable:
    """Every name used (longest key first, then key, then field: the order
    matching tries them) and every metadata value not used, sorted, with why.
    ``stored``/``where``: a stored table's document lists and their file."""

    entries: tuple[EntityEntry, ...]
    rejected: tuple[RejectedName, ...]
    stored: bytes = b""
    where: str = ""
    _parsed: dict = field(default_factory=dict, compare=False, repr=False)

    def __bool__(self) -> bool:
        return bool(self.entries or self.rejected)

    def documents(self, number: int) -> tuple[str, ...]:
        """The sorted ids of the documents entry ``number`` names."""
        entry = self.entries[number]
        if entry.span is None:
            return entry.documents
        found = self._parsed.get(number)
        if found is None:
            start, end = entry.span
            try:
                ids = json.loads(self.stored[start:end].decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                ids = None
            if not (isinstance(ids, list) and ids and all(isinstance(i, str) for i in ids)
                    and all(a < b for a, b in zip(ids, ids[1:]))):
                raise CorruptIndexError(f"{self.where}: malformed document list of the name {entry.key!r}")
            found = self._parsed[number] = tuple(ids)
        return found


def build_entity_table(documents, index=None, limits: Limits = DEFAULT_LIMITS) -> EntityTable:
    """The table of ``documents`` (objects with ``id`` and ``metadata_dict()``,
    in any order). ``index`` (an ``InvertedIndex`` of the same documents)
    enables the common-term rule."""
    rejected: list[RejectedName] = []
    table: dict[tuple[str, bool], dict[str, set[str]]] = {}
    problems: dict[str, str | None] = {}
    keys: dict[str, tuple[str, bool]] = {}  # _key of each name met so far
    for document in documents:
        for field, name in _names(document, limits, rejected, problems):
            key = keys.get(name)
            if key is None:
                key = keys[name] = name_key(name)
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
                    problem = common.get(name_key(name))
                    if problem is not None:
                        rejected.append(RejectedName(document.id, field, name, problem))
    entries = sorted(
        (EntityEntry(key, sensitive, field, tuple(sorted(ids)))
         for (key, sensitive), fields in table.items() for field, ids in fields.items()),
        key=lambda entry: (-len(entry.key), entry.key, entry.field),
    )
    return EntityTable(tuple(entries),
                       tuple(sorted(rejected, key=lambda r: (r.document_id, r.field, r.name, r.reason))))


def name_key(name: str) -> tuple[str, bool]:
    """A name's catalog key: NFKC for a name in capitals (matched case-sensitively), else the term form."""
    case_sensitive = name.isupper()
    return (unicodedata.normalize("NFKC", name) if case_sensitive else normalize_term(name)), case_sensitive


def _values(document) -> list[tuple[str, str]]:
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


def _names(document, limits: Limits, rejected: list[RejectedName],
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


def _terms_of_name(analyzer, key: str, language) -> set[str]:
    """The distinct terms of ``key`` under the rules of ``language()``; the
    same under every language's rules (a ticker, most names) needs no language
    (a document's language is in its record, which would be parsed for it)."""
    found = [{term for term, _s, _e in analyzer.analyze(key, name)} for name in LANGUAGES]
    if all(terms == found[0] for terms in found):
        return found[0]
    return {term for term, _s, _e in analyzer.analyze(key, language())}


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
