"""The retrieval methods and their defaults, in one place (the CLI, the
evaluation runner, golden files and ``SearchOptions`` all read them here)."""

METHODS = ("bm25", "tfidf", "hybrid")  # hybrid: Reciprocal Rank Fusion of bm25 and tfidf
LEXICAL_METHODS = ("bm25", "tfidf")  # the lists a hybrid ranking fuses, in the order their terms are added
# ranked over the stored dense vectors of an index directory (regrag.dense.search; docs/dense.md):
# dense alone, fused (RRF of bm25, tfidf, dense), rerank (the dense top 20 ordered by BM25)
VECTOR_METHODS = ("dense", "fused", "rerank")
DEFAULT_METHOD = "hybrid"
DEFAULT_K = 10
DEFAULT_RRF_DEPTH = 100  # each fused list is max(k, rrf_depth) deep
