"""The cost model of rank-safe pruning (issue 12): pruning never costs much
more than exhaustive scoring, and its results stay exactly the exhaustive ones.

Before issue 12 a 1,000-term query took 5-40 times as long pruned as
exhaustive (SciFact, 1,000 frequent terms, top-10: 0.24 s against 0.043 s),
because the stopping test passed over every partial sum before every list and
the suffix bounds were summed again for every list (quadratic)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from regrag import Index
from regrag.corpus.model import Document, Section
from regrag.retrieval.query import AnalyzedQuery
from regrag.retrieval.ranking import rank
from regrag.scoring.pruning import SCAN_RATIO, pruned_bm25_top
from regrag.scoring.pruning_cost import MAX_TERMS, exact_cost, suffix_bounds, worth_pruning

bounds = st.lists(st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False), max_size=300)


@settings(max_examples=300, deadline=None)
@given(bounds)
def test_suffix_bounds_never_underestimate(values):
    result = suffix_bounds(values)
    assert len(result) == len(values) + 1 and result[-1] == 0.0
    for i in range(len(values)):
        assert Fraction(result[i]) >= sum(map(Fraction, values[i:]), Fraction(0))
        assert result[i] <= math.fsum(values[i:]) * (1 + 1e-12) + 1e-300  # and barely above


def test_worth_pruning_decisions():
    assert not worth_pruning([100_000, 100_000], 10, SCAN_RATIO)  # fewer than three lists
    assert not worth_pruning([16] * 1_000, 10, SCAN_RATIO)  # many short lists: the exact sums cost too much
    assert not worth_pruning([2_000] * 3, 1_000, SCAN_RATIO)  # top-1000 of 6,000 postings
    assert not worth_pruning([5] * (MAX_TERMS + 1), 1, SCAN_RATIO)
    assert worth_pruning([50, 100_000, 200_000], 10, SCAN_RATIO)  # a rare term and two long lists
    assert worth_pruning([60_000] * 12, 10, SCAN_RATIO)


def test_exact_cost_takes_the_cheaper_way_per_list():
    # 10 candidates: a lookup each (80 units) beats scanning 10,000 postings
    assert exact_cost([10_000], 10, SCAN_RATIO) == 80 + 0.3 * 10
    # 1,000 candidates on a 100-posting list: a scan (30 units + 1,000 hits at most)
    assert exact_cost([100], 1_000, SCAN_RATIO) == 100 * 0.3 + 1_000 + 0.3 * 1_000


def zipf_corpus(size: int, vocabulary: int, words: int, seed: str) -> list[Document]:
    rng = random.Random(seed)
    names = [f"t{number:04d}x" for number in range(vocabulary)]
    weights = [1.0 / (number + 1) for number in range(vocabulary)]
    documents = []
    for number in range(size):
        text = " ".join(rng.choices(names, weights, k=words))
        documents.append(Document(f"d{number:05d}", "", text, (Section("", 0, len(text)),), (), "t"))
    return documents


def query_of(terms) -> AnalyzedQuery:
    ordered = tuple(sorted(terms))
    return AnalyzedQuery(" ".join(ordered), "en", ordered, tuple(1 for _ in ordered))


def test_cost_model_path_is_exact_and_prunes_some():
    """Through ``rank`` (the cost model deciding, nothing forced), on a skewed
    corpus: every result equals the exhaustive one, and some are pruned."""
    inverted = Index.from_documents(zipf_corpus(5_000, 2_000, 25, "cost-model")).inverted
    vocabulary = sorted(inverted.postings)
    rng = random.Random("queries")
    pruned = 0
    for length in range(1, 13):
        for offset in (0, 2, 5):
            frequent = vocabulary[offset:offset + length]  # "t0000x" is the most frequent term
            query = query_of(set(frequent) | set(rng.sample(vocabulary[30:], rng.randint(0, 4))))
            for method in ("bm25", "tfidf"):
                for k in (1, 10, 100):
                    assert rank(inverted, query, method, k, None, False) == rank(inverted, query, method, k, None, True)
            pruned += pruned_bm25_top(inverted, query.terms, 10) is not None
    assert pruned >= 5  # 9 of the 36 at the time of writing


def test_many_terms_cost_about_what_exhaustive_scoring_costs(monkeypatch):
    """1,000 frequent terms, top-10 and top-1000: the cost model gives up
    before discovery (the only step whose cost can exceed exhaustive
    scoring's), so pruning adds only the linear bound computation, and the
    results are exactly the exhaustive ones. Counted, not timed: the CPU-time
    sweep is ``bench/pruning_sweep.py`` (about 1.0x exhaustive after the fix,
    10-13x before it on this corpus)."""
    import regrag.scoring.pruning as pruning

    inverted = Index.from_documents(zipf_corpus(4_000, 3_000, 30, "pruning-cost")).inverted
    postings = inverted.postings
    frequent = sorted(postings, key=lambda term: (-len(postings[term].passages), term))[:1_000]
    query = query_of(frequent)
    discoveries = []
    discover = pruning._discover
    monkeypatch.setattr(pruning, "_discover", lambda *a, **k: discoveries.append(1) or discover(*a, **k))
    for method in ("bm25", "tfidf"):
        for k in (10, 1_000):
            assert rank(inverted, query, method, k, None, False) == rank(inverted, query, method, k, None, True)
    assert discoveries == []
