"""The audit commands: index, --index/--generation/--as-of, verify, prove,
verify-proof, ledger; and the option checks around them."""

from __future__ import annotations

import json
import shutil

import pytest

from regrag import Index
from regrag.cli import main

CORPUS = "corpora/regulations/documents"


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def index_dir(tmp_path, capsys):
    directory = tmp_path / "index"
    status, out, _err = run(capsys, "index", CORPUS, "--out", directory)
    assert status == 0 and out.startswith("generation 1  ·  5 documents")
    return directory


def test_search_from_an_index_directory_equals_search_from_the_corpus(capsys, index_dir):
    query = "liquidity coverage ratio reporting"
    _s, from_corpus, _e = run(capsys, "search", query, "--corpus", CORPUS, "--json")
    status, from_index, _e = run(capsys, "search", query, "--index", index_dir, "--json")
    assert status == 0 and from_index == from_corpus and from_index.count("\n") == 10
    record = json.loads(from_index.splitlines()[0])
    assert record["corpus_root"] == Index.open(index_dir).corpus_root and len(record["corpus_root"]) == 64


def test_ask_and_explain_accept_an_index(capsys, index_dir):
    _s, from_corpus, _e = run(capsys, "ask", "What is the minimum LCR?", "--corpus", CORPUS, "--json")
    status, from_index, _e = run(capsys, "ask", "What is the minimum LCR?", "--index", index_dir, "--json")
    assert from_index == from_corpus and status in (0, 1)
    passage = json.loads(from_index)["hits"][0]["passage_id"]
    status, out, _e = run(capsys, "explain", "minimum LCR", passage, "--index", index_dir)
    assert status == 0 and passage in out


def test_index_options_conflict_with_a_stored_index(capsys, index_dir):
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--k1", "1.2")
    assert status == 2 and "--k1 cannot be combined with --index" in err
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--corpus", CORPUS)
    assert status == 2 and "not both" in err
    status, _o, err = run(capsys, "search", "fee", "--generation", "1")
    assert status == 2 and "need --index" in err
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--generation", "7")
    assert status == 2 and "generation 7 is not retained" in err
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--as-of", "yesterday")
    assert status == 2 and "ISO 8601" in err
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir.parent / "missing")
    assert status == 2 and "no such index directory" in err


def test_update_publishes_a_generation_identical_to_a_fresh_index(capsys, index_dir, tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    names = sorted(p.name for p in corpus.iterdir())
    (corpus / names[0]).write_text((corpus / names[0]).read_text(encoding="utf-8") + "\nA sentence added later.\n", encoding="utf-8")
    (corpus / names[-1]).unlink()
    (corpus / "new.md").write_text("# New circular\n\nBanks report liquidity weekly.\n", encoding="utf-8")
    status, out, _e = run(capsys, "index", corpus, "--out", index_dir, "--update")
    assert status == 0 and "generation 2" in out and "1 added, 1 replaced, 1 deleted" in out
    status, _o, _e = run(capsys, "index", corpus, "--out", tmp_path / "fresh")
    for path in sorted((tmp_path / "fresh" / "generations" / "000001").iterdir()):
        assert (index_dir / "generations" / "000002" / path.name).read_bytes() == path.read_bytes(), path.name
    status, _o, err = run(capsys, "index", corpus, "--out", index_dir, "--update", "--b", "0.5")
    assert status == 2 and "cannot be combined with --update" in err
    # Both generations answer; the old one as it did before.
    _s, old, _e = run(capsys, "search", "liquidity", "--index", index_dir, "--generation", "1", "--json")
    _s, before, _e = run(capsys, "search", "liquidity", "--corpus", CORPUS, "--json")
    assert old == before


def test_keep_prunes_old_generations(capsys, index_dir):
    for _ in range(3):
        assert run(capsys, "index", CORPUS, "--out", index_dir, "--keep", "2")[0] == 0
    assert sorted(p.name for p in (index_dir / "generations").iterdir()) == ["000003", "000004"]
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir, "--generation", "1")
    assert status == 2 and "kept: 3, 4" in err


def test_verify_reports_intact_and_damaged(capsys, index_dir):
    status, out, _e = run(capsys, "verify", index_dir)
    assert status == 0 and out == "generation 1: ok (sizes, hashes and a full re-index of the stored documents)\n"
    target = index_dir / "generations" / "000001" / "postings.i32"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x01
    target.write_bytes(bytes(data))
    status, out, _e = run(capsys, "verify", index_dir, "--quick")
    assert status == 1 and "DAMAGED" in out and "postings.i32" in out
    status, _o, err = run(capsys, "search", "fee", "--index", index_dir)
    assert status == 2 and "postings.i32: SHA-256 does not match" in err


