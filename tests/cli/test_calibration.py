"""``eval --fit-calibration``, ``eval --calibration``, ``ask --calibration``
and a calibrated ``ask`` in the ledger (docs/calibration.md)."""

from __future__ import annotations

import json

import pytest

from regrag.answer.calibration import read_calibration
from regrag.cli import main

from .conftest import run

FOLDER = "corpora/vn-stock-news"
QUESTION = "Lợi nhuận sau thuế quý 2/2026 của QMS là bao nhiêu?"


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    path = tmp_path_factory.mktemp("calibration") / "vn.json"
    assert main(["eval", "--beir", FOLDER, "--method", "hybrid", "--fit-calibration", str(path), "--json"]) == 0
    return path


def test_fit_writes_a_map_and_reports_it_out_of_fold(fitted, capsys, tmp_path):
    calibration = read_calibration(fitted)
    assert calibration.method == "hybrid" and calibration.questions == 150 and calibration.folds == 10
    again = tmp_path / "again.json"
    status, out, _err = run(capsys, "eval", "--beir", FOLDER, "--method", "hybrid", "--fit-calibration", again, "--json")
    record = json.loads(out)
    assert status == 0 and again.read_bytes() == fitted.read_bytes()  # the same questions, the same bytes
    assert record["fitted_calibration"]["sha256"] == calibration.sha256
    assert record["fitted_calibration"]["out_of_fold"]["ece"] == calibration.out_of_fold_ece
    assert record["fitted_calibration"]["out_of_fold"]["folds"] == 10


def test_eval_with_the_map_says_it_is_in_sample(fitted, capsys):
    status, out, _err = run(capsys, "eval", "--beir", FOLDER, "--method", "hybrid", "--calibration", fitted)
    assert status == 0
    assert f"(confidences and refusals calibrated by {fitted}, fitted on {FOLDER}: 150 questions)" in out
    assert "(in-sample: the map was fitted on these questions" in out


def test_ask_prints_both_values_and_the_json_records_them(fitted, capsys):
    status, out, _err = run(capsys, "ask", QUESTION, "--corpus", f"{FOLDER}/documents", "--calibration", fitted)
    assert status == 0 and f" on {FOLDER} ({fitted})" in out and "Calibrated: 0.87 by the rules, " in out
    status, out, _err = run(capsys, "ask", QUESTION, "--corpus", f"{FOLDER}/documents", "--calibration", fitted, "--json")
    confidence = json.loads(out)["confidence"]
    assert confidence["calibration"] == read_calibration(fitted).label()
    assert confidence["value"] == read_calibration(fitted).apply(confidence["uncalibrated"])


def test_a_calibrated_answer_is_recorded_and_replays(fitted, capsys, tmp_path):
    index = tmp_path / "index"
    ledger = tmp_path / "ledger.jsonl"
    copy = tmp_path / "map.json"
    copy.write_bytes(fitted.read_bytes())
    assert run(capsys, "index", f"{FOLDER}/documents", "--out", index)[0] == 0
    assert run(capsys, "ask", QUESTION, "--index", index, "--calibration", copy, "--ledger", ledger)[0] == 0
    record = json.loads(ledger.read_text(encoding="utf-8").splitlines()[0])["record"]
    assert record["options"]["calibration"] == read_calibration(copy).to_dict()
    copy.unlink()  # the replay needs no file
    status, out, _err = run(capsys, "ledger", "replay", ledger, "--index", index)
    assert status == 0 and out.splitlines()[-1] == "1 of 1 records replayed identically"


@pytest.mark.parametrize("arguments, message", [
    (["ask", QUESTION, "--method", "bm25"], "fitted on hybrid answers: use it with --method hybrid"),
    (["ask", QUESTION, "--pipeline", "stock-news"], "--calibration maps the extractive answer's confidence; the pipeline has none"),
    (["eval", "--beir", FOLDER, "--method", "bm25"], "fitted on hybrid answers: use it with --method hybrid"),
    (["eval", "--beir", FOLDER], "fitted on hybrid answers: use it with --method hybrid"),
    (["eval", "--beir", FOLDER, "--method", "hybrid", "--no-answers"], "need the answer metrics"),
])
def test_misused_maps_are_one_line_errors(capsys, fitted, arguments, message):
    path = fitted
    corpus = ["--corpus", f"{FOLDER}/documents"] if arguments[0] == "ask" else []
    status, _out, err = run(capsys, *arguments, *corpus, "--calibration", path)
    assert status == 2 and message in err and "Traceback" not in err


def test_fit_needs_one_method_and_no_map(capsys, fitted, tmp_path):
    status, _out, err = run(capsys, "eval", "--beir", FOLDER, "--fit-calibration", tmp_path / "x.json")
    assert status == 2 and "--fit-calibration needs a single --method" in err
    status, _out, err = run(capsys, "eval", "--beir", FOLDER, "--method", "hybrid", "--fit-calibration",
                            tmp_path / "x.json", "--calibration", fitted)
    assert status == 2 and "cannot be combined with --calibration" in err
    assert not (tmp_path / "x.json").exists()
