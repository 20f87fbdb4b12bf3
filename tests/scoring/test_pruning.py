"""Rank-safe pruning gives exactly the exhaustive top k: same passages, same
order, same score bits, on random corpora and queries."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag import Index
from regrag.corpus.model import Document, Section
from regrag.retrieval.query import analyze_query
from regrag.retrieval.ranking import _top, bm25_scores, tfidf_query_weights, tfidf_scores
from regrag.scoring.pruning import pruned_bm25_top, pruned_tfidf_top
from regrag.scoring.tfidf import vector_norm

WORDS = [f"w{i}" for i in range(40)]


def documents(texts):
    return [Document(f"d{i:03d}", "", text, (Section("", 0, len(text)),), (), "t") for i, text in enumerate(texts)]


# skewed word choice: a few words in almost every passage (long lists), many rare ones
word = st.integers(min_value=0, max_value=39).map(lambda i: WORDS[min(i, 39) * min(i, 39) // 40])
texts = st.lists(st.lists(word, min_size=1, max_size=30).map(" ".join), min_size=1, max_size=80)
# queries from the same skewed distribution, as real queries share the corpus's words
queries = st.lists(st.one_of(word, st.sampled_from(WORDS)), min_size=1, max_size=8).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(texts, queries, st.integers(min_value=1, max_value=15), st.sampled_from([0, 1, 8, 10**9]))
def test_pruned_top_k_equals_exhaustive(corpus, query, k, scan_ratio):
    # scan_ratio 0: remaining lists always looked up per candidate; 10**9: always scanned
    inverted = Index.from_documents(documents(corpus)).inverted
    analyzed = analyze_query(inverted, query)
    pruned = pruned_bm25_top(inverted, analyzed.terms, k, min_postings=0, scan_ratio=scan_ratio)
    exhaustive = _top(bm25_scores(inverted, analyzed), k, None)
    if pruned is not None:
        assert pruned == exhaustive
        assert [repr(s) for _p, s in pruned] == [repr(s) for _p, s in exhaustive]


def pruned_tfidf(inverted, analyzed, k, scan_ratio=8):
    weights = tfidf_query_weights(inverted, analyzed)
    if not weights:
        return None
    return pruned_tfidf_top(inverted, weights, vector_norm(w for _t, w in weights), k, min_postings=0, scan_ratio=scan_ratio)


@settings(max_examples=300, deadline=None)
@given(texts, queries, st.integers(min_value=1, max_value=15), st.sampled_from([0, 1, 8, 10**9]))
def test_pruned_tfidf_top_k_equals_exhaustive(corpus, query, k, scan_ratio):
    inverted = Index.from_documents(documents(corpus)).inverted
    analyzed = analyze_query(inverted, query)
    pruned = pruned_tfidf(inverted, analyzed, k, scan_ratio)
    exhaustive = _top(tfidf_scores(inverted, analyzed), k, None)
    if pruned is not None:
        assert pruned == exhaustive
        assert [repr(s) for _p, s in pruned] == [repr(s) for _p, s in exhaustive]


def test_pruning_actually_prunes_on_a_skewed_corpus():
    corpus = [" ".join(["common"] * 3 + ["rare" if i % 50 == 0 else "filler"]) for i in range(400)]
    corpus += ["rare rarer rarest common"] * 3
    inverted = Index.from_documents(documents(corpus)).inverted
    analyzed = analyze_query(inverted, "common filler rare rarer rarest")
    pruned = pruned_bm25_top(inverted, analyzed.terms, 3, min_postings=0)
    assert pruned is not None  # the threshold was reached before every list was scanned
    assert pruned == _top(bm25_scores(inverted, analyzed), 3, None)
    pruned_cosine = pruned_tfidf(inverted, analyzed, 3)
    assert pruned_cosine is not None
    assert pruned_cosine == _top(tfidf_scores(inverted, analyzed), 3, None)


def test_exhaustive_switch_gives_the_same_hits():
    index = Index.from_path("corpora/regulations/documents")
    query = "liquidity coverage ratio reporting deadline credit institution"
    before = {m: [hit.to_json() for hit in index.search(query, k=5, method=m)] for m in ("bm25", "tfidf", "hybrid")}
    assert {m: [hit.to_json() for hit in index.search(query, k=5, method=m, exhaustive=True)] for m in before} == before


def test_pruning_is_exercised_often_and_always_exact():
    """A seeded sweep: about a third of these cases prune (the rest fall back
    to exhaustive scoring), and every pruned result is the exhaustive one."""
    import random

    rng = random.Random(1)

    def draw():
        i = rng.randint(0, 39)
        return WORDS[i * i // 40]

    pruned_cases = 0
    for _ in range(300):
        corpus = [" ".join(draw() for _ in range(rng.randint(1, 30))) for _ in range(rng.randint(20, 80))]
        inverted = Index.from_documents(documents(corpus)).inverted
        analyzed = analyze_query(inverted, " ".join(draw() for _ in range(rng.randint(3, 8))))
        k = rng.randint(1, 5)
        exhaustive = _top(bm25_scores(inverted, analyzed), k, None)
        for scan_ratio in (0, 10**9):
            pruned = pruned_bm25_top(inverted, analyzed.terms, k, min_postings=0, scan_ratio=scan_ratio)
            if pruned is not None:
                pruned_cases += 1
                assert pruned == exhaustive
            pruned = pruned_tfidf(inverted, analyzed, k, scan_ratio)
            if pruned is not None:
                pruned_cases += 1
                assert pruned == _top(tfidf_scores(inverted, analyzed), k, None)
    assert pruned_cases >= 240
