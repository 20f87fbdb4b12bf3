"""One search's ranking: the entity step, then one retriever or the
Reciprocal Rank Fusion of BM25 and TF-IDF (``hybrid``).

When the query names known entities (docs/entities.md), the candidates are
first narrowed to their documents; if that leaves nothing, the step is
recorded as not applied and the search runs over every allowed passage.
A result is ``(position, score, lists)``: ``lists`` holds, for a hybrid
ranking, each fused list (so a ``Hit`` can name every retriever's rank and
score), and is None otherwise.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from regrag.index import document_access
from regrag.index.build import InvertedIndex
from regrag.provenance import RetrieverResult
from regrag.retrieval.entities import EntityCatalog, EntityStep
from regrag.retrieval.fusion import reciprocal_rank_fusion
from regrag.retrieval.methods import LEXICAL_METHODS
from regrag.retrieval.options import SearchOptions
from regrag.retrieval.query import AnalyzedQuery
from regrag.retrieval.ranking import rank, rank_columns

Lists = dict[str, list[tuple[int, float]]]
Result = tuple[int, float, Optional[Lists]]


def entity_step(catalog: EntityCatalog, query: str) -> EntityStep | None:
    """The entity step for ``query``: the names it uses and their documents (None when it names none)."""
    matches = catalog.match(query)
    if not matches:
        return None
    documents = tuple(sorted({d for match in matches for d in match.documents}))
    return EntityStep(matches, True, documents)


def ranked(index: InvertedIndex, analyzed: AnalyzedQuery, options: SearchOptions, allowed: frozenset[int] | None,
           step: EntityStep | None) -> tuple[list[Result], EntityStep | None]:
    """The top ``options.k`` results among ``allowed`` (all when None),
    narrowed by the entity ``step`` when it leaves any; and the step as applied."""
    return _with_entity_step(index, allowed, step, lambda among: ranked_among(index, analyzed, options, among), len)


def ranked_columns(index: InvertedIndex, analyzed: AnalyzedQuery, options: SearchOptions,
                   allowed: frozenset[int] | None, step: EntityStep | None
                   ) -> tuple[tuple[list[int], list[float]], EntityStep | None]:
    """``ranked`` for one retriever (``options.method`` ``bm25`` or ``tfidf``) as two lists,
    the positions and their scores (``Index.ranking``: no tuple per result); and the step as applied."""
    def among(positions: frozenset[int] | None) -> tuple[list[int], list[float]]:
        return rank_columns(index, analyzed, options.method, options.k, positions, options.exhaustive, options.kernel)

    return _with_entity_step(index, allowed, step, among, lambda columns: len(columns[0]))


def _with_entity_step(index: InvertedIndex, allowed: frozenset[int] | None, step: EntityStep | None,
                      rank_among: Callable[[frozenset[int] | None], Any], size: Callable[[Any], int]):
    """``rank_among`` the entity step's documents (those of ``allowed``) when the step
    leaves any result (``size``), else among ``allowed`` with the step marked not applied."""
    if step is not None:
        wanted = set(step.documents)
        narrowed = frozenset(
            p for p in document_access.positions_of_documents(index, wanted) if allowed is None or p in allowed
        )
        results = rank_among(narrowed)
        if size(results):
            return results, step
        step = EntityStep(step.matches, False, step.documents)
    return rank_among(allowed), step


def ranked_among(index: InvertedIndex, analyzed: AnalyzedQuery, options: SearchOptions,
                 allowed: frozenset[int] | None) -> list[Result]:
    """The top ``options.k`` results of ``options.method`` among ``allowed``."""
    if options.method != "hybrid":
        # retrievers are left None here and filled in by ``search`` (ranking() never needs them)
        return [(position, score, None)
                for position, score in rank(index, analyzed, options.method, options.k, allowed,
                                             options.exhaustive, options.kernel)]
    depth = options.fused_depth
    lists = {name: rank(index, analyzed, name, depth, allowed, options.exhaustive, options.kernel)
             for name in LEXICAL_METHODS}
    fused = reciprocal_rank_fusion([[p for p, _s in lists[name]] for name in LEXICAL_METHODS])
    # each result's retrievers are built when a Hit needs them (ranking() never does)
    return [(position, score, lists) for position, score, _best in fused[: options.k]]


def retriever_details(results: list[Result]) -> dict[int, tuple[RetrieverResult, ...]] | None:
    """For hybrid results: each position's rank and score in each fused list."""
    if not results or results[0][2] is None:
        return None
    lists = results[0][2]
    found: dict[int, list[RetrieverResult]] = {}
    for name in LEXICAL_METHODS:
        for rank_number, (position, score) in enumerate(lists[name], start=1):
            found.setdefault(position, []).append(RetrieverResult(name, rank_number, score))
    return {position: tuple(items) for position, items in found.items()}
