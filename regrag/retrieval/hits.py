"""A ``Hit``: one ranked passage with its full provenance."""

from __future__ import annotations

from functools import lru_cache

from regrag.index.build import InvertedIndex
from regrag.index.parameters import IndexParameters
from regrag.provenance import Hit, RetrieverResult, TermMatch
from regrag.retrieval.entities import EntityStep
from regrag.retrieval.original import original_places
from regrag.retrieval.query import AnalyzedQuery
from regrag.text.analyzer import Analyzer


@lru_cache(maxsize=64)
def _settings(analyzer: Analyzer, parameters: IndexParameters) -> tuple[tuple, tuple]:
    """The analyzer identity and parameters as every hit records them: the
    same for every hit of an index (both are frozen), so made once per pair."""
    return tuple(sorted(analyzer.identity().items())), tuple(sorted(parameters.to_dict().items()))


def build_hit(index: InvertedIndex, rank_number: int, position: int, score: float,
              retrievers: tuple[RetrieverResult, ...], method: str, analyzed: AnalyzedQuery,
              matches: tuple[TermMatch, ...], step: EntityStep | None = None) -> Hit:
    """The hit at rank ``rank_number`` for the passage at ``position``;
    ``matches`` are where the query's terms occur in it."""
    passage = index.passages[position]
    document = index.documents[passage.document_id]
    analyzer, parameters = _settings(index.analyzer, index.parameters)
    return Hit(
        rank=rank_number,
        score=score,
        method=method,
        document_id=document.id,
        passage_id=passage.id,
        source=document.source,
        section_title=passage.title,
        passage_span=(passage.start, passage.end),
        matches=matches,
        retrievers=retrievers,
        query=analyzed.text,
        query_terms=analyzed.terms,
        index_id=index.index_id,
        analyzer=analyzer,
        parameters=parameters,
        entities=step,
        corpus_root=index.corpus_root,
        original=None if document.origin is None else original_places(document.origin, passage, matches),
        synonyms=analyzed.synonyms,
        shard=index.shard_of_position(position) if hasattr(index, "shard_of_position") else None,
    )
