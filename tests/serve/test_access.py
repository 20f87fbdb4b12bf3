"""Access groups at the view level: an unrestricted view is the index itself,
bit for bit; a restricted one never ranks, counts, explains, answers with or
names a document its principal may not read (docs/serve.md)."""

from __future__ import annotations

import pytest

from regrag import Index
from regrag.answer.options import AskOptions
from regrag.errors import InputError
from regrag.retrieval.options import SearchOptions
from regrag.serve.access import AccessView, document_groups, subset_index, unreadable_documents
from regrag.serve.auth import Principal

from tests.serve.support import DOCUMENTS, write_corpus

QUERIES = ("annual fee", "acquisition merger", "Zephyrion Holdings fee", "margin interest rate", "年费",
           "phí thường niên", "Quorvex acquisition plans", "information")
ALICE = Principal("alice", ("research",))
BOB = Principal("bob", ("advisory",))
DAVE = Principal("dave", ())
EVERYONE = Principal("carol", ("*",))
DESK_FILTER = {"alice": ["desk=research"], "bob": ["desk=advisory"]}


def view_of(index: Index, principal: Principal, unlabelled: str = "public") -> AccessView:
    return AccessView(index, unreadable_documents(index, principal, unlabelled))


def readable_ids(principal: Principal, unlabelled: str = "public") -> set[str]:
    found = set()
    for name, text in DOCUMENTS.items():
        header = dict(line.split(": ", 1) for line in text.split("\n\n", 1)[0].splitlines())
        groups = document_groups(header["access"]) if "access" in header else None
        if principal.reads_everything or (groups is None and unlabelled == "public") or (groups and groups & set(principal.groups)):
            found.add(name)
    return found


def test_access_values_split_on_bars():
    assert document_groups("research|advisory") == {"research", "advisory"}
    assert document_groups(" research | ") == {"research"}
    assert document_groups("") == frozenset()


@pytest.mark.parametrize("method", ["bm25", "tfidf", "hybrid"])
def test_a_view_that_hides_nothing_is_the_index_bit_for_bit(index, method):
    for principal in (EVERYONE, Principal("x", ("*", "research"))):
        view = view_of(index, principal)
        assert view.hidden == frozenset()
        for query in QUERIES:
            options = SearchOptions(k=10, method=method)
            assert [h.to_json() for h in view.search(query, options=options)] == \
                [h.to_json() for h in index.search(query, options=options)]
    question = "What is the annual fee of the standard account?"
    assert view.ask(question).to_json() == index.ask(question).to_json()


def test_a_restricted_search_is_the_same_as_one_filtered_to_the_readable_documents(index):
    # Filters are applied before the cut; access groups must behave exactly like them.
    for name, principal in (("alice", ALICE), ("bob", BOB)):
        view = view_of(index, principal)
        for method in ("bm25", "tfidf", "hybrid"):
            for query in QUERIES:
                options = SearchOptions(k=3, method=method, entities=False)
                restricted = view.search(query, options=options)
                assert {h.document_id for h in restricted} <= readable_ids(principal)
                readable_filtered = [
                    h for h in index.search(query, options=SearchOptions(k=50, method=method, entities=False))
                    if h.document_id in readable_ids(principal)]
                if method != "hybrid":  # RRF depends on each list's ranks, which are taken among the readable only
                    assert [(h.passage_id, h.score) for h in restricted] == \
                        [(h.passage_id, h.score) for h in readable_filtered[:3]]


def test_the_top_k_cut_comes_after_the_restriction(index):
    # alice reads 4 documents; asking for k=4 must give 4 readable hits for a query every document matches,
    # not fewer because hidden documents took places in the top k and were then removed
    view = view_of(index, ALICE)
    hits = view.search("fee", options=SearchOptions(k=4, method="bm25"))
    everything = [h for h in index.search("fee", options=SearchOptions(k=50, method="bm25"))]
    readable = [h for h in everything if h.document_id in readable_ids(ALICE)]
    assert len(hits) == min(4, len(readable))
    assert [h.passage_id for h in hits] == [h.passage_id for h in readable[:4]]


def test_a_hidden_document_is_not_found_by_its_unique_words(index):
    assert index.search("Zephyrion valuation")  # the term exists in the corpus
    for principal in (BOB, DAVE):
        view = view_of(index, principal)
        assert view.search("Zephyrion valuation", options=SearchOptions(method="bm25")) == []
        assert view.ranking("Zephyrion valuation", options=SearchOptions(method="tfidf")) == []


def test_the_entity_step_does_not_name_a_hidden_document(index):
    full = index.search("Zephyrion Holdings fee")
    assert full[0].entities is not None and "research-zephyrion.md" in full[0].entities.documents
    hits = view_of(index, BOB).search("Zephyrion Holdings fee")
    assert hits, "bob still gets the fee passages he may read"
    for hit in hits:
        assert hit.entities is None
        assert "research-zephyrion.md" not in hit.to_json()


