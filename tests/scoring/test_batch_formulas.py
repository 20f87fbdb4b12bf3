"""The batch formulas indexing calls and the scalar ones ``explain`` calls
give identical doubles (bit for bit) for arbitrary inputs within the accepted
parameter ranges (docs/scoring.md, "Parameter ranges"), and equal the
expressions index/build.py wrote out inline before they moved to scoring/."""

from __future__ import annotations

import struct

from hypothesis import given, settings, strategies as st

from regrag.index.parameters import IndexParameters, bm25_scorer, tfidf_scorer
from regrag.scoring.bm25 import bm25_idf, bm25_impacts, bm25_length_norm, bm25_length_norms, bm25_term_score
from regrag.scoring.fields import weighted_count, weighted_frequencies
from regrag.scoring.tfidf import (
    cosine, cosines, sublinear_table, sublinear_tf, tfidf_idf, tfidf_passage_weights, tfidf_weight, tfidf_weights,
    vector_norm,
)

COUNT = st.integers(min_value=0, max_value=2**26)  # terms in a passage's body or title (docs/scoring.md)
K1 = st.floats(min_value=0.0, max_value=1000.0)
B = st.floats(min_value=0.0, max_value=1.0)
TITLE_WEIGHT = st.one_of(st.just(0.0), st.floats(min_value=0.001, max_value=1000.0))
PASSAGES = st.integers(min_value=1, max_value=2**31 - 1)


def bits(value: float) -> bytes:
    return struct.pack("<d", value)


def same(left, right) -> bool:
    return [bits(x) for x in left] == [bits(x) for x in right]


@st.composite
def weighted_pairs(draw, min_size=1, max_size=30):
    """A title weight and (body count, title count) pairs with a positive weighted count."""
    weight = draw(TITLE_WEIGHT)
    pairs = draw(st.lists(st.tuples(COUNT, COUNT), min_size=min_size, max_size=max_size))
    pairs = [(body, title) for body, title in pairs if weighted_count(body, title, weight) > 0] or [(1, 0)]
    return weight, pairs


@st.composite
def idfs(draw):
    passages = draw(PASSAGES)
    frequency = draw(st.integers(min_value=1, max_value=passages))
    return passages, frequency


@settings(max_examples=300, deadline=None)
@given(k1=K1, b=B, weighted=weighted_pairs(), lengths=st.lists(st.tuples(COUNT, COUNT), min_size=1, max_size=30),
       statistics=idfs())
def test_bm25_batch_equals_scalar(k1, b, weighted, lengths, statistics):
    weight, pairs = weighted
    frequencies = [weighted_count(body, title, weight) for body, title in pairs]
    passage_lengths = [weighted_count(body, title, weight) for body, title in lengths]
    average = sum(passage_lengths) / len(passage_lengths) or 1.0
    norms = bm25_length_norms(passage_lengths, average, k1, b)
    assert same(norms, [bm25_length_norm(length, average, k1, b) for length in passage_lengths])
    assert same(norms, [k1 * (1.0 - b + b * length / average) for length in passage_lengths])  # the old inline form
    idf = bm25_idf(*statistics)
    positions = [i % len(norms) for i in range(len(frequencies))]
    posting_norms = [norms[p] for p in positions]
    impacts = bm25_impacts(idf, positions, frequencies, norms, k1)
    assert same(impacts, [bm25_term_score(idf, f, n, k1) for f, n in zip(frequencies, posting_norms)])
    k1_plus_one = k1 + 1.0
    assert same(impacts, [idf * (f * k1_plus_one / (f + n)) for f, n in zip(frequencies, posting_norms)])  # old inline
    scorer = bm25_scorer(IndexParameters(k1=k1, b=b, title_weight=weight), average)
    assert same(scorer.length_norms(passage_lengths), norms)
    assert same(scorer.impacts(idf, positions, frequencies, norms), impacts)
    assert same([scorer.impact(idf, f, n) for f, n in zip(frequencies, posting_norms)], impacts)


@settings(max_examples=300, deadline=None)
@given(weighted=weighted_pairs(), statistics=st.lists(idfs(), min_size=1, max_size=30),
       query_norm=st.floats(min_value=1e-3, max_value=1e9), dots=st.lists(st.floats(min_value=0.0, max_value=1e12), min_size=1, max_size=10),
       passage_norms=st.lists(st.floats(min_value=1e-3, max_value=1e12), min_size=10, max_size=10))
def test_tfidf_batch_equals_scalar(weighted, statistics, query_norm, dots, passage_norms):
    weight, pairs = weighted
    frequencies = [weighted_count(body, title, weight) for body, title in pairs]
    terms = [f"t{i}" for i in range(len(frequencies))]  # one passage's terms, each with its own IDF
    term_idfs = {term: tfidf_idf(*statistics[i % len(statistics)]) for i, term in enumerate(terms)}
    table = sublinear_table(frequencies)
    weights = tfidf_passage_weights(terms, frequencies, term_idfs, table)
    assert same(weights, [tfidf_weight(f, term_idfs[t]) for t, f in zip(terms, frequencies)])
    assert same(weights, [sublinear_tf(f) * term_idfs[t] for t, f in zip(terms, frequencies)])  # the old inline form
    one_idf = term_idfs[terms[0]]  # one term's postings, one IDF
    postings = tfidf_weights(frequencies, one_idf, table)
    assert same(postings, [tfidf_weight(f, one_idf) for f in frequencies])
    assert same(postings, [sublinear_tf(f) * one_idf for f in frequencies])  # the old inline form
    scorer = tfidf_scorer(IndexParameters(title_weight=weight))
    assert same(scorer.weights(frequencies, one_idf, table), postings)
    assert same(scorer.passage_weights(terms, frequencies, term_idfs, table), weights)
    assert bits(scorer.norm(weights)) == bits(vector_norm(weights))
    norms = passage_norms[: len(dots)]
    values = list(cosines(dots, query_norm, norms))
    assert same(values, [cosine(d, query_norm, n) for d, n in zip(dots, norms)])
    assert same(values, [d / (query_norm * n) for d, n in zip(dots, norms)])  # the old inline form
    assert same(values, [scorer.cosine(d, query_norm, n) for d, n in zip(dots, norms)])


@settings(max_examples=300, deadline=None)
@given(weight=TITLE_WEIGHT,
       body=st.dictionaries(st.sampled_from("abcdefgh"), st.integers(min_value=1, max_value=2**26), max_size=8),
       title=st.dictionaries(st.sampled_from("defghijk"), st.integers(min_value=1, max_value=2**26), max_size=8))
def test_weighted_frequencies_equal_weighted_count(weight, body, title):
    terms, frequencies = weighted_frequencies(body, title, weight)
    expected = [(term, weighted_count(body.get(term, 0), title.get(term, 0), weight)) for term in sorted(body.keys() | title.keys())]
    expected = [(term, value) for term, value in expected if value > 0]
    assert terms == tuple(term for term, _v in expected)
    assert same(frequencies, [value for _t, value in expected])
