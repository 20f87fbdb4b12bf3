"""``search --ledger``, ``ask --ledger``, ``regrag ledger verify`` and ``regrag ledger replay``."""

from __future__ import annotations

import json

from regrag import Index
from regrag.cli import main

CORPUS = "corpora/regulations/documents"


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


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


def test_replay_says_when_an_ask_record_was_made_under_other_answer_rules(capsys, index_dir, tmp_path):
    from regrag.answer.rules_version import ANSWER_RULES
    from regrag.audit.ledger import append_record
    from regrag.audit.replay import call_record

    ledger = tmp_path / "ledger.jsonl"
    assert run(capsys, "ask", "What is the minimum LCR?", "--index", index_dir, "--ledger", ledger)[0] in (0, 1)
    honest = json.loads(ledger.read_text(encoding="utf-8").splitlines()[0])["record"]
    assert honest["command"] == "ask" and honest["answer_rules"] == ANSWER_RULES
    # a record made under other rules (its answer as then given), and one made before rules were versioned
    older = dict(honest, answer_rules="regrag-answer/0", output_sha256="0" * 64)
    unversioned = {key: value for key, value in older.items() if key != "answer_rules"}
    # a search record never names answer rules, however it differs
    index = Index.open(index_dir)
    options = {"entities": True, "filters": [], "k": 3, "method": "hybrid", "rrf_depth": 100}
    search = call_record("search", "liquidity", options, index, index.search("liquidity", k=3))
    forged_search = dict(search, output_sha256="0" * 64)
    for record in (older, unversioned, forged_search):
        append_record(ledger, record)
    status, out, _e = run(capsys, "ledger", "replay", ledger, "--index", index_dir)
    lines = out.splitlines()
    assert status == 1
    assert lines[0].startswith("record 1: identical (ask 'What is the minimum LCR?'")
    assert lines[1].endswith(
        "answer_rules, output_sha256 changed; recorded under answer rules regrag-answer/0, "
        f"this engine applies {ANSWER_RULES}")
    assert lines[2].endswith(
        "answer_rules, output_sha256 changed; recorded under answer rules older than regrag-answer/1 "
        f"(none recorded), this engine applies {ANSWER_RULES}")
    assert lines[3].endswith("output_sha256 changed")
    assert lines[4] == "1 of 4 records replayed identically"


def test_ask_json_names_its_answer_rules(capsys):
    from regrag.answer.rules_version import ANSWER_RULES

    status, out, _e = run(capsys, "ask", "What is the minimum LCR?", "--corpus", CORPUS, "--json")
    assert status in (0, 1) and json.loads(out)["answer_rules"] == ANSWER_RULES
