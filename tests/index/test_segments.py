"""Segmented generations give the bits of a rebuild, whatever the
segmentation and merge history (docs/index-format.md, "Segments"): index
id, Merkle root, the format-2 bytes of the whole view, every method's hits
with both kernels, explanations; saved and reopened, mapped or copied;
verify checks segment files and names the damaged one."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import Index
from regrag.corpus.model import Document, Section
from regrag.index import codec
from regrag.index.merge_policy import MAX_SEGMENTS, should_merge
from regrag.index.segment_statistics import global_statistics
from regrag.index.segmented import SegmentedIndex
from regrag.index.verify import verify_store
from regrag.retrieval.options import SearchOptions

WORDS = ["apple", "banana", "cherry", "fee", "rate", "VNM", "3.5%", "ngân hàng", "lãi suất", "年费", "利率", "margin", "loan"]
QUERIES = ["apple fee", "cherry rate VNM", "lãi suất ngân hàng", "年费 利率", "margin loan 3.5%", "banana"]
KERNELS = ["python"] + (["numpy"] if importlib.util.find_spec("numpy") else [])
IDS = [f"d{i}" for i in range(10)]


def document(document_id: str, words: list[str], title: str) -> Document:
    text = " ".join(words) + "."
    return Document(document_id, title, text, (Section(title, 0, len(text)),), (("issuer", title),), f"{document_id}.md")


documents_strategy = st.builds(document, st.sampled_from(IDS), st.lists(st.sampled_from(WORDS), max_size=12),
                               st.sampled_from(["", "Fees", "Rates"]))
batch = st.lists(st.one_of(st.tuples(st.just("upsert"), documents_strategy),
                           st.tuples(st.just("delete"), st.sampled_from(IDS))), min_size=1, max_size=4)


def observed(index: Index) -> dict:
    """Everything a user sees, for every method and kernel."""
    results = {}
    for kernel in KERNELS:
        for method in ("bm25", "tfidf", "hybrid"):
            for query in QUERIES:
                options = SearchOptions(k=20, method=method, kernel=kernel)
                results[(kernel, method, query)] = [hit.to_json() for hit in index.search(query, options=options)]
    explained = {}
    for query in QUERIES[:3]:
        for hit in index.search(query, k=3, method="bm25"):
            explained[(query, hit.passage_id)] = index.explain(query, hit.passage_id).to_dict()
    return {"id": index.index_id, "root": index.corpus_root, "results": results, "explained": explained,
            "bytes": codec.serialise(index.inverted, "test")}


def apply(corpus: dict[str, Document], operations) -> tuple[list[Document], list[str]]:
    upserts: dict[str, Document] = {}
    deletions: list[str] = []
    for kind, value in operations:
        if kind == "upsert":
            if value.id in deletions:
                continue
            corpus[value.id] = upserts[value.id] = value
        elif value in corpus and value not in upserts and value not in deletions:
            del corpus[value]
            deletions.append(value)
    return list(upserts.values()), deletions


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(documents_strategy, min_size=1, max_size=6), st.lists(batch, min_size=1, max_size=5),
       st.booleans(), st.sampled_from([None, 1, 2]))
def test_any_history_of_segment_updates_equals_a_rebuild(initial, batches, memory_map, keep):
    corpus = {item.id: item for item in initial}
    with tempfile.TemporaryDirectory() as work:
        root = Path(work) / "index"
        Index.from_documents(corpus.values()).save(root)
        for operations in batches:
            upserts, deletions = apply(corpus, operations)
            if not corpus:
                return  # an empty corpus is refused by the command; nothing to compare
            current = Index.open(root, memory_map=memory_map)
            updated = current.updated(upserts, deletions)
            expected = Index.from_documents(corpus.values())
            assert observed(updated) == observed(expected)
            updated.save(root, keep=keep)
            assert observed(Index.open(root, memory_map=memory_map)) == observed(expected)
        assert verify_store(root, full=True).ok


def _segmented(tmp_path: Path, rounds: int = 3) -> tuple[Path, dict[str, Document]]:
    corpus = {f"d{i}": document(f"d{i}", WORDS[i % 7: i % 7 + 4], "Fees") for i in range(12)}
    root = tmp_path / "index"
    Index.from_documents(corpus.values()).save(root)
    for number in range(rounds):
        changed = document(f"d{number}", WORDS[number: number + 5] + ["update"], "Rates")
        corpus[changed.id] = changed
        Index.open(root).updated([changed], []).save(root)
    return root, corpus


def test_updates_publish_segments_and_deletions(tmp_path):
    root, corpus = _segmented(tmp_path)
    opened = Index.open(root)
    assert isinstance(opened.inverted, SegmentedIndex)
    assert len(opened.inverted.segments) == 4  # the first generation and one segment per update
    assert [len(d) for d in opened.inverted.deleted] == [3, 0, 0, 0]
    assert observed(opened) == observed(Index.from_documents(corpus.values()))
    segments = root / "generations" / "000004" / "segments"
    oldest = segments / opened.inverted.segments[0].name / "positions.bin"
    assert oldest.stat().st_nlink == 4  # generation 1's file, linked by generations 2, 3 and 4, never copied
    newest = segments / opened.inverted.segments[-1].name / "positions.bin"
    assert newest.stat().st_nlink == 1


def test_both_statistics_paths_give_the_same_bits(tmp_path):
    pytest.importorskip("numpy")
    root, _corpus = _segmented(tmp_path)
    inverted = Index.open(root).inverted
    combined = inverted.passages.stored
    python = global_statistics(inverted.segments, combined, inverted.parameters, vectorised=False)
    vectorised = global_statistics(inverted.segments, combined, inverted.parameters, vectorised=True)
    assert python == vectorised
    assert python.tfidf_norms.tobytes() == vectorised.tfidf_norms.tobytes()


def test_keep_never_removes_a_segment_a_retained_generation_uses(tmp_path):
    root, corpus = _segmented(tmp_path)
    changed = document("d9", ["cherry", "loan"], "")
    corpus["d9"] = changed
    Index.open(root).updated([changed], []).save(root, keep=1)
    assert sorted(path.name for path in (root / "generations").iterdir()) == ["000005"]
    assert observed(Index.open(root)) == observed(Index.from_documents(corpus.values()))
    assert verify_store(root, full=True).ok


def test_merge_policy_is_a_pure_function_of_the_segments():
    assert not should_merge([(10, 0)] * MAX_SEGMENTS)
    assert should_merge([(10, 0)] * (MAX_SEGMENTS + 1))
    assert not should_merge([(100, 25), (5, 0)])
    assert should_merge([(100, 30), (5, 0)])
    assert should_merge([(5, 0)])  # every earlier segment replaced: format 2 stores it at today's cost


def test_a_merge_writes_the_bytes_of_a_fresh_build(tmp_path):
    corpus = {f"d{i}": document(f"d{i}", WORDS[i % 9: i % 9 + 3], "") for i in range(20)}
    root = tmp_path / "index"
    Index.from_documents(corpus.values()).save(root)
    merged = []
    for number in range(MAX_SEGMENTS + 2):  # small updates: segments pile up until there are too many
        changed = document(f"new{number}", WORDS[number % 5: number % 5 + 4], "")
        corpus[changed.id] = changed
        updated = Index.open(root).updated([changed], [])
        generation = updated.save(root)
        if not isinstance(updated.inverted, SegmentedIndex):
            merged.append(generation.number)
            directory = root / "generations" / f"{generation.number:06d}"
            fresh = codec.serialise(Index.from_documents(corpus.values()).inverted, "x")
            for name in codec.DATA_FILES:
                assert (directory / name).read_bytes() == fresh[name], name
        else:
            assert len(updated.inverted.segments) <= MAX_SEGMENTS
    assert merged == [MAX_SEGMENTS + 1]  # generation 1 and 8 segments' worth of updates, then the merge
    assert observed(Index.open(root)) == observed(Index.from_documents(corpus.values()))


@pytest.mark.parametrize("name", ["positions.bin", "documents.jsonl", "lengths.f64", "content_hashes.bin"])
def test_verify_names_a_damaged_segment_file(tmp_path, name):
    root, _corpus = _segmented(tmp_path, rounds=1)
    segment = root / "generations" / "000002" / "segments" / Index.open(root).inverted.segments[0].name
    path = segment / name
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.unlink()  # break the hard link: generation 1 keeps its intact copy
    path.write_bytes(bytes(data))
    report = verify_store(root, full=False)
    assert not report.ok
    assert str(path) in "\n".join(str(problem) for problem in report.problems)


def test_verify_names_a_damaged_global_file(tmp_path):
    root, _corpus = _segmented(tmp_path, rounds=1)
    path = root / "generations" / "000002" / "tfidf_norms.f64"
    data = bytearray(path.read_bytes())
    data[3] ^= 0x01
    path.write_bytes(bytes(data))
    report = verify_store(root, full=False)
    assert not report.ok and str(path) in "\n".join(str(problem) for problem in report.problems)
    with pytest.raises(Exception, match="tfidf_norms.f64"):
        Index.open(root)


def _damaged_open(root: Path) -> str:
    from regrag.errors import CorruptIndexError

    with pytest.raises(CorruptIndexError) as caught:
        index = Index.open(root)
        for query in QUERIES:  # large files are verified chunk by chunk, when first used
            index.search(query, k=20, method="hybrid")
        for key in list(index.inverted.documents):
            index.document(key)
    return str(caught.value)


def test_hostile_segment_files_are_refused_naming_the_file(tmp_path):
    import os

    root, _corpus = _segmented(tmp_path, rounds=1)
    generation = root / "generations" / "000002"
    segment = generation / "segments" / Index.open(root).inverted.segments[0].name
    record = segment / "segment.json"
    saved = record.read_bytes()
    record.unlink()
    record.write_bytes(saved.replace(b'"format"', b' "format"'))
    assert "segment.json" in _damaged_open(root)
    record.unlink()
    record.write_bytes(saved)
    postings = segment / "positions.bin"
    postings.unlink()
    os.mkfifo(postings)  # must be refused without blocking
    assert "positions.bin" in _damaged_open(root)
    postings.unlink()
    (segment / "terms.bin").unlink()
    assert "terms.bin" in _damaged_open(root)


def test_forged_segmented_manifests_are_refused():
    from regrag.index.segmented import segmented_manifest_problem

    name = "a" * 64
    good = {"analyzer": {"name": "auto"}, "average_length": 1.0, "corpus_root": "b" * 64, "document_count": 1,
            "engine_version": "x", "files": {}, "format": "regrag-segments/2", "index_format": "1",
            "index_id": "c" * 64, "parameters": {}, "passage_count": 1, "posting_count": 1,
            "segments": [{"name": name, "document_count": 1, "passage_count": 1, "deleted_passages": 0}],
            "term_count": 1}
    assert "file list" in segmented_manifest_problem(good)
    for forged in ({**good, "segments": []}, {**good, "segments": good["segments"] * 2},
                   {**good, "segments": [{**good["segments"][0], "name": "../x"}]},
                   {**good, "segments": [{**good["segments"][0], "deleted_passages": -1}]},
                   {**good, "extra": 1}):
        assert segmented_manifest_problem(forged)


def test_cli_output_is_the_same_bytes_as_a_rebuild(tmp_path):
    import json
    import subprocess
    import sys

    corpus = tmp_path / "corpus.jsonl"
    records = [{"_id": f"d{i}", "title": ["Fees", "Rates", ""][i % 3], "text": " ".join(WORDS[i % 9: i % 9 + 4]) + "."}
               for i in range(16)]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")

    def regrag(*arguments: str) -> bytes:
        done = subprocess.run([sys.executable, "-m", "regrag", *arguments], capture_output=True)
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout

    regrag("index", str(corpus), "--out", str(tmp_path / "updated"))
    records[2]["text"] += " margin loan"
    del records[5]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    regrag("index", str(corpus), "--out", str(tmp_path / "updated"), "--update", "--allow-deletions")
    assert isinstance(Index.open(tmp_path / "updated").inverted, SegmentedIndex)
    regrag("index", str(corpus), "--out", str(tmp_path / "fresh"))
    for method in ("bm25", "tfidf", "hybrid"):
        found = [regrag("search", "--index", str(tmp_path / name), "margin loan fee", "--method", method, "--json")
                 for name in ("updated", "fresh")]
        assert found[0] == found[1]
    explained = [regrag("explain", "--index", str(tmp_path / name), "margin loan", "d2#1", "--json")
                 for name in ("updated", "fresh")]
    assert explained[0] == explained[1]
    assert b"ok" in regrag("verify", str(tmp_path / "updated"))


def test_disk_full_at_every_write_call_of_a_segmented_publish(tmp_path, monkeypatch):
    import shutil

    from regrag import InputError
    from regrag.index.directory import IndexStore
    from tests.faulty_file_system import FaultyFileSystem

    pristine, corpus = _segmented(tmp_path / "pristine", rounds=1)
    changed = document("d7", ["margin", "loan", "fee"], "Rates")
    corpus["d7"] = changed
    expected_before = observed(Index.open(pristine))
    expected_after = observed(Index.from_documents(corpus.values()))
    clean = FaultyFileSystem()
    probe = tmp_path / "probe"
    shutil.copytree(pristine, probe)
    with clean.active(monkeypatch):
        IndexStore(probe).publish(Index.open(probe).updated([changed], []).inverted, "test")
    calls = len(clean.calls)
    assert calls > 30
    before_commit = 0
    for number in range(1, calls + 1):
        root = tmp_path / f"case-{number:03d}"
        shutil.copytree(pristine, root)
        updated = Index.open(root).updated([changed], [])
        assert isinstance(updated.inverted, SegmentedIndex)
        faults = FaultyFileSystem(fail_at=number)
        try:
            with faults.active(monkeypatch):
                IndexStore(root).publish(updated.inverted, "test")
        except InputError:
            pass
        if IndexStore(root).history()[0] == 3:  # the failure came after the commit point (or had no effect)
            assert observed(Index.open(root)) == expected_after
            continue
        before_commit += 1
        assert sorted(path.name for path in (root / "generations").iterdir()) == ["000001", "000002"], number
        assert not (root / "CURRENT.tmp").exists()
        assert observed(Index.open(root)) == expected_before and verify_store(root, full=False).ok
    print(f"\ndisk full injected at {calls} write calls of a segmented publish: {before_commit} before the commit")
    assert before_commit >= calls - 3
