"""Provenance records: what every hit carries so an auditor can check it.

A ``Hit`` says which passage matched, where it is in its document (character
offsets into the original text), which query terms matched where, each
retriever's rank and score, the fused score, and the id of the index, the
analyzer and the parameters it came from. ``to_json()`` is canonical JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

from regrag.audit.canonical import JsonRecord, canonical_json, record_dict
from regrag.retrieval.entities import EntityStep

Span = tuple[int, int]


@dataclass(frozen=True)
class TermMatch(JsonRecord):
    """A query term found in the passage.

    ``offsets`` index the original document text (within the passage span);
    ``title_offsets`` index the passage's ``section_title`` string.
    """

    term: str
    offsets: tuple[Span, ...]
    title_offsets: tuple[Span, ...]


@dataclass(frozen=True)
class RetrieverResult(JsonRecord):
    """One retriever's rank (1-based) and score for a passage."""

    retriever: str
    rank: int
    score: float


@dataclass(frozen=True)
class Hit:
    """One search result with its full provenance."""

    rank: int
    score: float
    method: str
    document_id: str
    passage_id: str
    source: str
    section_title: str
    passage_span: Span
    matches: tuple[TermMatch, ...]
    retrievers: tuple[RetrieverResult, ...]
    query: str
    query_terms: tuple[str, ...]
    index_id: str
    analyzer: tuple[tuple[str, str], ...]
    parameters: tuple[tuple[str, float | int], ...]
    entities: EntityStep | None = None
    corpus_root: str = ""  # Merkle root of the indexed corpus (docs/merkle.md)

    def to_dict(self) -> dict:
        """Every field; the analyzer and the parameters as mappings."""
        return record_dict(self, analyzer=dict(self.analyzer), parameters=dict(self.parameters))

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, fixed separators, UTF-8, floats as ``repr``."""
        return canonical_json(self.to_dict())
