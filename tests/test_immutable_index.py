"""An Index is immutable: what it was made from is fixed at construction, and
the old exhaustive switch is a search option (a clear error says so)."""

from __future__ import annotations

import pytest

from regrag import Index
from regrag.answer.searcher import Searcher
from regrag.corpus.model import Document, Section
from regrag.limits import Limits


def doc(document_id: str, text: str) -> Document:
    return Document(document_id, "", text, (Section("", 0, len(text)),), (), "test")


def test_setting_exhaustive_on_an_index_names_the_search_option():
    index = Index.from_documents([doc("a", "alpha beta gamma")])
    with pytest.raises(AttributeError, match=r"exhaustive=True"):
        index.exhaustive = True
    with pytest.raises(AttributeError, match=r"SearchOptions\(exhaustive=True\)"):
        index.exhaustive  # noqa: B018


@pytest.mark.parametrize("name", ["skipped", "generation", "limits"])
def test_what_an_index_was_made_from_is_read_only(name):
    index = Index.from_documents([doc("a", "alpha beta gamma")])
    with pytest.raises(AttributeError):
        setattr(index, name, None)


def test_skipped_and_limits_are_set_at_construction_and_updated_keeps_limits():
    limits = Limits(k=7)
    index = Index.from_documents([doc("a", "alpha beta gamma")], limits=limits,
                                 skipped=(("notes.bin", "not UTF-8"),))
    assert index.skipped == (("notes.bin", "not UTF-8"),) and index.limits is limits
    updated = index.updated([doc("b", "delta")])
    assert updated.limits is limits and updated.generation is None and updated.skipped == ()


def test_the_index_has_every_member_of_the_searcher_protocol():
    members = {name for name in vars(Searcher) if not name.startswith("_")}
    assert members and all(hasattr(Index, name) for name in members), sorted(m for m in members if not hasattr(Index, m))
