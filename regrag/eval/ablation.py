"""The dense methods of ``regrag eval`` and its ablation (docs/evaluation.md, "Dense and the ablation").

``--method dense``, ``fused`` and ``rerank`` evaluate the methods of
``search --method dense|fused|rerank`` (``regrag.dense.answers.DenseMethod``: the
same rankings, and answers from their hits). ``--method ablation``
evaluates every combination of the three lists, bm25, tfidf and dense:
each alone, each pair and all three, fused by Reciprocal Rank Fusion with
the fixed rule of ``fused`` (k = 60, weight 1 a list, each list
``max(k, 100)`` deep, terms added in the order bm25, tfidf, dense). None is
tuned per data set. The lists are ranked without the entity step (as
``fused`` is), so the ablation's ``bm25`` is the bare BM25 list, and
``bm25+tfidf+dense`` is ``fused`` exactly. The ablation scores rankings
only (no answer metrics).

The passage vectors come from ``--index DIR`` (stored in its generation:
``regrag embed DIR``) or are embedded in memory with ``--embedder``.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Callable

from regrag.errors import InputError
from regrag.retrieval.fusion import reciprocal_rank_fusion
from regrag.retrieval.methods import DEFAULT_RRF_DEPTH, VECTOR_METHODS

LISTS = ("bm25", "tfidf", "dense")
DENSE_EVAL_METHODS = VECTOR_METHODS
ABLATION = tuple("+".join(combo) for size in (1, 2, 3) for combo in combinations(LISTS, size))
# bm25 alone, the three rules of regrag.dense.fusion_rules, and today's three-list fusion: side by side
RULE_METHODS = ("coverage",)  # rerank is a method of search itself (DenseMethod)
FUSION_CANDIDATES = ("bm25", "rerank", "bm25+dense", "coverage", "bm25+tfidf+dense")


class RankedLists:
    """Each query's lists, ranked once and shared by every method of one evaluation (bm25 at depth 100 is
    asked for by most combinations)."""

    def __init__(self, searcher: Any, query_vector: Callable[[str], tuple[int, ...]]) -> None:
        self._searcher, self._query_vector = searcher, query_vector
        self._cache: dict[tuple[str, str, int], list[tuple[int, float]]] = {}
        self._query = ""

    def ranked(self, query: str, name: str, depth: int) -> list[tuple[int, float]]:
        from regrag.dense.quantise import scores, top

        if query != self._query:  # evaluate_folder asks every method for one query before the next
            self._cache.clear()
            self._query = query
        key = (query, name, depth)
        if key not in self._cache:
            index, vectors = self._searcher.index, self._searcher.vectors
            if name == "dense":
                self._cache[key] = [(p, float(s)) for p, s in
                                    top(scores(self._query_vector(query), vectors.data, vectors.dimension), depth)]
            else:
                self._cache[key] = index.rank_positions(index.analyze_query(query), name, depth)
        return self._cache[key]


class ListFusion:
    """One combination of the lists, as ``evaluate_folder`` calls a method (``ranking``); the rest is the index's."""

    def __init__(self, searcher: Any, lists: tuple[str, ...], ranked: RankedLists) -> None:
        if not lists or any(name not in LISTS for name in lists) or len(set(lists)) != len(lists):
            raise InputError(f"not a combination of {', '.join(LISTS)}: {'+'.join(lists)}")
        self._searcher, self._ranked = searcher, ranked
        self.lists = tuple(name for name in LISTS if name in lists)  # the fixed order

    def __getattr__(self, name: str) -> Any:
        return getattr(self._searcher.index, name)

    def ask(self, *_arguments: Any, **_options: Any) -> Any:
        raise InputError("the ablation scores rankings only: evaluate it with answers off (eval does)")

    def ranking(self, query: str, k: int = 10, **_ignored: Any) -> list[tuple[str, str, float]]:
        index = self._searcher.index
        k = min(k, index.passage_count)
        if k < 1:
            return []
        depth = max(k, DEFAULT_RRF_DEPTH)  # a single list cut at k is the same list's first k
        ranked = {name: self._ranked.ranked(query, name, depth)[:depth if len(self.lists) > 1 else k]
                  for name in self.lists}
        if len(self.lists) == 1:
            order = ranked[self.lists[0]]
        else:
            order = [(p, score) for p, score, _best in
                     reciprocal_rank_fusion([[p for p, _s in ranked[name]] for name in self.lists])][:k]
        return [(index.passage(p).document_id, index.passage_id(p), score) for p, score in order]


