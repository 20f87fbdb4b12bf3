"""Custom ``Limits`` are carried and used everywhere (issue 12), and ``k`` and
``rrf_depth`` have caps.

Before issue 12 passage splitting and the query caps used ``DEFAULT_LIMITS``
whatever the caller passed: ``Limits(passages_per_document=2)`` still gave 4
passages and ``Limits(query_characters=50000)`` still refused 12,000
characters. Now an index keeps the limits it was built (or opened) with,
across ``updated()``, and every check uses them.
"""

from __future__ import annotations

import pytest

from regrag import Index
from regrag.cli import main
from regrag.corpus.model import Document, Section
from regrag.errors import InputError
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits

WORDS = ("annual fee waived", "travel insurance claim", "overseas card usage", "brokerage account margin")


def sectioned(document_id: str, count: int) -> Document:
    """A document of ``count`` sections, each one passage."""
    text, sections = "", []
    for number in range(count):
        body = f"{WORDS[number % len(WORDS)]} number {number}."
        sections.append(Section(f"part {number}", len(text), len(text) + len(body)))
        text += body + "\n"
    return Document(document_id, document_id, text, tuple(sections), (), "test")


# --- passage splitting -------------------------------------------------------------------------------


def test_default_limits_give_every_passage():
    assert Index.from_documents([sectioned("a", 4)]).passage_count == 4


def test_passages_per_document_is_the_callers_limit():
    with pytest.raises(LimitError, match="Limits.passages_per_document") as caught:
        Index.from_documents([sectioned("a", 4)], limits=Limits(passages_per_document=2))
    assert "more than 2 passages" in str(caught.value)
    assert Index.from_documents([sectioned("a", 2)], limits=Limits(passages_per_document=2)).passage_count == 2
    with pytest.raises(LimitError, match="more than 3 passages"):
        Index.from_documents([sectioned("a", 4)], limits=Limits(passages_per_document=3))
    assert Index.from_documents([sectioned("a", 4)], limits=Limits(passages_per_document=4)).passage_count == 4


def test_updated_keeps_the_limits():
    limits = Limits(passages_per_document=2)
    index = Index.from_documents([sectioned("a", 2)], limits=limits)
    assert index.limits is limits
    with pytest.raises(LimitError, match="more than 2 passages"):
        index.updated([sectioned("b", 3)])
    updated = index.updated([sectioned("b", 2)])
    assert updated.limits is limits and updated.passage_count == 4
    with pytest.raises(LimitError, match="more than 2 passages"):
        updated.updated([sectioned("c", 3)])
    # limits given to updated() replace the index's and are kept
    wider = updated.updated([sectioned("c", 3)], limits=Limits(passages_per_document=3))
    assert wider.limits == Limits(passages_per_document=3) and wider.passage_count == 7


def test_from_path_and_open_carry_the_limits(tmp_path):
    with pytest.raises(LimitError, match="Limits.passages_per_document"):
        Index.from_path(limits=Limits(passages_per_document=1))
    assert Index.from_path().limits is DEFAULT_LIMITS
    Index.from_path().save(tmp_path / "index")
    opened = Index.open(tmp_path / "index", limits=Limits(query_characters=20))
    assert opened.limits == Limits(query_characters=20)
    opened.search("x" * 20)
    with pytest.raises(LimitError, match="21 characters; the limit is 20"):
        opened.search("x" * 21)


def test_limits_must_be_limits():
    with pytest.raises(InputError, match="limits must be a regrag.limits.Limits"):
        Index.from_documents([sectioned("a", 1)], limits={"passages_per_document": 2})


# --- query caps ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def documents():
    return [sectioned("a", 4), sectioned("b", 4)]


def calls(index: Index):
    return {
        "search": lambda q: index.search(q),
        "ranking": lambda q: index.ranking(q),
        "ask": lambda q: index.ask(q),
        "explain": lambda q: index.explain(q, "a#1"),
        "hits": lambda q: index.hits(q, [], "bm25"),
        "analyze_query": lambda q: index.analyze_query(q),
    }


@pytest.mark.parametrize("call", ["search", "ranking", "ask", "explain", "hits", "analyze_query"])
def test_query_characters_is_the_indexs_limit(documents, call):
    wide = calls(Index.from_documents(documents, limits=Limits(query_characters=50_000)))[call]
    wide("fee " * 3_000)  # 12,000 characters: refused by the default limit before issue 12
    wide("x" * 50_000)
    with pytest.raises(LimitError, match="50,001 characters; the limit is 50,000"):
        wide("x" * 50_001)
    narrow = calls(Index.from_documents(documents, limits=Limits(query_characters=100)))[call]
    narrow("x" * 100)
    with pytest.raises(LimitError, match="101 characters; the limit is 100 "):
        narrow("x" * 101)
    with pytest.raises(LimitError, match="12,000 characters; the limit is 10,000 "):
        calls(Index.from_documents(documents))[call]("fee " * 3_000)


