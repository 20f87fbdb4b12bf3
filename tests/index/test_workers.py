"""``--workers N`` gives the same index, byte for byte, as one process:
the range analysis merged at any cut points, the worker processes for any
count, and the CLI's index directories; a worker that fails or dies is a
clear error, never a hang."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import Index, InputError
from regrag.corpus.passages import split_passages
from regrag.index import parallel
from regrag.index.analysis import analyze_range, from_bytes, merge_ranges, to_bytes
from regrag.index.build import build_index
from regrag.index.parameters import IndexParameters
from regrag.text.analyzer import Analyzer
from tests.strategies import corpora, make_document

REPO = Path(__file__).resolve().parents[2]
WORDS = ["apple", "banana", "cherry's", "fee,", "rate.", "VNM", "3.5%", "ngân hàng", "lãi suất", "年费", "利率",
         "margin", "loan", "Loans.", "the", "2014.", "U.S."]


def fingerprint(inverted) -> tuple:
    """Everything an index holds, as plain values (floats by their bits, via repr)."""
    postings = tuple(
        (term, tuple(p.passages), tuple(map(repr, p.frequencies)), tuple(map(repr, p.bm25_impacts)),
         tuple(map(repr, p.tfidf_weights)), repr(p.bm25_idf), repr(p.tfidf_idf))
        for term, p in sorted(inverted.postings.items())
    )
    return (
        inverted.index_id, inverted.corpus_root, tuple(inverted.passages), tuple(inverted.passage_languages),
        tuple(map(repr, inverted.lengths)), repr(inverted.average_length), tuple(map(repr, inverted.length_norms)),
        tuple(map(repr, inverted.tfidf_norms)), sorted(inverted.document_languages.items()),
        sorted(inverted.content_hashes.items()), sorted(inverted.documents), postings,
    )


word_documents = st.builds(
    lambda number, words, title: make_document(f"d{number:02d}", " ".join(words), title),
    st.integers(0, 40),
    st.lists(st.sampled_from(WORDS), max_size=30),
    st.sampled_from(["", "Fees", "Rates and fees", "Lãi suất"]),
)


def unique(documents):
    return list({document.id: document for document in documents}.values())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(corpora(max_size=8), st.lists(word_documents, min_size=1, max_size=12).map(unique)),
       st.lists(st.integers(0, 12), max_size=4), st.booleans())
def test_ranges_merged_at_any_cuts_equal_one_range(documents, cuts, through_bytes):
    """The merge is the single-process assembly whatever the ranges (no processes here)."""
    analyzer, parameters = Analyzer(), IndexParameters()
    ordered = sorted(documents, key=lambda document: document.id)
    passages = [tuple(split_passages(document, parameters.max_passage_chars)) for document in ordered]
    bounds = sorted({0, len(ordered), *(min(cut, len(ordered)) for cut in cuts)})
    ranges, first = [], 0
    for start, end in zip(bounds, bounds[1:]):
        analysed = analyze_range(ordered[start:end], passages[start:end], first, analyzer, parameters)
        ranges.append(from_bytes(to_bytes(analysed)) if through_bytes else analysed)
        first += sum(map(len, passages[start:end]))
    whole = analyze_range(ordered, passages, 0, analyzer, parameters)
    merged = merge_ranges(ranges)
    assert sorted(merged) == sorted(whole.vocabulary)
    for term, positions, frequencies in zip(whole.vocabulary, whole.positions, whole.frequencies):
        assert merged[term] == (positions, frequencies), term
    assert [x for r in ranges for x in r.lengths] == list(whole.lengths)
    # each passage's (term, frequency) pairs; their order within a passage is its range's id order (order-free)
    per_passage = [sorted(zip((r.vocabulary[i] for i in ids), f)) for r in ranges for ids, f in r.passage_terms()]
    assert per_passage == [sorted(zip((whole.vocabulary[i] for i in ids), f)) for ids, f in whole.passage_terms()]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(corpora(min_size=2, max_size=8), st.lists(word_documents, min_size=2, max_size=12).map(unique)),
       st.integers(2, 4))
def test_worker_processes_give_the_same_index(documents, workers):
    assert fingerprint(build_index(documents, workers=workers)) == fingerprint(build_index(documents))


def test_the_api_takes_workers_and_keeps_the_index_id():
    documents = [make_document(f"d{number}", f"apple banana {number} cherry rate.", "Fees") for number in range(30)]
    one, two = Index.from_documents(documents), Index.from_documents(documents, workers=2)
    assert one.index_id == two.index_id
    assert fingerprint(one.inverted) == fingerprint(two.inverted)
    assert [h.to_json() for h in one.search("apple rate", k=5)] == [h.to_json() for h in two.search("apple rate", k=5)]


@pytest.mark.parametrize("workers", [0, -1, 65, 1.5, "2", True])
def test_bad_worker_counts_are_refused(workers):
    with pytest.raises(InputError, match="workers must be an integer from 1 to 64"):
        Index.from_documents([make_document("d", "text")], workers=workers)


def test_ranges_are_contiguous_non_empty_and_cover_everything():
    documents = [make_document(f"d{number:03d}", "word " * (1 + number % 7)) for number in range(50)]
    for workers in range(1, 60):
        bounds = parallel.range_bounds(documents, workers)
        assert bounds[0][0] == 0 and bounds[-1][1] == len(documents)
        assert all(start < end for start, end in bounds)
        assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
        assert len(bounds) <= workers


def _die(*_arguments):
    os._exit(3)


def _fail(*_arguments):
    raise InputError("d07: something the worker refused")


@pytest.mark.skipif(parallel._context().get_start_method() != "fork", reason="a patched worker needs fork")
def test_a_worker_that_dies_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(parallel, "_analyze", _die)
    documents = [make_document(f"d{number}", "apple banana") for number in range(4)]
    with pytest.raises(parallel.WorkerError, match="an indexing worker process died"):
        build_index(documents, workers=2)


@pytest.mark.skipif(parallel._context().get_start_method() != "fork", reason="a patched worker needs fork")
def test_a_worker_error_is_raised_in_the_parent(monkeypatch):
    monkeypatch.setattr(parallel, "_analyze", _fail)
    documents = [make_document(f"d{number}", "apple banana") for number in range(4)]
    with pytest.raises(InputError, match="something the worker refused"):
        build_index(documents, workers=2)


def test_spawned_workers_give_the_same_index(monkeypatch):
    import multiprocessing

    monkeypatch.setattr(parallel, "_context", lambda: multiprocessing.get_context("spawn"))
    documents = [make_document(f"d{number}", f"lãi suất {number} apple's fee.", "Rates") for number in range(6)]
    assert fingerprint(build_index(documents, workers=2)) == fingerprint(build_index(documents))


def _regrag(*arguments: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "regrag", *arguments], env=environment, capture_output=True,
                          timeout=300)


def test_cli_workers_write_the_same_files(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for number in range(12):
        (corpus / f"doc{number:02d}.md").write_text(
            f"# Doc {number}\n\nApple banana {number} fees. Lãi suất ngân hàng {number % 3}.\n\n## Rates\n\nVNM 3.5% rate.\n",
            encoding="utf-8")
    directories = {}
    for workers in ("1", "2", "3"):
        directories[workers] = tmp_path / f"index-{workers}"
        result = _regrag("index", str(corpus), "--out", str(directories[workers]), "--workers", workers)
        assert result.returncode == 0, result.stderr
    generation = Path("generations") / "000001"
    def files(root: Path) -> list[str]:
        return sorted(str(p.relative_to(root / generation)) for p in (root / generation).rglob("*") if p.is_file())

    names = files(directories["1"])
    assert names
    for workers in ("2", "3"):
        assert files(directories[workers]) == names
        for name in names:
            assert (directories[workers] / generation / name).read_bytes() == \
                (directories["1"] / generation / name).read_bytes(), (workers, name)


def test_cli_refuses_a_bad_worker_count(tmp_path):
    result = _regrag("index", str(REPO / "regrag" / "data" / "default_corpus"), "--out", str(tmp_path / "x"),
                     "--workers", "0")
    assert result.returncode == 2
    assert "workers must be an integer from 1 to 64" in result.stderr.decode()
    assert "Traceback" not in result.stderr.decode()
