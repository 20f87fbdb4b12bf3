"""A small deterministic embedder that stands in for the model in the dense tests."""

from __future__ import annotations

import hashlib
import math


class HashingEmbedder:
    """Each token hashed into one of 32 dimensions, L2-normalised; records what it embedded."""

    name = "test-hashing-32"
    dimension = 32
    preprocessing = "none"

    def __init__(self, version: str = "1") -> None:
        self.version = version
        self.embedded: list[str] = []

    def identity(self):
        return {"adapter": "test", "dimension": 32, "normalization": "l2", "package": "tests", "passage_prefix": "",
                "preprocessing": "none", "query_prefix": "", "version": self.version, "weights_sha256": None}

    def embed(self, texts):
        self.embedded.extend(texts)
        vectors = []
        for text in texts:
            vector = [0.0] * 32
            for token in text.casefold().split():
                vector[int(hashlib.sha256(token.encode()).hexdigest(), 16) % 32] += 1.0
            norm = math.sqrt(math.fsum(v * v for v in vector)) or 1.0
            vectors.append([v / norm for v in vector])
        return vectors
