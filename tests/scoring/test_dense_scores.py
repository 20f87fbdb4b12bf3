"""The dense accumulator gives the dictionary path's top k, bit for bit."""

from __future__ import annotations

import random

from regrag import Index
from regrag.corpus.model import Document, Section
from regrag.retrieval.ranking import _dense_rank, _top, bm25_scores, tfidf_query_weights, tfidf_scores
from regrag.scoring.tfidf import vector_norm


def bits(ranking):
    return [(position, score.hex()) for position, score in ranking]


def test_dense_sums_equal_the_dictionary_path():
    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    documents = []
    for number in range(120):
        text = " ".join(words[min(39, int(rng.expovariate(0.15)))] for _ in range(rng.randint(1, 30)))
        documents.append(Document(f"d{number:03d}", rng.choice(["", "w1 w3"]), text, (Section("", 0, len(text)),), (), "t"))
    index = Index.from_documents(documents)
    inverted = index._index
    for _ in range(200):
        query = index._analyze_checked(" ".join(rng.sample(words, rng.randint(1, 8))), None)
        weights = tfidf_query_weights(inverted, query)
        norm = vector_norm(w for _t, w in weights) if weights else None
        for allowed in (None, frozenset(range(0, inverted.passage_count, 3))):
            for k in (1, 5, 10, 50, 500):
                assert bits(_dense_rank(inverted, query, k, allowed, None, None)) == bits(
                    _top(bm25_scores(inverted, query), k, allowed))
                assert bits(_dense_rank(inverted, query, k, allowed, weights, norm)) == bits(
                    _top(tfidf_scores(inverted, query, weights, norm), k, allowed))
