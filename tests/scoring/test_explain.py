"""explain(): per-term contributions that sum, in order, to exactly the score."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from regrag import Index, InputError

WORDS = ["rate", "fee", "card", "loan", "limit", "bank", "IT", "3.45%", "费用", "利率"]


def _check(index: Index, query: str, k: int = 20) -> None:
    for method in ("bm25", "tfidf"):
        for hit in index.search(query, k=k, method=method):
            explanation = index.explain(query, hit.passage_id)
            part = explanation.bm25 if method == "bm25" else explanation.tfidf
            assert part.score == hit.score  # exact, not approximately
            if method == "bm25":
                total = 0.0
                for term in part.terms:
                    total += term.contribution
                assert total == hit.score
            else:
                dot = 0.0
                for term in part.terms:
                    dot += term.product
                assert dot == part.dot


def test_explain_matches_search_on_default_corpus(default_index):
    for query in ["annual fee", "margin interest rate", "金莲白金信用卡的年费是多少", "travel insurance waiting period 等待期"]:
        _check(default_index, query)


@settings(max_examples=60, deadline=None)
@given(
    documents=st.lists(st.lists(st.sampled_from(WORDS), min_size=0, max_size=12), min_size=1, max_size=8),
    titles=st.lists(st.sampled_from(["", "Fees", "Rates and limits", "费用说明"]), min_size=8, max_size=8),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
)
def test_explain_sums_exactly_on_random_corpora(documents, titles, query):
    from regrag.corpus.model import Document, Section

    docs = []
    for number, words in enumerate(documents):
        text = " ".join(words)
        docs.append(Document(f"doc{number}", titles[number], text, (Section(titles[number], 0, len(text)),), (), "t"))
    _check(Index.from_documents(docs), " ".join(query))


def test_explain_unknown_passage(default_index):
    with pytest.raises(InputError, match="no passage"):
        default_index.explain("fee", "nope.md#1")
    with pytest.raises(InputError, match="no passage"):
        default_index.explain("fee", "harbourline-flex-saver-account.md#999")


def test_explain_of_unmatched_passage_is_zero(default_index):
    explanation = default_index.explain("zzzz unknown words", "harbourline-flex-saver-account.md#1")
    assert explanation.bm25.terms == () and explanation.bm25.score == 0.0
    assert explanation.tfidf.score == 0.0
    assert not math.isnan(explanation.tfidf.score)
