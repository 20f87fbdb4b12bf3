"""Provenance records: what every hit carries so an auditor can check it.

A ``Hit`` says which passage matched, where it is in its document (character
offsets into the original text), which query terms matched where, each
retriever's rank and score, the fused score, and the id of the index, the
analyzer and the parameters it came from. ``to_json()`` is canonical JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from regrag.audit.canonical import JsonRecord, canonical_json
from regrag.corpus.origin import Location
from regrag.retrieval.entities import EntityStep

Span = tuple[int, int]


@dataclass(frozen=True)
class TermMatch:
    """A query term found in the passage.

    ``offsets`` index the original document text (within the passage span);
    ``title_offsets`` index the passage's ``section_title`` string.
    """

    term: str
    offsets: tuple[Span, ...]
    title_offsets: tuple[Span, ...]

    def to_dict(self) -> dict:  # by hand: on every hit's output path (a third of record_dict's time)
        return {
            "offsets": [list(span) for span in self.offsets],
            "term": self.term,
            "title_offsets": [list(span) for span in self.title_offsets],
        }


@dataclass(frozen=True)
class RetrieverResult(JsonRecord):
    """One retriever's rank (1-based) and score for a passage."""

    retriever: str
    rank: int
    score: float


@dataclass(frozen=True)
class MatchPlaces:
    """Where one matched occurrence of a term (``offsets`` in the extracted text) is in the original file."""

    term: str
    offsets: Span
    locations: tuple[Location, ...]

    def to_dict(self) -> dict:
        return {"locations": [place.to_dict() for place in self.locations], "offsets": list(self.offsets),
                "term": self.term}


@dataclass(frozen=True)
class OriginalPlaces:
    """For a hit on a document extracted from a PDF, DOCX, HTML or CSV file
    (docs/corpus.md, "Extracted formats"): the file (format, SHA-256, size,
    extractor and version), where the passage starts and ends in it, and
    where every matched term occurrence is."""

    file: tuple[tuple[str, str | int], ...]
    passage: tuple[Location, ...]
    matches: tuple[MatchPlaces, ...]

    def to_dict(self) -> dict:
        return {"file": dict(self.file), "matches": [m.to_dict() for m in self.matches],
                "passage": [place.to_dict() for place in self.passage]}


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
    original: OriginalPlaces | None = None  # extracted documents only (issue 18); absent from to_dict when None
    # dense and fused hits only: SHA-256 of the quantised query vector (docs/dense.md); absent from to_dict otherwise
    query_vector_sha256: str = ""
    # the synonym expansion (regrag.retrieval.synonym_query.SynonymExpansion); absent from to_dict when None
    synonyms: Any = None
    shard: int | None = None  # sharded indexes only: the shard holding the passage; absent from to_dict when None

    def to_dict(self) -> dict:
        """Every field (``original`` and ``query_vector_sha256`` only when set, so
        every other hit's record is what it was); the analyzer and the parameters as mappings."""
        found = self._to_dict()
        if self.original is not None:
            found["original"] = self.original.to_dict()
        return found

    def _to_dict(self) -> dict:
        """Every field but ``original`` (``query_vector_sha256`` only when set). Written out
        rather than ``record_dict``: this is on every search's output path, and
        by hand it takes a third of the time (tests/test_provenance.py checks
        it lists every field)."""
        record = {
            "analyzer": dict(self.analyzer),
            "corpus_root": self.corpus_root,
            "document_id": self.document_id,
            "entities": self.entities.to_dict() if self.entities is not None else None,
            "index_id": self.index_id,
            "matches": [m.to_dict() for m in self.matches],
            "method": self.method,
            "parameters": dict(self.parameters),
            "passage_id": self.passage_id,
            "passage_span": list(self.passage_span),
            "query": self.query,
            "query_terms": list(self.query_terms),
            "rank": self.rank,
            "retrievers": [r.to_dict() for r in self.retrievers],
            "score": self.score,
            "section_title": self.section_title,
            "source": self.source,
        }
        if self.query_vector_sha256:
            record["query_vector_sha256"] = self.query_vector_sha256
        if self.synonyms is not None:
            record["synonyms"] = self.synonyms.to_dict()
        if self.shard is not None:
            record["shard"] = self.shard
        return record

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, fixed separators, UTF-8, floats as ``repr``."""
        return canonical_json(self.to_dict())
