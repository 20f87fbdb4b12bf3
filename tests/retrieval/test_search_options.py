"""SearchOptions and AskOptions: checked once, with the messages of search and ask;
options= gives exactly what the keyword arguments give."""

from __future__ import annotations

import dataclasses

import pytest

from regrag import AskOptions, Index, InputError, SearchOptions
from regrag.limits import LimitError, Limits
from regrag.retrieval.filters import Filter


@pytest.fixture(scope="module")
def index() -> Index:
    return Index.from_path("corpora/regulations/documents")


@pytest.mark.parametrize("changes, message", [
    ({"k": 0}, "k must be a positive integer, got 0"),
    ({"k": True}, "k must be a positive integer, got True"),
    ({"k": 2.0}, "k must be a positive integer, got 2.0"),
    ({"method": "dense"}, "unknown method 'dense'; choose one of bm25, tfidf, hybrid"),
    ({"rrf_depth": False}, "rrf_depth must be a positive integer, got False"),
])
def test_bad_options_are_refused_when_made_with_the_search_messages(index, changes, message):
    with pytest.raises(InputError) as made:
        SearchOptions(**changes)
    assert str(made.value) == message
    with pytest.raises(InputError) as searched:
        index.search("liquidity", **changes)
    assert str(searched.value) == message


def test_options_are_frozen_and_filters_are_kept_as_filter_records():
    options = SearchOptions(filters=["issuer = Acme"])
    assert options.filters == (Filter("issuer", "=", "Acme"),)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.k = 3  # type: ignore[misc]


def test_the_index_limits_are_checked_when_options_meet_the_index():
    small = Index.from_path("corpora/regulations/documents", limits=Limits(k=5))
    options = SearchOptions(k=6)  # fine on its own
    with pytest.raises(LimitError, match="k is 6; the limit is 5"):
        small.search("liquidity", options=options)


@pytest.mark.parametrize("method", ["bm25", "tfidf", "hybrid"])
def test_options_give_the_same_hits_as_keyword_arguments(index, method):
    query = "liquidity coverage ratio reporting deadline"
    by_keywords = index.search(query, k=4, method=method, rrf_depth=7, entities=False)
    by_options = index.search(query, options=SearchOptions(k=4, method=method, rrf_depth=7, entities=False))
    assert [h.to_json() for h in by_options] == [h.to_json() for h in by_keywords]
    assert index.ranking(query, options=SearchOptions(k=4, method=method)) == index.ranking(query, k=4, method=method)


def test_options_and_keyword_arguments_together_are_refused(index):
    with pytest.raises(InputError, match="not both"):
        index.search("liquidity", k=3, options=SearchOptions())


def test_ask_with_options_is_ask_with_keyword_arguments(index):
    question = "what is the liquidity coverage ratio reporting deadline"
    by_keywords = index.ask(question, k=4, max_sentences=2, threshold=0.3)
    from regrag.answer.lexicon import builtin_synonyms  # Index.ask's keyword arguments use the built-in synonyms

    by_options = index.ask(question, options=AskOptions(SearchOptions(k=4, synonyms=builtin_synonyms()),
                                                        max_sentences=2, threshold=0.3))
    assert by_options.to_json() == by_keywords.to_json()


@pytest.mark.parametrize("changes, message", [
    ({"threshold": 1.5}, "threshold must be a number between 0 and 1, got 1.5"),
    ({"threshold": True}, "threshold must be a number between 0 and 1, got True"),
    ({"max_sentences": 0}, "max_sentences must be a positive integer, got 0"),
])
def test_bad_ask_options_are_refused_with_the_ask_messages(index, changes, message):
    with pytest.raises(InputError) as made:
        AskOptions(**changes)
    assert str(made.value) == message
    with pytest.raises(InputError) as asked:
        index.ask("liquidity", **changes)
    assert str(asked.value) == message


def test_ask_options_default_to_five_results_and_the_refusal_threshold():
    from regrag.answer.confidence import REFUSAL_THRESHOLD

    assert AskOptions().search.k == 5 and AskOptions().threshold == REFUSAL_THRESHOLD


@pytest.mark.parametrize("kernel", ["python", "numpy"])
@pytest.mark.parametrize("method", ["bm25", "tfidf", "hybrid"])
def test_ranking_is_search_without_provenance_with_and_without_the_entity_step(method, kernel):
    if kernel == "numpy":
        pytest.importorskip("numpy")
    index = Index.from_path("regrag/data/default_corpus")
    queries = ["What is the margin interest rate on a Northquill Go margin account?",  # names a product
               "annual fee", "foreign currency conversion fee", "金莲白金信用卡的年费是多少？", "no such words here"]
    applied = 0
    for query in queries:
        for entities, filters in ((True, ()), (False, ()), (True, ("language=zh",))):
            options = SearchOptions(k=7, method=method, entities=entities, filters=filters, kernel=kernel)
            hits = index.search(query, options=options)
            applied += any(h.entities is not None and h.entities.applied for h in hits)
            assert [(d, p, s.hex()) for d, p, s in index.ranking(query, options=options)] == \
                [(h.document_id, h.passage_id, h.score.hex()) for h in hits]
    assert applied  # the entity step narrowed at least one of these searches
