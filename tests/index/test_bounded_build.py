"""The bounded build (``regrag.index.bounded_build``, ``regrag index
--memory MB``) writes the same generation, byte for byte, as the in-memory
build and ``save``, for every budget (many runs spilled at small budgets),
analyzer, parameters and worker count; its run files never outlive it; a
fault midway leaves the previous generation current and no debris."""

from __future__ import annotations

import errno
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import Index, InputError
from regrag.index.bounded_build import commit_written, index_directory, write_generation
from regrag.index.directory import IndexStore
from regrag.index.parameters import IndexParameters
from regrag.text.analyzer import Analyzer
from tests.faulty_file_system import FaultyFileSystem
from tests.index.test_workers import unique, word_documents
from tests.strategies import corpora, make_document

REPO = Path(__file__).resolve().parents[2]


def tree(directory: Path) -> dict[str, str]:
    """Every file under ``directory`` (relative path) and its SHA-256."""
    return {str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(directory.rglob("*")) if path.is_file()}


def generation_files(root: Path) -> dict[str, str]:
    return tree(root / "generations")


def in_memory(documents, root: Path, analyzer: Analyzer, parameters: IndexParameters) -> str:
    Index.from_documents(documents, analyzer=analyzer, parameters=parameters).save(root)
    return IndexStore(root).history()[1][-1].index_id


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.one_of(corpora(max_size=8), st.lists(word_documents, min_size=0, max_size=14).map(unique)),
       st.integers(1, 3000), st.sampled_from([1.0, 2.0, 0.5]), st.sampled_from(["auto", "en", "vi"]))
def test_every_budget_writes_the_in_memory_generation(tmp_path_factory, documents, budget, title_weight, analyzer_name):
    """Budgets of a few bytes to a few kilobytes: one run per document up to one run in all."""
    work = tmp_path_factory.mktemp("bounded")
    analyzer, parameters = Analyzer(analyzer_name), IndexParameters(title_weight=title_weight)
    expected_id = in_memory(documents, work / "memory", analyzer, parameters)
    store = IndexStore(work / "bounded")
    publication, written = commit_written(
        store, lambda directory: write_generation(directory, documents, analyzer, parameters,
                                                  __import__("regrag").__version__, budget))
    assert generation_files(work / "bounded") == generation_files(work / "memory")
    assert written.index_id == expected_id == publication.generation.index_id
    assert (written.runs >= 1) == bool(documents)
    assert not list((work / "bounded" / "generations").glob(".*"))  # no run file, no temporary directory


def test_small_budgets_spill_many_runs_and_agree(tmp_path):
    documents = [make_document(f"d{n:03d}", f"apple banana cherry {n} fee rate loan{n % 7}", "Fees") for n in range(60)]
    analyzer, parameters = Analyzer(), IndexParameters()
    in_memory(documents, tmp_path / "memory", analyzer, parameters)
    seen = set()
    for budget in (1, 3000, 12000, 10**9):
        root = tmp_path / f"b{budget}"
        _publication, written = commit_written(
            IndexStore(root), lambda directory: write_generation(directory, documents, analyzer, parameters,
                                               __import__("regrag").__version__, budget))
        seen.add(written.runs)
        assert generation_files(root) == generation_files(tmp_path / "memory"), budget
    assert max(seen) == 60 and min(seen) == 1 and len(seen) >= 3  # one run per document, one in all, and between


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_with_a_budget_write_the_same_bytes(tmp_path, workers):
    documents = [make_document(f"d{n:03d}", f"ngân hàng lãi suất {n} 年费 利率 margin{n % 5}", "Lãi suất")
                 for n in range(40)]
    in_memory(documents, tmp_path / "memory", Analyzer(), IndexParameters())
    publication, written = index_directory(tmp_path / "bounded", documents, memory_mb=0.002, workers=workers)
    assert written.runs > workers
    assert generation_files(tmp_path / "bounded") == generation_files(tmp_path / "memory")


