"""Retrieval-augmented pipelines built on the core and the adapter protocols."""
