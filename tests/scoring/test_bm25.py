"""BM25 formulas: exact values, Lucene's IDF, title weighting."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

from regrag import Index, IndexParameters
from regrag.scoring.bm25 import bm25_idf, bm25_length_norm, bm25_term_score


def _reference_ln(numerator: int, denominator: int) -> float:
    with localcontext() as context:
        context.prec = 80
        return float((Decimal(numerator) / Decimal(denominator)).ln())


def test_idf_is_lucene_formula_correctly_rounded():
    for total, frequency in [(3, 1), (3, 2), (5183, 1), (5183, 2000), (10, 10), (1, 1)]:
        expected = _reference_ln(2 * (total + 1), 2 * frequency + 1)
        assert bm25_idf(total, frequency) == expected
        lucene = math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
        # Lucene's float expression rounds its argument first, so it may differ in the last bits.
        assert math.isclose(bm25_idf(total, frequency), lucene, rel_tol=1e-12)


def test_idf_golden_values():
    # Correctly rounded doubles of the exact logarithms; identical on every
    # platform. (math.log(1.6) gives 0.47000362924573563: the ln of the double
    # nearest 1.6, not of 8/5.)
    assert repr(bm25_idf(3, 2)) == "0.4700036292457356"  # ln(8/5)
    assert repr(bm25_idf(10, 2)) == "1.4816045409242156"  # ln(4.4)


def test_idf_is_positive_even_for_terms_in_every_passage():
    assert bm25_idf(10, 10) > 0


def test_term_score_formula():
    norm = bm25_length_norm(4.0, 3.0, 1.5, 0.75)
    assert norm == 1.5 * (1.0 - 0.75 + 0.75 * 4.0 / 3.0)
    assert bm25_term_score(2.0, 1.0, norm, 1.5) == 2.0 * (1.0 * 2.5 / (1.0 + norm))


def test_scores_on_a_hand_checked_corpus(tiny_documents):
    index = Index.from_documents(tiny_documents)
    hits = index.search("apple", k=10, method="bm25")
    assert [hit.document_id for hit in hits] == ["d1", "d3"]
    idf = math.log(1.6)  # N = 3, n = 2: ln((3 + 1)/(2 + 0.5))
    average = 3.0  # lengths 3, 2, 4
    d1 = idf * (2 * 2.5 / (2 + 1.5 * (0.25 + 0.75 * 3 / average)))
    d3 = idf * (1 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 4 / average)))
    assert math.isclose(hits[0].score, d1, rel_tol=1e-15)
    assert math.isclose(hits[1].score, d3, rel_tol=1e-15)
    assert repr(hits[0].score) == repr(bm25_term_score(bm25_idf(3, 2), 2.0, bm25_length_norm(3.0, 3.0, 1.5, 0.75), 1.5))


def test_title_weighting_in_frequency_and_length(make_doc):
    documents = [make_doc("a", "banana", title="Apple"), make_doc("b", "apple banana")]
    index = Index.from_documents(documents)
    explained = index.explain("apple", "a#1").bm25
    (term,) = explained.terms
    assert (term.body_frequency, term.title_frequency, term.weighted_frequency) == (0, 1, 3.0)
    assert explained.weighted_length == 4.0  # body 1 + 3 × title 1
    assert explained.average_length == 3.0  # (4 + 2) / 2
    unweighted = Index.from_documents(documents, parameters=IndexParameters(title_weight=1.0))
    assert unweighted.explain("apple", "a#1").bm25.terms[0].weighted_frequency == 1.0


def test_parameters_change_scores_and_index_id(tiny_documents):
    default = Index.from_documents(tiny_documents)
    other = Index.from_documents(tiny_documents, parameters=IndexParameters(k1=0.9, b=0.4))
    assert default.index_id != other.index_id
    assert default.search("apple", method="bm25")[0].score != other.search("apple", method="bm25")[0].score
