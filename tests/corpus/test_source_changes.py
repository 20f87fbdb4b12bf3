"""Issue 12, item 1.2: a corpus file rewritten while it is read is refused, never loaded in part.

The tests rewrite the file from inside the read (through the one function
each reader reads with), so each case happens at a known moment. A real
exporter in another process is measured, not tested, by
``bench/concurrent_export.py``: what it sees depends on scheduling (a writer
descheduled mid-export leaves a shorter, well-formed file that does not change
while it is read, which no reader-side check can tell; docs/corpus.md).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from regrag.corpus import jsonl_corpus, markdown
from regrag.corpus.load import load_corpus
from regrag.errors import InputError
from regrag.io.identity import SourceChangedError

RETRY = "changed while it was read; retry when the writer is done"


def _jsonl(count: int, word: str = "first") -> str:
    return "".join(json.dumps({"id": f"d{i:04d}", "text": f"{word} version {i}"}) + "\n" for i in range(count))


def _rewrite_at_record(monkeypatch, path: Path, at: int, new_text: str, mode: str = "w") -> None:
    """Make the JSONL reader rewrite ``path`` when it reaches record ``at``."""
    real = jsonl_corpus._record_document
    seen = {"n": 0}

    def rewriting(record, *args, **kwargs):
        seen["n"] += 1
        if seen["n"] == at:
            with open(path, mode, encoding="utf-8") as handle:
                handle.write(new_text)
        return real(record, *args, **kwargs)

    monkeypatch.setattr(jsonl_corpus, "_record_document", rewriting)


@pytest.mark.parametrize("errors", ["raise", "collect"])
def test_jsonl_truncated_and_rewritten_mid_read_is_refused(tmp_path, monkeypatch, errors):
    path = tmp_path / "export.jsonl"
    path.write_text(_jsonl(1500))
    # the export job truncates the file and starts writing the new version: 400 records so far
    _rewrite_at_record(monkeypatch, path, 10, _jsonl(400, "second"))
    with pytest.raises(SourceChangedError, match=f"^{path}: {RETRY}"):
        load_corpus(path, errors=errors)


def test_jsonl_appended_mid_read_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "docs.jsonl"
    path.write_text(_jsonl(50))
    _rewrite_at_record(monkeypatch, path, 3, json.dumps({"id": "late", "text": "x"}) + "\n", mode="a")
    with pytest.raises(InputError, match=RETRY):
        load_corpus(path)


def test_jsonl_replaced_by_rename_mid_read_is_refused(tmp_path, monkeypatch):
    """A writer that renames a new file into place: the open file is complete, but it is no longer the corpus."""
    path = tmp_path / "docs.jsonl"
    path.write_text(_jsonl(20))
    real = jsonl_corpus._record_document

    def renaming(record, *args, **kwargs):
        if record["id"] == "d0005":
            fresh = tmp_path / "docs.jsonl.tmp"
            fresh.write_text(_jsonl(20, "second"))
            os.replace(fresh, path)
        return real(record, *args, **kwargs)

    monkeypatch.setattr(jsonl_corpus, "_record_document", renaming)
    with pytest.raises(SourceChangedError, match=RETRY):
        load_corpus(path)


def test_beir_gzip_rewritten_mid_read_is_refused(tmp_path, monkeypatch):
    import gzip

    path = tmp_path / "corpus.jsonl.gz"
    data = "".join(json.dumps({"_id": f"d{i}", "text": "t"}) + "\n" for i in range(200)).encode()
    path.write_bytes(gzip.compress(data, mtime=0))
    real = jsonl_corpus._record_document

    def rewriting(record, *args, **kwargs):
        if record["_id"] == "d3":
            path.write_bytes(gzip.compress(data[:100], mtime=0))
        return real(record, *args, **kwargs)

    monkeypatch.setattr(jsonl_corpus, "_record_document", rewriting)
    with pytest.raises(InputError, match=RETRY):
        load_corpus(tmp_path)


def test_markdown_file_rewritten_mid_read_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nfirst version, long text\n")
    (folder / "b.md").write_text("# B\n\nother\n")
    real = markdown._read_bytes
    calls = []

    def rewriting(handle, count):
        calls.append(count)
        if os.fstat(handle.fileno()).st_ino == (folder / "a.md").stat().st_ino:
            data = handle.read(10)  # a first part, then the writer truncates and rewrites
            (folder / "a.md").write_text("# A\n\nversion" + "!" * len(calls) + "\n")  # a new size each time
            return data + real(handle, count - 10)
        return real(handle, count)

    monkeypatch.setattr(markdown, "_read_bytes", rewriting)
    for errors in ("raise", "collect"):
        with pytest.raises(SourceChangedError, match=f"a.md: {RETRY}") as caught:
            load_corpus(folder, errors=errors)
        assert "--errors collect" not in str(caught.value)  # collecting would not help


def test_folder_gaining_a_file_mid_read_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (folder / name).write_text(f"# {name}\n\ntext\n")
    real = markdown._read_bytes

    def adding(handle, count):
        if not (folder / "z.md").exists():
            (folder / "z.md").write_text("# late\n\nwritten during the read\n")
        return real(handle, count)

    monkeypatch.setattr(markdown, "_read_bytes", adding)
    with pytest.raises(SourceChangedError, match=f"{folder}: the folder {RETRY}"):
        load_corpus(folder)
    monkeypatch.setattr(markdown, "_read_bytes", real)
    assert len(load_corpus(folder).documents) == 4  # once the writer is done, it loads


def test_unchanged_sources_still_load(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text(_jsonl(30))
    assert len(load_corpus(path).documents) == 30
