"""Calibration maps in the servers (docs/calibration.md, "Servers"): ``regrag
serve --calibration FILE`` and ``regrag mcp --calibration FILE`` map the
confidence of the method each map was fitted on; the rule-based value stays in
``confidence.uncalibrated``; the served ledger keeps the map, so a replay
gives the same bytes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from regrag.answer.calibration import CalibrationMap, read_calibrations, write_calibration
from regrag.answer.lexicon import LEXICON_VERSION
from regrag.answer.rules_version import ANSWER_RULES
from regrag.audit.ledger import read_ledger
from regrag.errors import InputError
from regrag.integrations.tools import call_tool
from regrag.serve.state import IndexHolder, Served

QUESTION = "What is the margin interest rate?"
REPO = Path(__file__).resolve().parents[2]


def a_map(method: str = "hybrid", answer_rules: str = ANSWER_RULES) -> CalibrationMap:
    # a step map of made-up accuracies, so every mapped value is one of 0.1, 0.4, 0.9
    return CalibrationMap(((0.0, 0.1), (0.3, 0.4), (0.6, 0.9)), method, "tests/example", 30, answer_rules,
                          LEXICON_VERSION, 0.04, 10)


def test_served_answers_are_mapped_and_replay(make_running, index, token_file, tmp_path):
    from regrag.serve.auth import TokenTable

    calibration = a_map()
    running = make_running(IndexHolder(index=index, served=Served(calibrations=(calibration,))),
                           tokens=TokenTable.load(token_file), ledger=str(tmp_path / "ledger.jsonl"), rate=0)
    status, _h, body = running.json("POST", "/_ask", {"question": QUESTION}, "carol")
    assert status == 200
    confidence = body["answer"]["confidence"]
    assert confidence["uncalibrated"] == index.ask(QUESTION).confidence.value
    assert confidence["value"] == calibration.apply(confidence["uncalibrated"])
    assert confidence["calibration"] == calibration.label()
    # another method has no map here: its confidence is the rule-based one
    status, _h, body = running.json("POST", "/_ask", {"question": QUESTION, "method": "bm25"}, "carol")
    other = body["answer"]["confidence"]
    assert status == 200 and other["uncalibrated"] is None and other["calibration"] == ""
    entries = read_ledger(running.server.config.ledger)
    assert entries[0].record["options"]["calibration"] == calibration.to_dict()
    assert "calibration" not in entries[1].record["options"]
    status, _h, replay = running.json("POST", "/_ledger/replay", {}, "carol")
    assert status == 200 and replay["replayed"] == 2 and replay["identical"] == 2, replay


def test_the_mcp_ask_tool_maps_its_method_only(index):
    calibration = a_map()
    mapped = call_tool(index, "ask", {"question": QUESTION}, None, (calibration,))["confidence"]
    plain = call_tool(index, "ask", {"question": QUESTION})["confidence"]
    assert plain["uncalibrated"] is None and mapped["uncalibrated"] == plain["value"]
    assert mapped["value"] == calibration.apply(plain["value"])
    bm25 = call_tool(index, "ask", {"question": QUESTION, "method": "bm25"}, None, (calibration,))["confidence"]
    assert bm25["uncalibrated"] is None


def test_one_map_a_method(tmp_path):
    first, second, other = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    write_calibration(first, a_map())
    write_calibration(second, a_map())
    write_calibration(other, a_map("bm25"))
    assert sorted(read_calibrations([first, other])) == ["bm25", "hybrid"]
    with pytest.raises(InputError, match=r"b\.json: a second map of hybrid answers \(the first is .*a\.json\)"):
        read_calibrations([first, second])


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_a_bad_file_stops_the_server_before_it_starts(tmp_path, command):
    bad = tmp_path / "edited.json"
    write_calibration(bad, a_map())
    bad.write_text(bad.read_text(encoding="utf-8").replace('"questions":30', '"questions":31'), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "regrag", command, "--corpus", str(REPO / "corpora" / "regulations"
                                                                                       / "documents"),
                             "--calibration", str(bad)], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == 2, result.stderr
    assert f"{bad}: fingerprint does not match the content (the file was edited)" in result.stderr


def test_a_stale_map_is_noted_on_standard_error(tmp_path):
    stale = tmp_path / "stale.json"
    write_calibration(stale, a_map(answer_rules="regrag-answer/1"))
    mcp = subprocess.run([sys.executable, "-m", "regrag", "mcp", "--corpus",
                          str(REPO / "corpora" / "regulations" / "documents"), "--calibration", str(stale)],
                         input="", capture_output=True, text=True, timeout=120)
    assert mcp.returncode == 0, mcp.stderr
    assert (f"regrag mcp: note: the hybrid map was fitted under answer rules regrag-answer/1 (this engine: "
            f"{ANSWER_RULES}); it may not fit these confidences") in mcp.stderr
    assert mcp.stdout == ""  # no request came: nothing on the protocol stream
