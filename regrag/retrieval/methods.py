"""The retrieval methods and their defaults, in one place (the CLI, the
evaluation runner, golden files and ``SearchOptions`` all read them here)."""

METHODS = ("bm25", "tfidf", "hybrid")  # hybrid: Reciprocal Rank Fusion of bm25 and tfidf
LEXICAL_METHODS = ("bm25", "tfidf")  # the lists a hybrid ranking fuses, in the order their terms are added
DEFAULT_METHOD = "hybrid"
DEFAULT_K = 10
DEFAULT_RRF_DEPTH = 100  # each fused list is max(k, rrf_depth) deep
