"""The numpy and Python kernels rank identically on real data: every SciFact
query × bm25/tfidf/hybrid × k ∈ {1, 10, 100, 1000}, and every golden file.

For every (query, method, k) the test compares all that ``search --json``
takes from ranking: each result's position and score and, for ``hybrid``,
every fused list with its scores (``repr`` of every float, so the bits), plus
the entity step. The ``search --json`` bytes themselves (``Hit.to_json()``,
the CLI's own writer) are compared on every 20th query at k ≤ 100 and every
200th at k = 1000: building a hit's provenance costs far more than ranking
it (about 0.3 ms a hit, so all 1,109 queries at k = 1000 would take over ten
minutes), and a hit is built from nothing but what the first comparison checks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from regrag import Index
from regrag.audit.golden import read_golden, verify_golden, format_report
from regrag.corpus.extract.pdf import available as pdf_available
from regrag.corpus.load import load_corpus
from regrag.retrieval.options import SearchOptions

pytest.importorskip("numpy")

REPO = Path(__file__).resolve().parents[2]
# ../shared holds the data sets; a git worktree may sit one level deeper than the clone
SHARED = next((path for path in (Path(os.environ.get("REGRAG_SHARED", REPO.parent / "shared")),
                                 REPO.parent.parent / "shared") if path.is_dir()), REPO.parent / "shared")
SCIFACT = SHARED / "data" / "scifact"
METHODS = ("bm25", "tfidf", "hybrid")
DEPTHS = (1, 10, 100, 1000)
JSON_EVERY = {1: 20, 10: 20, 100: 20, 1000: 200}  # compare the JSON bytes of every n-th query at this k
CORPORA = ("product-manuals", "regulations", "vn-stock-news")


@pytest.fixture(scope="module")
def scifact() -> tuple[Index, list[str]]:
    if not (SCIFACT / "corpus.jsonl").is_file():
        pytest.skip(f"{SCIFACT} is absent (set REGRAG_SHARED to the folder holding data/scifact)")
    index = Index.from_documents(load_corpus(SCIFACT).documents)
    with open(SCIFACT / "queries.jsonl", encoding="utf-8") as lines:
        queries = [json.loads(line)["text"] for line in lines if line.strip()]
    return index, queries


def ranked_repr(index: Index, query: str, options: SearchOptions) -> str:
    """Everything a search's hits are built from, floats as their exact ``repr``."""
    _analyzed, results, step = index._ranked(query, options)
    lists = results[0][2] if results else None  # hybrid: the fused lists, one dict shared by every result
    return repr(([(position, score) for position, score, _lists in results], lists, step))


def search_json(index: Index, query: str, options: SearchOptions) -> bytes:
    return "".join(hit.to_json() + "\n" for hit in index.search(query, options=options)).encode("utf-8")


@pytest.mark.parametrize("method", METHODS)
def test_every_scifact_query_ranks_the_same_under_both_kernels(scifact, method):
    index, queries = scifact
    assert len(queries) > 1000
    differing = []
    compared_json = 0
    for number, query in enumerate(queries):
        for k in DEPTHS:
            python, numpy_ = (SearchOptions(k, method, kernel=name) for name in ("python", "numpy"))
            if ranked_repr(index, query, numpy_) != ranked_repr(index, query, python):
                differing.append((number, k))
            elif number % JSON_EVERY[k] == 0:
                expected = search_json(index, query, python)
                if search_json(index, query, numpy_) != expected:
                    differing.append((number, k, "json"))
                compared_json += 1
    assert differing == []
    assert compared_json == sum(len(range(0, len(queries), every)) for every in JSON_EVERY.values())


@pytest.mark.parametrize("kernel", ["python", "numpy"])
def test_golden_files_verify_under_each_kernel(kernel, monkeypatch):
    """What ``REGRAG_KERNEL=KERNEL python3 bench/record_golden.py --check`` checks, in process."""
    monkeypatch.setenv("REGRAG_KERNEL", kernel)
    for corpus in CORPORA:
        if corpus == "regulations" and not pdf_available():
            continue  # its golden files were recorded with its PDF document, read only with pdfminer.six
        index = Index.from_path(REPO / "corpora" / corpus / "documents")
        for method in METHODS:
            report = verify_golden(index, read_golden(REPO / "golden" / f"{corpus}.{method}.golden"))
            assert report.ok and report.differences == (), format_report(report)
