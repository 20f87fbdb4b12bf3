"""Scoring formulas (pure functions) and per-term explanations."""