class RuleFusion(ListFusion):
    """``coverage`` (``regrag.dense.fusion_rules``) over the shared BM25 and dense lists."""

    def __init__(self, searcher: Any, rule: str, ranked: RankedLists) -> None:
        super().__init__(searcher, ("bm25", "dense"), ranked)
        self.rule = rule

    def ranking(self, query: str, k: int = 10, **_ignored: Any) -> list[tuple[str, str, float]]:
        from regrag.dense.fusion_rules import query_coverage, weighted_rrf

        index = self._searcher.index
        k = min(k, index.passage_count)
        if k < 1:
            return []
        depth = max(k, DEFAULT_RRF_DEPTH)
        analyzed = index.analyze_query(query)
        lists = [[p for p, _s in self._ranked.ranked(query, name, depth)] for name in ("bm25", "dense")]
        coverage = query_coverage(analyzed.terms, lambda t: index.term_idf(t) is not None)
        order = weighted_rrf(lists, (1.0 + coverage, 1.0))[:k]
        return [(index.passage(p).document_id, index.passage_id(p), score) for p, score in order]


def dense_methods(methods: tuple[str, ...], index: Any, vectors: Any, embedder: Any) -> dict[str, Any]:
    """The method objects ``evaluate_folder(extra_methods=...)`` takes for ``methods`` (dense, fused, or the
    ablation's combinations), sharing one embedding of each query."""
    from regrag.dense.answers import DenseMethod
    from regrag.dense.search import DenseSearcher

    searcher = DenseSearcher(index, vectors, embedder)
    cache: dict[str, tuple[int, ...]] = {}
    shared = DenseMethod(searcher, "dense", cache)
    ranked = RankedLists(searcher, shared.query_vector)
    made: dict[str, Any] = {}
    for method in methods:
        if method in DENSE_EVAL_METHODS:
            made[method] = DenseMethod(searcher, method, cache)
        elif method in ABLATION:
            made[method] = ListFusion(searcher, tuple(method.split("+")), ranked)
        elif method in RULE_METHODS:
            made[method] = RuleFusion(searcher, method, ranked)
    return made


def vectors_for(index: Any, directory: str | None, embedder_name: str,
                progress: Callable[[int, int], None] | None = None) -> tuple[Any, Any]:
    """(vectors, embedder): those the generation of ``directory`` stores (``index`` opened from it), or the
    passages of ``index`` embedded in memory by ``embedder_name``."""
    from regrag.adapters.choose import embedder_for, make_embedder
    from regrag.dense.generation import load
    from regrag.dense.store import embed_index

    if directory is not None:
        vectors = load(directory, index)
        return vectors, embedder_for(vectors.identity)
    embedder = make_embedder(embedder_name)
    return embed_index(index, embedder, progress=progress), embedder


def index_for_folder(root: str, split: str, analyzer: str, parameters: Any,
                     progress: Callable[[str, int, int], None] | None = None) -> Any:
    """The index ``evaluate_folder`` would build for the labelled folder ``root`` (built first here, because
    its passages must be embedded before the dense methods can rank)."""
    from regrag.corpus.load import load_corpus
    from regrag.engine import Index
    from regrag.eval.run import load_labelled_set

    labelled = load_labelled_set(root, split, answers=False)
    corpus = load_corpus(labelled.corpus_path, collect_hint=False)
    return Index.from_documents(corpus.documents, analyzer=analyzer, parameters=parameters, skipped=corpus.skipped,
                                progress=None if progress is None else (lambda done, total: progress("indexing", done, total)))
