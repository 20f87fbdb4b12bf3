"""An index's passages looked up: by passage id, by metadata filter, and
analysed again for provenance (where each query term occurs)."""

from __future__ import annotations

from typing import Iterable

from regrag.errors import InputError
from regrag.index import document_access
from regrag.index.build import InvertedIndex
from regrag.provenance import TermMatch
from regrag.retrieval.filters import Filter

# A passage number has at most this many digits (passages are counted in 32 bits);
# longer digit strings are not converted (int() refuses more than 4,300 digits).
MAX_PASSAGE_NUMBER_DIGITS = 10

Terms = tuple[tuple[str, int, int], ...]


def passage_position(index: InvertedIndex, passage_id: str) -> int:
    """The position of ``passage_id`` (``InputError`` if unknown), by binary
    search: passages are sorted by (document id, number)."""
    if not isinstance(passage_id, str):
        raise InputError(f"a passage id must be a string such as 'DOCUMENT_ID#1', got {passage_id!r}")
    document_id, _, number = passage_id.rpartition("#")
    if (document_id in index.documents and number.isascii() and number.isdigit()
            and not number.startswith("0") and len(number) <= MAX_PASSAGE_NUMBER_DIGITS):
        position = document_access.passage_position(index, document_id, int(number))
        if position is not None:
            return position
    raise InputError(f"no passage with id {passage_id!r} (passage ids look like 'DOCUMENT_ID#1')")


def allowed_positions(index: InvertedIndex, filters: tuple[Filter, ...]) -> frozenset[int] | None:
    """The positions of the passages whose document passes every filter (None
    without filters); ``InputError`` for a field no document has."""
    if not filters:
        return None
    documents = document_access.documents_with_metadata(index)  # a document without metadata matches no filter
    for condition in filters:
        if not any(condition.field in dict(d.metadata) for d in documents):
            raise InputError(f"filter {condition}: no document has metadata field {condition.field!r}")
    matching = {
        document.id for document in documents if all(condition.matches(document.metadata_dict()) for condition in filters)
    }
    return document_access.positions_of_documents(index, matching)


def analyze_passage(index: InvertedIndex, position: int) -> tuple[Terms, Terms]:
    """Body terms with offsets into the document text, and title terms with
    offsets into the title."""
    passage = index.passages[position]
    document = index.documents[passage.document_id]
    language = index.passage_languages[position]
    offset = passage.start
    body = tuple(
        (term, offset + start, offset + end)
        for term, start, end in index.analyzer.analyze(document.text[passage.start : passage.end], language)
    )
    return body, tuple(index.analyzer.analyze(passage.title, language))


def passage_matches(index: InvertedIndex, position: int, terms: tuple[str, ...]) -> tuple[TermMatch, ...]:
    """``term_matches`` of the analysed passage, from an analysis that keeps
    only ``terms`` (``Analyzer.matches``: the same offsets, in the same order)."""
    passage = index.passages[position]
    document = index.documents[passage.document_id]
    language = index.passage_languages[position]
    wanted = frozenset(terms)
    offset = passage.start
    body = [(term, offset + start, offset + end) for term, start, end
            in index.analyzer.matches(document.text[passage.start : passage.end], wanted, language)]
    return term_matches(body, index.analyzer.matches(passage.title, wanted, language), wanted)


def term_matches(body_terms: Terms, title_terms: Terms, terms: Iterable[str]) -> tuple[TermMatch, ...]:
    """Where each of ``terms`` occurs in an analysed passage's body and title."""
    wanted = set(terms)
    body: dict[str, list[tuple[int, int]]] = {}
    for term, start, end in body_terms:
        if term in wanted:
            body.setdefault(term, []).append((start, end))
    title: dict[str, list[tuple[int, int]]] = {}
    for term, start, end in title_terms:
        if term in wanted:
            title.setdefault(term, []).append((start, end))
    return tuple(
        TermMatch(term, tuple(body.get(term, ())), tuple(title.get(term, ())))
        for term in sorted(body.keys() | title.keys())
    )
