"""TF-IDF formulas and cosine scores."""

from __future__ import annotations

import math

from regrag import Index
from regrag.scoring.tfidf import cosine, sublinear_tf, tfidf_idf, vector_norm


def test_idf_and_sublinear_tf():
    assert tfidf_idf(3, 2) == 1.0 + math.log(4 / 3) or math.isclose(tfidf_idf(3, 2), 1.0 + math.log(4 / 3), rel_tol=1e-15)
    assert tfidf_idf(3, 3) == 1.0  # ln(4/4) = 0: a term in every passage still counts
    assert sublinear_tf(1.0) == 1.0
    assert math.isclose(sublinear_tf(3.0), 1.0 + math.log(3.0), rel_tol=1e-15)


def test_norm_and_cosine():
    assert vector_norm([3.0, 4.0]) == 5.0
    assert cosine(10.0, 2.0, 5.0) == 1.0


def test_scores_on_a_hand_checked_corpus(tiny_documents):
    index = Index.from_documents(tiny_documents)
    hits = index.search("apple", k=10, method="tfidf")
    # d1: appl tf 2, banana tf 1; d3: appl tf 1, cherri tf 3. Query: appl.
    idf_apple = 1 + math.log(4 / 3)
    idf_banana = 1 + math.log(4 / 3)
    idf_cherry = 1 + math.log(4 / 3)
    d1 = ((1 + math.log(2)) * idf_apple) / math.hypot((1 + math.log(2)) * idf_apple, idf_banana)
    d3 = idf_apple / math.hypot(idf_apple, (1 + math.log(3)) * idf_cherry)
    assert [hit.document_id for hit in hits] == ["d1", "d3"]
    assert math.isclose(hits[0].score, d1, rel_tol=1e-14)
    assert math.isclose(hits[1].score, d3, rel_tol=1e-14)


def test_identical_text_scores_one(make_doc):
    index = Index.from_documents([make_doc("a", "interest rate cap"), make_doc("b", "fee schedule")])
    (hit,) = index.search("interest rate cap", method="tfidf")
    assert math.isclose(hit.score, 1.0, rel_tol=1e-15)


def test_fractional_frequencies_keep_weights_positive(make_doc):
    from regrag import IndexParameters

    assert sublinear_tf(0.2) == 0.2 and sublinear_tf(1.0) == 1.0
    documents = [make_doc("a", "banana", title="Apple"), make_doc("b", "apple banana")]
    index = Index.from_documents(documents, parameters=IndexParameters(title_weight=0.2))
    hits = index.search("apple", method="tfidf")
    assert [h.document_id for h in hits] == ["b", "a"] and all(h.score > 0 for h in hits)
