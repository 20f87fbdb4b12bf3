"""``_search``'s ``synonyms`` field and synonyms in a restricted view
(docs/serve.md, docs/synonyms.md): none by default, as for ``search``; the
built-in set when asked, recorded so the server's ledger replays it, and
applied to a restricted principal's ranking and explanations as to everyone's."""

from __future__ import annotations

import pytest

from regrag.answer.lexicon import LEXICON_SHA256, builtin_synonyms
from regrag.errors import InputError
from regrag.retrieval.options import SearchOptions
from regrag.serve.search_api import parse_search

from tests.serve.test_access import ALICE, readable_ids, view_of

QUERY = {"match": {"text": "penalty for late payment"}}


def test_default_is_none_and_builtin_is_recorded():
    plain = parse_search({"query": QUERY})
    assert plain.options.synonyms is None and "synonyms" not in plain.given
    expanded = parse_search({"query": QUERY, "synonyms": "builtin"})
    assert expanded.options.synonyms is builtin_synonyms()
    assert expanded.given["synonyms"]["sha256"] == LEXICON_SHA256
    with pytest.raises(InputError, match='"synonyms" must be "builtin" or "none"'):
        parse_search({"query": QUERY, "synonyms": "mine.txt"})


def test_a_restricted_view_expands_and_explains_as_the_index_does(index):
    view = view_of(index, ALICE)
    options = SearchOptions(k=50, method="bm25", entities=False, synonyms=builtin_synonyms())
    query = "penalty fee"
    restricted = view.search(query, options=SearchOptions(k=3, method="bm25", entities=False,
                                                          synonyms=builtin_synonyms()))
    assert restricted and all(hit.synonyms is not None and hit.synonyms.steps for hit in restricted)
    readable = [h for h in index.search(query, options=options) if h.document_id in readable_ids(ALICE)]
    assert [(h.passage_id, h.score) for h in restricted] == [(h.passage_id, h.score) for h in readable[:3]]
    for hit in restricted:
        explained = view.explain(query, hit.passage_id, builtin_synonyms())
        assert explained.to_dict() == index.explain(query, hit.passage_id, builtin_synonyms()).to_dict()
        assert explained.bm25.score == hit.score
        assert explained.query_terms != index.explain(query, hit.passage_id).query_terms