def test_prove_and_verify_proof(capsys, index_dir, tmp_path):
    status, out, _e = run(capsys, "prove", index_dir, "cbv-minimum-reserve-requirements.md")
    assert status == 0
    proof = json.loads(out)
    assert proof["root"] == Index.open(index_dir).corpus_root and proof["tree_size"] == 5
    path = tmp_path / "proof.json"
    path.write_text(out, encoding="utf-8")
    status, out, _e = run(capsys, "verify-proof", path, "--root", proof["root"])
    assert status == 0 and out.startswith("valid:")
    status, out, _e = run(capsys, "verify-proof", path, "--root", "0" * 64)
    assert status == 1 and out.startswith("INVALID")
    proof["content_hash"] = "f" * 64
    path.write_text(json.dumps(proof), encoding="utf-8")
    assert run(capsys, "verify-proof", path)[0] == 1
    path.write_text("{not json", encoding="utf-8")
    assert run(capsys, "verify-proof", path)[0] == 2
    status, _o, err = run(capsys, "prove", index_dir, "no-such.md")
    assert status == 2 and "no document with id 'no-such.md'" in err


def test_ledger_records_verifies_and_replays(capsys, index_dir, tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    assert run(capsys, "search", "liquidity coverage", "--index", index_dir, "--ledger", ledger)[0] == 0
    assert run(capsys, "ask", "What is the minimum LCR?", "--index", index_dir, "--ledger", ledger)[0] in (0, 1)
    assert run(capsys, "search", "reserve requirement", "--corpus", CORPUS, "--ledger", ledger, "-k", "3")[0] == 0
    lines = ledger.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    first = json.loads(lines[0])["record"]
    assert first["command"] == "search" and first["generation"] == 1 and len(first["results"]) == 10
    assert json.loads(lines[2])["record"]["generation"] is None
    status, out, _e = run(capsys, "ledger", "verify", ledger)
    assert status == 0 and out.startswith("ok: 3 entries")
    # A new generation does not change what the recorded ones replay to.
    assert run(capsys, "index", "corpora/vn-stock-news/documents", "--out", index_dir)[0] == 0
    status, out, _e = run(capsys, "ledger", "replay", ledger, "--index", index_dir)
    assert status == 0 and out.splitlines()[-1] == "3 of 3 records replayed identically"
    # Editing a record breaks the chain; replay refuses.
    edited = lines[1].replace("LCR", "NSFR")
    ledger.write_text("\n".join([lines[0], edited, lines[2]]) + "\n", encoding="utf-8")
    status, out, _e = run(capsys, "ledger", "verify", ledger)
    assert status == 1 and "line 2" in out
    assert run(capsys, "ledger", "replay", ledger, "--index", index_dir)[0] == 1


def test_replay_reports_a_record_whose_results_differ(capsys, index_dir, tmp_path):
    from regrag.audit.ledger import append_record
    from regrag.audit.replay import call_record

    index = Index.open(index_dir)
    hits = index.search("liquidity", k=3)
    options = {"entities": True, "filters": [], "k": 3, "method": "hybrid", "rrf_depth": 100}
    honest = call_record("search", "liquidity", options, index, hits)
    forged = dict(honest, results=[[pid, score * 2] for pid, score in honest["results"]])
    unknown = dict(honest, generation=None, index_id="0" * 64)
    ledger = tmp_path / "ledger.jsonl"
    for record in (honest, forged, unknown):
        append_record(ledger, record)
    status, out, _e = run(capsys, "ledger", "replay", ledger, "--index", index_dir)
    lines = out.splitlines()
    assert status == 1
    assert lines[0].startswith("record 1: identical")
    assert lines[1].startswith("record 2: DIFFERENT") and "results changed" in lines[1]
    assert lines[2].startswith("record 3: NOT REPLAYED") and "no retained generation has index id 0000000000000000" in lines[2]
    assert lines[3] == "1 of 3 records replayed identically"


def test_golden_record_and_verify_through_the_cli(capsys, index_dir, tmp_path):
    golden = tmp_path / "regulations.golden"
    status, out, _e = run(capsys, "golden", "record", "corpora/regulations/queries.jsonl", "--index", index_dir,
                          "--out", golden, "--method", "bm25")
    assert status == 0 and out.startswith("recorded 70 queries × 1 method(s), top 10")
    assert golden.read_bytes() == open("golden/regulations.bm25.golden", "rb").read()
    status, out, _e = run(capsys, "golden", "verify", golden, "--index", index_dir)
    assert status == 0 and "OK: all 70 rankings identical" in out
    status, out, _e = run(capsys, "golden", "verify", golden, "--corpus", CORPUS, "--b", "0.3")
    assert status == 1 and "reg-q0" in out and " -> " in out
    golden.write_text(golden.read_text(encoding="utf-8").replace('"k":10', '"k":11', 1), encoding="utf-8")
    status, _o, err = run(capsys, "golden", "verify", golden, "--index", index_dir)
    assert status == 2 and "fingerprint" in err


def test_eval_accepts_an_index_directory(capsys, index_dir):
    _s, from_corpus, _e = run(capsys, "eval", "--beir", "corpora/regulations", "--method", "bm25", "--no-answers", "--per-query")
    status, from_index, _e = run(capsys, "eval", "--beir", "corpora/regulations", "--method", "bm25", "--no-answers",
                                 "--per-query", "--index", index_dir)
    assert status == 0

    def without_timings(text):
        return [line for line in text.splitlines() if " ms " not in line and "indexing" not in line]

    assert without_timings(from_index) == without_timings(from_corpus)
    assert "0.8727" in from_index  # regulations bm25 Hit@1 (docs/evaluation.md)