def test_library_budget_is_checked(tmp_path):
    for bad in (0, -1, True, "5"):
        with pytest.raises(InputError, match="memory_mb"):
            index_directory(tmp_path / "x", [make_document("a", "fee")], memory_mb=bad)
    assert not (tmp_path / "x").exists() or not (tmp_path / "x" / "CURRENT").exists()


def faulty_publish(tmp_path, fail_at, documents):
    """Publish v1 in memory, then try a bounded build of ``documents`` with the ``fail_at``-th write failing."""
    root = tmp_path / "index"
    Index.from_documents([make_document("a", "old text")]).save(root)
    before = generation_files(root)
    system = FaultyFileSystem(fail_at=fail_at, code=errno.ENOSPC)
    with system.active():
        try:
            index_directory(root, documents, memory_mb=0.001)
        except InputError as error:
            return root, before, system, error
    return root, before, system, None


def test_a_failing_write_anywhere_leaves_the_previous_generation(tmp_path):
    documents = [make_document(f"d{n:02d}", f"apple banana {n} fee", "Fees") for n in range(12)]
    _root, _before, counting, _error = faulty_publish(tmp_path / "count", None, documents)
    total = len(counting.calls)
    assert total > 30  # runs, document files, posting files, manifest, renames
    assert counting.failed is None
    run_calls = [number for number, (_call, path) in enumerate(counting.calls, 1) if "/.runs/" in path]
    assert run_calls  # the run files go through the I/O layer too
    inside = [number for number, (_call, path) in enumerate(counting.calls, 1) if "/.tmp-" in path]
    assert len(inside) > 30
    for fail_at in sorted({*run_calls[:3], run_calls[-1], *inside[::4], inside[-1]}):
        root, before, system, error = faulty_publish(tmp_path / f"f{fail_at}", fail_at, documents)
        assert system.failed is not None and error is not None, fail_at
        assert "no space left on device" in str(error) and "nothing was published" in str(error)
        assert generation_files(root) == before, system.failed  # no temporary directory, no run file
        assert Index.open(root).search("old")[0].document_id == "a"


def test_interruption_removes_the_runs(tmp_path, monkeypatch):
    from regrag.index import bounded_build

    root = tmp_path / "index"
    Index.from_documents([make_document("a", "old text")]).save(root)
    before = generation_files(root)

    def interrupted(*_arguments, **_options):
        raise KeyboardInterrupt

    monkeypatch.setattr(bounded_build, "_tfidf_norms", interrupted)  # after the runs and the merge
    with pytest.raises(KeyboardInterrupt):
        index_directory(root, [make_document(f"d{n}", f"fee {n}") for n in range(20)], memory_mb=0.0005)
    assert generation_files(root) == before


def test_cli_memory_option(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(30):
        (corpus / f"doc{n:02d}.md").write_text(f"# Fees {n}\n\nThe annual fee is {n} dollars; loan rate {n % 4}.\n")
    environment = dict(os.environ, PYTHONPATH=str(REPO))

    def index(*options):
        return subprocess.run([sys.executable, "-m", "regrag", "index", str(corpus), *options], capture_output=True,
                              text=True, env=environment)

    small = index("--out", str(tmp_path / "small"), "--memory", "16", "--workers", "2")
    assert small.returncode == 0, small.stderr
    assert "30 documents" in small.stdout
    default = index("--out", str(tmp_path / "default"))
    assert default.returncode == 0, default.stderr
    assert generation_files(tmp_path / "small") == generation_files(tmp_path / "default")
    Index.from_path(corpus).save(tmp_path / "memory")
    assert generation_files(tmp_path / "memory") == generation_files(tmp_path / "default")
    too_small = index("--out", str(tmp_path / "x"), "--memory", "15")
    assert too_small.returncode == 2 and "--memory must be at least 16" in too_small.stderr
    update = index("--out", str(tmp_path / "default"), "--update", "--memory", "64")
    assert update.returncode == 2 and "--memory bounds a full build" in update.stderr
