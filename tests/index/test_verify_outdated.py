"""A generation written before issue 12 covered ``source`` by the content hash
is reported by a full ``verify`` as outdated (re-index), not as damaged; real
damage to such a generation is still damage."""

from __future__ import annotations

import json

from regrag import Index
from regrag.audit.canonical import canonical_json, sha256_hex
from regrag.cli import main
from regrag.corpus.model import Document, Section
from regrag.index.verify import verify_store


def _forge(root, number, name, data):
    """``forge`` of tests/index/test_store_faults.py: a consistent rewrite of one data file."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("store_faults", Path(__file__).with_name("test_store_faults.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.forge(root, number, name, data)


def test_a_generation_hashed_without_source_is_outdated_end_to_end(tmp_path, capsys):
    """documents.jsonl rewritten with the old rule's hashes, the manifest and
    CURRENT re-sealed (what an old writer left): full verify says OUTDATED."""
    index_dir = tmp_path / "ix"
    text = "alpha beta gamma"
    documents = [Document(f"d{i}", "", text, (Section("", 0, len(text)),), (), "export.jsonl") for i in range(3)]
    Index.from_documents(documents).save(index_dir)
    path = index_dir / "generations" / "000001" / "documents.jsonl"
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for document in documents:
            if record.get("content_hash") == document.content_hash():
                canonical = document.canonical()
                del canonical["source"]
                record["content_hash"] = sha256_hex(canonical)
        lines.append(canonical_json(record))
    _forge(index_dir, 1, "documents.jsonl", ("\n".join(lines) + "\n").encode("utf-8"))
    status = main(["verify", str(index_dir)])
    out = capsys.readouterr().out
    assert (status, out.split(": ")[:2]) == (1, ["generation 1", "OUTDATED"]), out


def test_outdated_hashes_are_reported_as_outdated_not_damaged(tmp_path, capsys):
    from regrag.index import verify

    index_dir = tmp_path / "ix"
    text = "alpha beta gamma"
    documents = [Document(f"d{i}", "", text, (Section("", 0, len(text)),), (), "export.jsonl") for i in range(3)]
    Index.from_documents(documents).save(index_dir)
    store_report = verify_store(index_dir)
    assert store_report.ok and store_report.outdated == ()

    # The loaded generation as an old writer stored it: every content hash without source.
    import dataclasses

    opened = Index.open(index_dir).inverted  # its content hashes are read-only: take a copy to edit
    inverted = dataclasses.replace(opened, content_hashes=dict(opened.content_hashes))
    for key, document in inverted.documents.items():
        canonical = document.canonical()
        del canonical["source"]
        inverted.content_hashes[key] = sha256_hex(canonical)
    assert verify._hashed_before_source_was_covered(inverted)
    # One hash neither old nor new (tampering): not the old rule, so damage.
    inverted.content_hashes["d0"] = sha256_hex(canonical_json({"forged": True}))
    assert not verify._hashed_before_source_was_covered(inverted)


def test_cli_prints_outdated_and_exits_1(tmp_path, capsys, monkeypatch):
    from regrag.errors import CorruptIndexError
    from regrag.index import verify

    index_dir = tmp_path / "ix"
    text = "alpha"
    Index.from_documents([Document("d", "", text, (Section("", 0, len(text)),), (), "export.jsonl")]).save(index_dir)

    def old_generation(store, entry, full):
        raise verify.OutdatedIndexError(f"{index_dir}: written before a document's source ...")

    monkeypatch.setattr(verify, "_check_generation", old_generation)
    assert main(["verify", str(index_dir)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("generation 1: OUTDATED: ") and "DAMAGED" not in out and ": ok (" not in out
    assert issubclass(verify.OutdatedIndexError, CorruptIndexError)
