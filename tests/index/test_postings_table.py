"""A loaded index reads its postings in place (memory-mapped columns, or the
same columns in memory) and must behave exactly like the index it was saved
from: same rankings, scores, provenance, explanations and file bytes."""

from __future__ import annotations

import tempfile
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import Index
from regrag.corpus.model import Document, Section
from regrag.index import postings_cache, codec as storage
from regrag.index.postings_table import PostingsTable

WORDS = ["apple", "banana", "cherry", "fee", "rate", "VNM", "3.5%", "ngân hàng", "lãi suất", "年费", "利率", "margin", "loan"]
QUERIES = ["apple fee", "cherry rate VNM", "lãi suất ngân hàng", "年费 利率", "margin loan 3.5% apple banana", "banana", "zzz"]


def document(document_id: str, words: list[str], title: str) -> Document:
    text = " ".join(words) + "."
    return Document(document_id, title, text, (Section(title, 0, len(text)),), (), f"{document_id}.md")


corpora = st.dictionaries(
    st.sampled_from([f"d{i}" for i in range(12)]),
    st.tuples(st.lists(st.sampled_from(WORDS), max_size=15), st.sampled_from(["", "Fees", "Rates"])),
    min_size=1,
    max_size=10,
)


def observed(index: Index) -> dict:
    """Everything a caller can see, down to the bytes."""
    results = {
        (query, method, k): [hit.to_json() for hit in index.search(query, k=k, method=method)]
        for query in QUERIES
        for method in ("bm25", "tfidf", "hybrid")
        for k in (1, 3, 50)
    }
    explanations = [
        index.explain(query, passage.id).to_json() for query in QUERIES[:3] for passage in index.inverted.passages
    ]
    files = storage.serialise(index.inverted, "test")
    return {"results": results, "explanations": explanations, "files": files, "id": index.index_id}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(corpora)
def test_opened_index_equals_the_built_one_bit_for_bit(corpus):
    built = Index.from_documents(document(key, words, title) for key, (words, title) in corpus.items())
    expected = observed(built)
    with tempfile.TemporaryDirectory() as directory:
        built.save(directory)
        for memory_map in (True, False):
            opened = Index.open(directory, memory_map=memory_map)
            assert isinstance(opened.inverted.postings, PostingsTable)
            assert observed(opened) == expected
            # an update of an opened index equals one of the built index
            extra = document("zz", ["apple", "loan", "年费"], "Fees")
            assert observed(opened.updated([extra])) == observed(built.updated([extra]))


def test_memory_mapped_columns_are_mapped_and_the_rest_are_arrays(tmp_path: Path):
    built = Index.from_documents([document("a", ["apple", "fee"], "Fees"), document("b", ["apple", "rate"], "")])
    built.save(tmp_path)
    mapped_table = Index.open(tmp_path).inverted.postings
    copied_table = Index.open(tmp_path, memory_map=False).inverted.postings
    mapped, copied = mapped_table["appl"], copied_table["appl"]
    # positions.bin is mapped (or read whole); a term's positions are decoded from its gaps into an int32 array
    assert type(mapped_table._positions.checked.data.obj).__name__ == "mmap"
    assert type(copied_table._positions.checked.data.obj).__name__ != "mmap"
    assert isinstance(mapped.passages, array) and mapped.passages.typecode == "i"
    assert isinstance(copied.passages, array) and copied.passages.typecode == "i"
    assert list(mapped.passages) == list(copied.passages) == [0, 1]
    assert list(mapped.bm25_impacts) == list(copied.bm25_impacts) == list(built.inverted.postings["appl"].bm25_impacts)


def test_table_is_a_sorted_read_only_mapping(tmp_path: Path):
    built = Index.from_documents([document("a", ["cherry", "apple"], ""), document("b", ["banana"], "")])
    built.save(tmp_path)
    table = Index.open(tmp_path).inverted.postings
    assert list(table) == sorted(built.inverted.postings) == ["appl", "banana", "cherri"]
    assert len(table) == 3 and "appl" in table and "apple" not in table and 3 not in table
    assert table.get("nothing") is None
    assert table.get("nothing", "default") == "default"  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        table["nothing"]
    assert table["appl"] is table["appl"]  # cached
    assert [term for term, _entry in table.items()] == ["appl", "banana", "cherri"]


def test_cache_eviction_changes_nothing(tmp_path: Path, monkeypatch):
    built = Index.from_documents(document(f"d{i}", WORDS[i:] + WORDS[:i], "Fees") for i in range(len(WORDS)))
    built.save(tmp_path)
    expected = observed(Index.open(tmp_path))
    monkeypatch.setattr(postings_cache, "CACHE_SIZE", 2)
    opened = Index.open(tmp_path)
    assert observed(opened) == expected
    assert len(opened.inverted.postings._cache) <= 2  # evicted first in, first out


def test_empty_postings_files_open(tmp_path: Path):
    # a corpus whose only document has no terms: zero-length column files
    built = Index.from_documents([document("a", [], "")])
    built.save(tmp_path)
    opened = Index.open(tmp_path)
    assert len(opened.inverted.postings) == 0
    assert opened.search("apple") == []


def test_concurrent_searches_on_a_small_cache_agree(tmp_path: Path, monkeypatch):
    # many threads evicting and filling a 3-entry cache: no error, the same results
    import threading

    built = Index.from_documents(document(f"d{i}", WORDS[i:] + WORDS[:i], "Fees") for i in range(len(WORDS)))
    built.save(tmp_path)
    expected = {query: built.ranking(query, k=5, method="hybrid") for query in QUERIES}
    monkeypatch.setattr(postings_cache, "CACHE_SIZE", 3)
    opened = Index.open(tmp_path)
    failures: list[str] = []

    def worker() -> None:
        try:
            for _ in range(30):
                for query in QUERIES:
                    if opened.ranking(query, k=5, method="hybrid") != expected[query]:
                        failures.append(query)
        except Exception as error:  # a thread's exception would otherwise only be printed
            failures.append(repr(error))

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_posting_counts_come_from_the_starts_without_scoring_a_term(tmp_path: Path):
    # what the kernel choice weighs: a loaded table counts postings without decoding or scoring them,
    # and its counts are the built index's list lengths
    documents = [document(f"d{n}", WORDS[: 3 + n], "Fees" if n % 2 else "") for n in range(9)]
    built = Index.from_documents(documents)
    built.save(tmp_path)
    table = Index.open(tmp_path).inverted.postings
    expected = {term: len(entry.passages) for term, entry in built.inverted.postings.items()}
    assert {term: table.posting_count(term) for term in table} == expected
    assert table.posting_count("absent-term") == 0
    assert table._cache == {}  # nothing was scored to count
    term = next(iter(table))
    assert table.posting_count(term) == len(table[term].passages) == expected[term]  # and once cached


def test_a_one_shot_query_chooses_its_kernel_before_scoring_any_term(tmp_path: Path):
    from regrag.retrieval import ranking
    from regrag.retrieval.query import analyze_query

    built = Index.from_documents([document(f"d{n}", WORDS[n:], "") for n in range(4)])  # Vietnamese: no stemming
    built.save(tmp_path)
    index = Index.open(tmp_path)
    query = analyze_query(index.inverted, "apple banana cherry lãi suất")
    # apple 1, "apple banana" 1, banana 2, "banana cherry" 2, cherry 3, "cherry lãi" 4, lãi 4, "lãi suất" 4
    assert ranking._posting_count(index.inverted, query) == ranking._posting_count(built.inverted, query) == 21
    assert index.inverted.postings._cache == {}
