"""Retrieval: query analysis, BM25/TF-IDF ranking, Reciprocal Rank Fusion,
metadata filters, the entity step and the hybrid ranking that combines them.
Imports only lower layers (text, corpus, index, scoring); see docs/architecture.md."""
