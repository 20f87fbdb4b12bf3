"""``Searcher``: what answers need from an index, as a typed protocol.

``regrag.Index`` satisfies it; the answer modules (and the stock-news
pipeline) read an index only through these methods, never through its
internal data (``Index.inverted``), so the index's layout can change
without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Protocol

if TYPE_CHECKING:
    from regrag.corpus.model import Document, Passage
    from regrag.provenance import Hit, RetrieverResult
    from regrag.retrieval.entities import EntityCatalog
    from regrag.retrieval.options import SearchOptions
    from regrag.retrieval.query import AnalyzedQuery
    from regrag.text.analyzer import Analyzer

Terms = tuple[tuple[str, int, int], ...]


class Searcher(Protocol):
    """Ranking with hits, passage text and sections, and the analyzer."""

    @property
    def index_id(self) -> str: ...

    @property
    def corpus_root(self) -> str: ...

    @property
    def analyzer(self) -> "Analyzer": ...

    @property
    def passage_count(self) -> int: ...

    @property
    def entity_catalog(self) -> "EntityCatalog": ...

    def search(self, query: str, *, options: "SearchOptions | None" = None) -> list["Hit"]:
        """The top passages for ``query`` with their provenance."""

    def ranking(self, query: str, *, options: "SearchOptions | None" = None) -> list[tuple[str, str, float]]:
        """The same ranking as (document id, passage id, score)."""

    def rank_positions(self, analyzed: "AnalyzedQuery", method: str, k: int,
                       allowed: frozenset[int] | None = None, exhaustive: bool = False) -> list[tuple[int, float]]:
        """One retriever's top ``k`` (position, score) among ``allowed``."""

    def hits(self, query: str, ranked: Iterable[tuple[str, float, tuple["RetrieverResult", ...]]],
             method: str) -> list["Hit"]:
        """Provenance for passages ranked by the caller."""

    def analyze_query(self, query: str) -> "AnalyzedQuery":
        """The query's language, distinct terms and counts (limits checked)."""

    def document(self, document_id: str) -> "Document": ...

    def document_language(self, document_id: str) -> str: ...

    def passage(self, position: int) -> "Passage": ...

    def passage_id(self, position: int) -> str: ...

    def position_of(self, passage_id: str) -> int: ...

    def filtered_positions(self, filters) -> frozenset[int] | None: ...

    def passage_terms(self, position: int) -> tuple[Terms, Terms]:
        """Body terms (offsets into the document text) and title terms."""

    def term_idf(self, term: str) -> float | None:
        """The BM25 IDF of an indexed term; None for a term in no passage."""