@pytest.mark.parametrize("call", ["search", "ranking", "ask", "explain", "hits", "analyze_query"])
def test_query_terms_is_the_indexs_limit(documents, call):
    function = calls(Index.from_documents(documents, limits=Limits(query_terms=2)))[call]
    function("travel insurance")  # words without built-in synonyms, so ask scores the 2 terms typed
    with pytest.raises(LimitError, match="3 distinct terms after analysis; the limit is 2 "):
        function("annual fee card")
    wide = calls(Index.from_documents(documents, limits=Limits(query_terms=1_500)))[call]
    wide(" ".join(f"w{number:04d}" for number in range(1_500)))  # refused by the default (1,000)


def test_query_terms_limit_counts_a_synonym_expansion():
    # ask expands by the built-in synonyms by default: "annual fee" is 2 terms as typed, 7 expanded
    # (annual, yearly, each year; fee, charge, cost), and the limit bounds what is scored
    index = Index.from_documents([sectioned("a", 4)], limits=Limits(query_terms=2))
    index.search("annual fee")
    with pytest.raises(LimitError, match="7 distinct terms after analysis and synonym expansion "
                                         r"\(2 as typed\); the limit is 2 "):
        index.ask("annual fee")
    with pytest.raises(LimitError, match="3 distinct terms after analysis; the limit is 2 "):
        index.ask("annual fee card")  # the typed query is checked first, with the message it always had


# --- k and rrf_depth ---------------------------------------------------------------------------------


def test_k_and_rrf_depth_defaults():
    assert (DEFAULT_LIMITS.k, DEFAULT_LIMITS.rrf_depth) == (10_000, 10_000)


@pytest.mark.parametrize("method", ["bm25", "tfidf", "hybrid"])
def test_k_cap_in_search_ranking_and_ask(documents, method):
    index = Index.from_documents(documents, limits=Limits(k=5, rrf_depth=7))
    assert len(index.search("fee", k=5, method=method, rrf_depth=7)) <= 5
    index.ranking("fee", k=5, method=method, rrf_depth=7)
    index.ask("annual fee", k=5, method=method, rrf_depth=7)
    for call in (index.search, index.ranking, index.ask):
        with pytest.raises(LimitError, match=r"k is 6; the limit is 5 \(regrag.limits.Limits.k\)"):
            call("fee", k=6, method=method, rrf_depth=7)
        if method == "hybrid":  # the only method that fuses lists of depth max(k, rrf_depth)
            with pytest.raises(LimitError, match=r"rrf_depth is 8; the limit is 7 \(regrag.limits.Limits.rrf_depth\)"):
                call("fee", k=5, method=method, rrf_depth=8)
        else:
            call("fee", k=5, method=method)  # the default rrf_depth (100) is not used, so not checked


def test_default_k_cap(documents):
    index = Index.from_documents(documents)
    index.ranking("fee", k=10_000, rrf_depth=10_000)
    with pytest.raises(LimitError, match="k is 10,001; the limit is 10,000"):
        index.ranking("fee", k=10_001)
    with pytest.raises(LimitError, match="rrf_depth is 100,000; the limit is 10,000"):
        index.search("fee", rrf_depth=100_000)
    with pytest.raises(InputError, match="k must be a positive integer"):
        index.search("fee", k=0)  # not a LimitError: checked first


def test_hits_cap(documents):
    index = Index.from_documents(documents, limits=Limits(k=3))
    ranked = [(f"a#{number}", 1.0, ()) for number in range(1, 5)]
    assert len(index.hits("fee", ranked[:3], "bm25")) == 3
    with pytest.raises(LimitError, match=r"more than 3 ranked passages.*Limits.k"):
        index.hits("fee", ranked, "bm25")


@pytest.mark.parametrize("option, field", [("-k", "k"), ("--rrf-depth", "rrf_depth")])
def test_cli_caps(capsys, option, field):
    assert main(["search", "annual fee", option, "10001", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"regrag: error: {field} is 10,001; the limit is 10,000 (regrag.limits.Limits.{field})\n"
    assert main(["search", "annual fee", option, "10000", "--json"]) == 0
    assert capsys.readouterr().err == ""
