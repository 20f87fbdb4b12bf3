"""Dense and fused rankings over stored vectors, with provenance.

Three methods (``DENSE_METHODS``):

- ``dense``: passages by the exact integer dot product of their stored
  int8 vector with the query's (``regrag.dense.quantise``), score descending,
  then index position (document id, passage number);
- ``fused``: Reciprocal Rank Fusion (k = 60, ``regrag.retrieval.fusion``) of
  three lists, each ``max(k, rrf_depth)`` deep, added in this fixed order:
  BM25, TF-IDF, dense. Every list has weight 1: the rule is fixed, never
  tuned per data set. ``hybrid`` stays the fusion of BM25 and TF-IDF only;
- ``rerank`` (the published stock-news design, ``regrag.dense.fusion_rules``):
  the ``RERANK_POOL`` (20) best passages by the dense score, ordered by their
  BM25 score among themselves (score descending, then index position); pool
  passages without a query term follow in dense order (score 0.0), then the
  dense list from rank 21 on (score 0.0). A hit's bm25 rank is its rank
  within the pool. The pool size is the published one, not tuned.

Filters select the passages before every list is cut, as for ``search``;
the entity step is not applied (a dense ranking is over meaning, not names).
Each hit's provenance is a lexical hit's with: the method, each list's rank
and score (the dense score is the integer, as a float), the **dense index id**
(``DenseVectors.dense_index_id``: the lexical id, the embedder's identity and
the vectors' SHA-256) and ``query_vector_sha256``, the hash of the quantised
query vector. Given that vector (``query_vector=``, e.g. from a ledger entry)
no embedder is needed: the ranking is integer arithmetic over stored bytes.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from regrag.dense.fusion_rules import RERANK_POOL, reranked
from regrag.dense.quantise import check_query_vector, quantise, scores, top, vector_hash
from regrag.dense.store import DenseVectors, cleaning_of, embedder_identity
from regrag.errors import InputError
from regrag.limits import check_search_depth
from regrag.provenance import Hit, RetrieverResult
from regrag.retrieval.fusion import reciprocal_rank_fusion
from regrag.retrieval.methods import DEFAULT_RRF_DEPTH, VECTOR_METHODS
from regrag.validation import check_positive_int

DENSE_METHODS = VECTOR_METHODS
FUSED_LISTS = ("bm25", "tfidf", "dense")  # the order their RRF terms are added


class DenseSearcher:
    """Dense and fused search over an ``Index`` and its ``DenseVectors``;
    ``embedder`` (optional) embeds queries and must have made the vectors."""

    def __init__(self, index: Any, vectors: DenseVectors, embedder: Any = None) -> None:
        if vectors.index_id != index.index_id or vectors.passage_count != index.passage_count:
            raise InputError(f"the dense vectors belong to index {vectors.index_id[:16]}, not {index.index_id[:16]}")
        if embedder is not None and embedder_identity(embedder) != vectors.identity:
            raise InputError("the embedder is not the one that made the stored vectors (their identities differ: "
                             "package, version, weights SHA-256, prefixes or preprocessing); re-embed the index")
        self.index = index
        self.vectors = vectors
        self.embedder = embedder

    @property
    def dense_index_id(self) -> str:
        return self.vectors.dense_index_id

    def query_vector(self, query: str) -> tuple[int, ...]:
        """The quantised vector of ``query`` (its query side, cleaned as the embedder declares)."""
        if self.embedder is None:
            raise InputError("no embedder to embed the query: give one, or a recorded query vector")
        text = cleaning_of(self.vectors.identity).apply(query)
        method = getattr(self.embedder, "embed_queries", None)
        [vector] = method([text]) if callable(method) else self.embedder.embed([text])
        return quantise(vector)

    def search(self, query: str, k: int = 10, method: str = "dense", filters: Any = None,
               rrf_depth: int = DEFAULT_RRF_DEPTH, query_vector: Sequence[int] | None = None,
               kernel: str = "auto") -> list[Hit]:
        """The top ``k`` passages by ``method`` (``dense`` or ``fused``; module docstring)."""
        if method not in DENSE_METHODS:
            raise InputError(f"unknown dense method {method!r}; choose one of {', '.join(DENSE_METHODS)}")
        check_positive_int(k, "k")
        check_positive_int(rrf_depth, "rrf_depth")
        index = self.index
        check_search_depth(k, rrf_depth if method == "fused" else None, index.limits)
        analyzed = index.analyze_query(query)  # the query checks and limits, before anything is embedded
        allowed = index.filtered_positions(filters or ())
        vector = (check_query_vector(list(query_vector), self.vectors.dimension) if query_vector is not None
                  else self.query_vector(query))
        ranked = [(index.passage_id(p), score, details)
                  for p, score, details in self.ranked_positions(analyzed, vector, k, method, allowed, rrf_depth, kernel)]
        hits = index.hits(query, ranked, method)
        digest = vector_hash(vector)
        return [replace(hit, index_id=self.dense_index_id, query_vector_sha256=digest) for hit in hits]

    def ranked_positions(self, analyzed: Any, vector: Sequence[int], k: int, method: str = "dense",
                         allowed: frozenset[int] | None = None, rrf_depth: int = DEFAULT_RRF_DEPTH,
                         kernel: str = "auto") -> list[tuple[int, float, tuple[RetrieverResult, ...]]]:
        """The top ``k`` (position, score, each list's rank and score) by ``method``, without provenance
        (``search`` builds it; ``eval`` ranks thousands of passages a query)."""
        index = self.index
        depth = {"dense": k, "rerank": max(k, RERANK_POOL)}.get(method, max(k, rrf_depth))
        dense = top(scores(vector, self.vectors.data, self.vectors.dimension, kernel), depth, allowed)
        if method == "dense":
            return [(p, float(s), (RetrieverResult("dense", r, float(s)),)) for r, (p, s) in enumerate(dense, start=1)]
        if method == "rerank":
            return self._reranked(analyzed, dense, k)
        lists = {name: index.rank_positions(analyzed, name, depth, allowed) for name in ("bm25", "tfidf")}
        lists["dense"] = [(p, float(s)) for p, s in dense]
        details: dict[int, list[RetrieverResult]] = {}
        for name in FUSED_LISTS:
            for r, (p, s) in enumerate(lists[name], start=1):
                details.setdefault(p, []).append(RetrieverResult(name, r, s))
        fused = reciprocal_rank_fusion([[p for p, _s in lists[name]] for name in FUSED_LISTS])
        return [(p, score, tuple(details[p])) for p, score, _best in fused[:k]]

    def _reranked(self, analyzed: Any, dense: list[tuple[int, int]],
                  k: int) -> list[tuple[int, float, tuple[RetrieverResult, ...]]]:
        """``rerank``'s top ``k`` from the dense list (at least ``RERANK_POOL`` deep when the passages allow):
        each hit with its dense rank and score and, in the pool, its BM25 rank and score among the pool."""
        pool = frozenset(p for p, _s in dense[:RERANK_POOL])
        lexical = self.index.rank_positions(analyzed, "bm25", len(pool), pool)
        order = reranked([(p, float(s)) for p, s in dense], lexical, k)
        dense_of = {p: (r, float(s)) for r, (p, s) in enumerate(dense, start=1)}
        bm25_of = {p: (r, s) for r, (p, s) in enumerate(lexical, start=1)}
        ranked = []
        for p, score in order:
            details = [RetrieverResult("bm25", *bm25_of[p])] if p in bm25_of else []
            details.append(RetrieverResult("dense", *dense_of[p]))
            ranked.append((p, score, tuple(details)))
        return ranked
