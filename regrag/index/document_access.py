"""Whole-corpus questions about documents and passages that need no
document text: which passages belong to which documents, which documents
have metadata. A loaded index answers them from its small files
(``regrag.index.stored_documents``) without parsing a document; an index
built in memory from its objects. Filters, the entity catalog and passage
ids go through these, so a search on a freshly opened index parses only
the documents of its hits."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import Any

from regrag.index.stored_documents import DocumentMetadata, PassageIds, PassageList, StoredDocuments


class _Attribute(Sequence[str]):
    """``getattr(passage, name)`` of each passage of a built index, on demand."""

    def __init__(self, passages: Sequence[Any], name: str) -> None:
        self._passages, self._name = passages, name

    def __len__(self) -> int:
        return len(self._passages)

    def __getitem__(self, position):  # type: ignore[override]
        if isinstance(position, slice):
            return [getattr(p, self._name) for p in self._passages[position]]
        return getattr(self._passages[position], self._name)


def passage_document_ids(index) -> Sequence[str]:
    """The document id of each passage position."""
    passages = index.passages
    if isinstance(passages, PassageList):
        return passages.document_ids()
    return _Attribute(passages, "document_id")


def passage_ids(index) -> Sequence[str]:
    """The passage id (``DOCUMENT_ID#N``) of each passage position."""
    passages = index.passages
    if isinstance(passages, PassageList):
        return PassageIds(passages.stored)
    return _Attribute(passages, "id")


def term_document_ids(index, term: str) -> set[str] | None:
    """The ids of the documents whose passages hold ``term`` (None: no such
    term), without computing the term's scores on a loaded index."""
    postings = index.postings
    if hasattr(postings, "positions"):
        positions = postings.positions(term)
    else:
        entry = postings.get(term)
        positions = None if entry is None else entry.passages
    if positions is None:
        return None
    passages = index.passages
    if not isinstance(passages, PassageList):
        return {passages[p].document_id for p in positions}
    stored = passages.stored
    starts, ids = stored.passage_starts, stored.ids
    found: set[str] = set()
    number = 0
    for position in positions:  # ascending: each document is found from the last one
        if position >= starts[number + 1]:
            number = bisect.bisect_right(starts, position, number) - 1
        found.add(ids[number])
    return found


def documents_with_metadata(index) -> list[Any]:
    """Every document that has metadata, in id order (objects with ``id``,
    ``metadata`` and ``metadata_dict()``); the others have no field a filter
    or an entity name could match."""
    passages = index.passages
    if isinstance(passages, PassageList):
        return passages.stored.metadata()
    documents = index.documents
    return [DocumentMetadata(key, documents[key].metadata) for key in sorted(documents) if documents[key].metadata]


def metadata_may_match(index, pattern) -> bool | None:
    """Whether the verified bytes of a loaded index's ``metadata.json`` match
    ``pattern`` (a compiled bytes regex), read in place without parsing; None
    when the index keeps its metadata otherwise (in memory, segments, shards)."""
    passages = index.passages
    if not isinstance(passages, PassageList):
        return None
    stored = passages.stored
    if not isinstance(stored, StoredDocuments):  # segments combined: each has its own file
        return None
    return pattern.search(stored.metadata_bytes()) is not None


def positions_of_documents(index, document_ids: Iterable[str]) -> frozenset[int]:
    """The passage positions of the given documents (ids not in the index are ignored)."""
    passages = index.passages
    if isinstance(passages, PassageList):
        stored = passages.stored
        starts = stored.passage_starts
        positions: set[int] = set()
        for key in document_ids:
            number = stored.number(key)
            if number is not None:
                positions.update(range(starts[number], starts[number + 1]))
        return frozenset(positions)
    wanted = set(document_ids)
    return frozenset(p for p, passage in enumerate(passages) if passage.document_id in wanted)


def passage_position(index, document_id: str, number: int) -> int | None:
    """The position of passage ``number`` (from 1) of a document, or None."""
    passages = index.passages
    if isinstance(passages, PassageList):
        stored = passages.stored
        found = stored.number(document_id)
        if found is None or not 1 <= number <= stored.passage_starts[found + 1] - stored.passage_starts[found]:
            return None
        return stored.passage_starts[found] + number - 1
    wanted = (document_id, number)
    position = bisect.bisect_left(passages, wanted, key=lambda p: (p.document_id, p.number))
    if position < len(passages) and (passages[position].document_id, passages[position].number) == wanted:
        return position
    return None


def position_identifiers(index) -> tuple[Sequence[str], Sequence[str]]:
    """Document ids and passage ids by position, as lists for a built index
    (``Passage.id`` formats a string each call) and computed per position for
    a loaded one (no document parsed)."""
    passages = index.passages
    if isinstance(passages, PassageList):
        return passage_document_ids(index), passage_ids(index)
    return [p.document_id for p in passages], [p.id for p in passages]
