"""Scoring terms in batches of one document frequency gives the bytes of one call per term."""

from __future__ import annotations

from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag.index.parameters import IndexParameters, bm25_scorer, tfidf_scorer
from regrag.index.term_scores import term_scores
from regrag.scoring.bm25 import bm25_idf
from regrag.scoring.tfidf import sublinear_table, tfidf_idf

frequencies = st.sampled_from([0.5, 1.0, 2.0, 3.0, 1.5, 7.0, 12.0])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30).flatmap(lambda passages: st.tuples(
    st.just(passages),
    st.lists(st.lists(st.tuples(st.integers(0, passages - 1), frequencies), min_size=1, max_size=passages),
             min_size=0, max_size=25),
    st.lists(st.floats(0.5, 400.0), min_size=passages, max_size=passages))))
def test_batches_equal_one_call_per_term(case):
    passages, terms, lengths = case
    positions, values = [], []
    for postings in terms:
        kept = dict(postings)  # one posting a passage
        positions.append(array("i", sorted(kept)))
        values.append(array("d", (kept[p] for p in sorted(kept))))
    parameters = IndexParameters()
    bm25 = bm25_scorer(parameters, sum(lengths) / len(lengths))
    tfidf = tfidf_scorer(parameters)
    norms = bm25.length_norms(lengths)
    sublinear = sublinear_table(f for column in values for f in column)
    sizes = sorted({len(p) for p in positions})
    bm25_idfs = {df: bm25_idf(passages, df) for df in sizes}
    tfidf_idfs = {df: tfidf_idf(passages, df) for df in sizes}
    impacts, weights = term_scores(positions, values, bm25_idfs, tfidf_idfs, bm25, tfidf, norms, sublinear)
    for term_positions, term_values, term_impacts, term_weights in zip(positions, values, impacts, weights):
        df = len(term_positions)
        assert term_impacts.tobytes() == array("d", bm25.impacts(bm25_idfs[df], term_positions, term_values,
                                                                 norms)).tobytes()
        assert term_weights.tobytes() == array("d", tfidf.weights(term_values, tfidf_idfs[df], sublinear)).tobytes()
    assert len(impacts) == len(weights) == len(positions)
