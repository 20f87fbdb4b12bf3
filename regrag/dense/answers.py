"""``ask`` and ``eval`` with ``--method dense|fused`` (docs/dense.md, "ask and eval").

An extractive answer is chosen exactly as for the lexical methods
(``regrag.answer.extractive.answer_question``: the same sentence support,
short answer and confidence); only the hits it starts from are the dense or
fused ones (``DenseSearcher``: the same ranking, provenance and dense index
id as ``search --method dense|fused``). The confidence's agreement term
ranks the question with bm25 and tfidf, as it does after any single-list
search, so it is not changed by the dense list.

``DenseMethod`` is what ``regrag.eval.run.evaluate_folder`` needs of a
method it does not know: ``ranking`` (document id, passage id, score) and
``ask``; everything else is the index's.
"""

from __future__ import annotations

from typing import Any, Sequence

from regrag.dense.search import DENSE_METHODS, DenseSearcher
from regrag.errors import InputError
from regrag.retrieval.methods import DEFAULT_RRF_DEPTH


class _DenseHits:
    """An index seen through ``regrag.answer.searcher.Searcher`` whose ``search`` gives dense or fused hits."""

    def __init__(self, searcher: DenseSearcher, method: str, query_vector: Sequence[int] | None) -> None:
        self._searcher, self._method, self._vector = searcher, method, query_vector

    def __getattr__(self, name: str) -> Any:
        return getattr(self._searcher.index, name)

    @property
    def index_id(self) -> str:
        return self._searcher.dense_index_id

    def search(self, query: str, *, options: Any = None) -> list:
        return self._searcher.search(query, k=options.k, method=self._method, filters=options.filters,
                                     rrf_depth=options.rrf_depth, query_vector=self._vector)


def dense_answer(searcher: DenseSearcher, question: str, method: str = "fused", k: int = 5, filters: Any = None,
                 max_sentences: int = 3, threshold: float | None = None, rrf_depth: int = DEFAULT_RRF_DEPTH,
                 query_vector: Sequence[int] | None = None) -> Any:
    """The extractive ``Answer`` to ``question`` from the ``method`` (``dense`` or ``fused``) hits; its
    ``index_id`` is the dense index id. ``query_vector``: a recorded one (no embedder needed)."""
    from regrag.answer.extractive import answer_question
    from regrag.answer.options import ask_options_from

    if method not in DENSE_METHODS:
        raise InputError(f"unknown dense method {method!r}; choose one of {', '.join(DENSE_METHODS)}")
    index = searcher.index
    # the lexical options carry k, filters, depth and threshold; the entity step is not applied (docs/dense.md)
    options = ask_options_from(None, index.limits, question, k, "hybrid", filters, max_sentences, False,
                               threshold, rrf_depth, False)
    return answer_question(_DenseHits(searcher, method, query_vector), question, options)


class DenseMethod:
    """``dense`` or ``fused`` as ``evaluate_folder`` calls a method: ``ranking`` and ``ask``; the rest is the index's."""

    def __init__(self, searcher: DenseSearcher, method: str, cache: dict[str, tuple[int, ...]] | None = None) -> None:
        if method not in DENSE_METHODS:
            raise InputError(f"unknown dense method {method!r}; choose one of {', '.join(DENSE_METHODS)}")
        self._searcher, self.method = searcher, method
        # each query embedded once, for its ranking and its answer (and, shared, for every method)
        self._vectors: dict[str, tuple[int, ...]] = {} if cache is None else cache

    def __getattr__(self, name: str) -> Any:
        return getattr(self._searcher.index, name)

    def query_vector(self, query: str) -> tuple[int, ...]:
        if query not in self._vectors:
            self._vectors[query] = self._searcher.query_vector(query)
        return self._vectors[query]

    def ranking(self, query: str, k: int = 10, method: str | None = None, **_ignored: Any) -> list[tuple[str, str, float]]:
        """The top ``k`` as (document id, passage id, score), as ``search --method dense|fused`` ranks them."""
        searcher, index = self._searcher, self._searcher.index
        if min(k, index.passage_count) < 1:
            return []
        analyzed = index.analyze_query(query)
        ranked = searcher.ranked_positions(analyzed, self.query_vector(query), min(k, index.passage_count), self.method)
        return [(index.passage(p).document_id, index.passage_id(p), score) for p, score, _lists in ranked]

    def ask(self, question: str, method: str | None = None, threshold: float | None = None, **_ignored: Any) -> Any:
        return dense_answer(self._searcher, question, self.method, threshold=threshold,
                            query_vector=self.query_vector(question))