def test_explain_and_lookups_of_a_hidden_passage_fail_as_for_an_unknown_one(index):
    view = view_of(index, BOB)
    with pytest.raises(InputError) as hidden:
        view.explain("acquisition", "research-zephyrion.md#1")
    with pytest.raises(InputError) as unknown:
        view.explain("acquisition", "no-such-document.md#1")
    assert str(hidden.value).replace("research-zephyrion.md", "X") == str(unknown.value).replace("no-such-document.md", "X")
    for call in (lambda: view.document("research-zephyrion.md"), lambda: view.position_of("research-zephyrion.md#1"),
                 lambda: view.passage_text("research-zephyrion.md#1"),
                 lambda: view.hits("fee", [("research-zephyrion.md#1", 1.0, ())], "bm25")):
        with pytest.raises(InputError):
            call()
    position = index.position_of("research-zephyrion.md#1")
    for call in (view.passage, view.passage_terms, view.passage_id):
        with pytest.raises(InputError):
            call(position)
    assert view.explain("annual fee", "public-rates.md#1").passage_id == "public-rates.md#1"


def test_a_filter_on_a_field_only_hidden_documents_have_says_no_such_field(index):
    # issuer is set only on alice's document: for bob it must look like a field no document has
    view = view_of(index, BOB)
    with pytest.raises(InputError) as error:
        view.search("fee", options=SearchOptions(filters=["issuer=Zephyrion Holdings"]))
    with pytest.raises(InputError) as unknown:
        view.search("fee", options=SearchOptions(filters=["nosuchfield=x"]))
    assert "no document has metadata field 'issuer'" in str(error.value)
    assert str(error.value).replace("issuer", "F") == str(unknown.value).replace("nosuchfield", "F")
    assert view_of(index, ALICE).search("fee", options=SearchOptions(filters=["issuer=Zephyrion Holdings"]))


def test_an_answer_cites_only_readable_documents(index):
    question = "What is the annual fee for the advisory account?"
    assert any(s.document_id == "advisory-client.md" for s in index.ask(question).sentences)
    answer = view_of(index, ALICE).ask(question, AskOptions())
    assert {s.document_id for s in answer.sentences} <= readable_ids(ALICE)
    assert {h.document_id for h in answer.hits} <= readable_ids(ALICE)
    assert "advisory-client.md" not in answer.to_json()
    refused = view_of(index, DAVE).ask("What is the valuation of Zephyrion Holdings?")
    assert {h.document_id for h in refused.hits} <= readable_ids(DAVE)
    assert "zephyrion.md" not in refused.to_json()


def test_unlabelled_documents_are_public_or_private(index):
    assert "public-rates.md" not in view_of(index, DAVE).hidden
    assert "public-rates.md" in view_of(index, DAVE, "private").hidden
    assert view_of(index, DAVE, "private").search("annual fee") == []
    assert view_of(index, EVERYONE, "private").hidden == frozenset()


def test_per_group_statistics_equal_an_index_of_the_readable_documents(index):
    hidden = unreadable_documents(index, ALICE)
    subset = AccessView(subset_index(index, hidden))
    alone = Index.from_documents([index.document(d) for d in sorted(readable_ids(ALICE))])
    for query in QUERIES:
        for method in ("bm25", "tfidf", "hybrid"):
            options = SearchOptions(k=5, method=method)
            assert [h.to_json() for h in subset.search(query, options=options)] == \
                [h.to_json() for h in alone.search(query, options=options)]


def test_what_corpus_wide_statistics_reveal_and_per_group_ones_do_not(tmp_path):
    """docs/serve.md: with corpus-wide statistics a readable passage's score moves when
    a hidden document changes (IDF and average length are the corpus's); per group, it does not."""
    changed = dict(DOCUMENTS)
    changed["advisory-client.md"] = changed["advisory-client.md"].replace("annual fee", "annual fee annual fee fee")
    before = Index.from_path(write_corpus(tmp_path / "a"))
    after = Index.from_path(write_corpus(tmp_path / "b", changed))
    options = SearchOptions(k=3, method="bm25")
    corpus_wide = [[(h.passage_id, h.score) for h in view_of(i, ALICE).search("annual fee", options=options)]
                   for i in (before, after)]
    assert corpus_wide[0] != corpus_wide[1]  # the leak the docs describe
    per_group = [[(h.passage_id, h.score) for h in AccessView(subset_index(i, unreadable_documents(i, ALICE)))
                  .search("annual fee", options=options)] for i in (before, after)]
    assert per_group[0] == per_group[1]
