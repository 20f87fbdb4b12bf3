"""Calibration map files (regrag.answer.calibration): the lookup, the file form
and its faults, and what ``ask`` does with a map."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from regrag import Index
from regrag.answer.calibration import (
    CalibrationMap,
    calibration_from_dict,
    dumps_calibration,
    read_calibration,
    staleness,
    write_calibration,
)
from regrag.answer.options import AskOptions
from regrag.errors import InputError

CORPORA = Path(__file__).resolve().parents[2] / "corpora"


def make(points=((0.0, 0.1), (0.4, 0.5), (0.8, 0.9))) -> CalibrationMap:
    return CalibrationMap(tuple(points), "hybrid", "corpora/example", 30, "regrag-answer/9", "regrag-lexicon/3", 0.04, 10)


def test_the_map_is_a_step_lookup():
    calibration = make(((0.2, 0.1), (0.4, 0.5), (0.8, 0.9)))
    # below every start: the first step; at a start: that step; between: the step started below
    assert [calibration.apply(v) for v in (0.0, 0.2, 0.39, 0.4, 0.79, 0.8, 1.0)] == [0.1, 0.1, 0.1, 0.5, 0.5, 0.9, 0.9]


def test_a_file_round_trips_byte_for_byte(tmp_path):
    path = tmp_path / "map.json"
    write_calibration(path, make())
    assert read_calibration(path) == make()
    assert path.read_bytes() == dumps_calibration(make())
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["fingerprint"] == make().sha256 and record["format"] == "regrag-calibration/1"
    assert make().label() == f"regrag-calibration/1 sha256:{make().sha256}"


@pytest.mark.parametrize("edit, message", [
    (lambda r: r.update(points=[[0.5, 0.2], [0.4, 0.6]]), r"points\[1\]: starts must ascend"),
    (lambda r: r.update(points=[[0.1, 0.6], [0.4, 0.2]]), r"points\[1\]: starts must ascend and accuracies must not fall"),
    (lambda r: r.update(points=[[0.1, 1.5]]), r"points\[0\]: must be a pair of numbers between 0 and 1"),
    (lambda r: r.update(points=[]), r"points: must be a non-empty list"),
    (lambda r: r.pop("method"), r"missing field\(s\) method"),
    (lambda r: r.update(extra=1), r"unknown field\(s\) extra"),
    (lambda r: r.update(format="regrag-calibration/0"), r"format: expected 'regrag-calibration/1'"),
    (lambda r: r.update(questions=-1), r"questions: must be a whole number"),
    (lambda r: r.update(out_of_fold_ece="low"), r"out_of_fold_ece: must be a number"),
])
def test_a_bad_record_names_the_field(edit, message):
    record = make().to_dict()
    edit(record)
    with pytest.raises(InputError, match=message):
        calibration_from_dict(record, "map.json")


def test_an_edited_or_foreign_file_is_refused(tmp_path):
    path = tmp_path / "map.json"
    write_calibration(path, make())
    record = json.loads(path.read_text(encoding="utf-8"))
    record["points"][2][1] = 0.99  # still a valid map, but not the one fingerprinted
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(InputError, match="fingerprint does not match the content"):
        read_calibration(path)
    path.write_text('{"points": NaN}', encoding="utf-8")
    with pytest.raises(InputError, match=r"map.json: malformed JSON \(NaN"):
        read_calibration(path)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(InputError, match="not UTF-8"):
        read_calibration(path)
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match="fingerprint: missing"):
        read_calibration(path)
    with pytest.raises(InputError, match="absent.json"):
        read_calibration(tmp_path / "absent.json")


def test_staleness_names_what_differs():
    assert staleness(make(), "regrag-answer/9", "regrag-lexicon/3") == ""
    assert staleness(make(), "regrag-answer/10", "") == (
        "answer rules regrag-answer/9 (this engine: regrag-answer/10), synonyms regrag-lexicon/3 (this call: none)")


def test_ask_reports_the_mapped_value_and_refuses_by_it():
    index = Index.from_path(CORPORA / "vn-stock-news" / "documents")
    question = "Lợi nhuận sau thuế quý 2/2026 của QMS là bao nhiêu?"
    plain = index.ask(question)
    assert plain.confidence.uncalibrated is None and plain.confidence.calibration == ""
    high = make(((0.0, 0.2), (0.5, 0.75)))
    mapped = index.ask(question, options=AskOptions(calibration=high))
    assert mapped.confidence.uncalibrated == plain.confidence.value
    assert mapped.confidence.value == 0.75 and mapped.found and mapped.confidence.calibration == high.label()
    assert mapped.sentences == plain.sentences and mapped.short_answer == plain.short_answer
    # a map saying such answers are right 30% of the time refuses them at the default threshold
    low = make(((0.0, 0.3),))
    refused = index.ask(question, options=AskOptions(calibration=low))
    assert refused.confidence.value == 0.3 and not refused.found and refused.confidence.refused
    # nothing to answer from: 0, refused, not mapped
    nothing = index.ask("zzqx", options=AskOptions(calibration=high))
    assert nothing.confidence.value == 0.0 and nothing.confidence.uncalibrated == 0.0 and not nothing.found


def test_ask_options_check_and_record_the_map():
    with pytest.raises(InputError, match="calibration must be a regrag CalibrationMap"):
        AskOptions(calibration={"points": [[0, 1]]})
    record = {"entities": True, "filters": [], "k": 5, "method": "hybrid", "rrf_depth": 60, "max_sentences": 3,
              "threshold": 0.55, "calibration": make().to_dict()}
    assert AskOptions.from_record(record).calibration == make()
    assert AskOptions.from_record(dict(record, calibration=None)).calibration is None
    with pytest.raises(InputError, match="ledger record: calibration: missing field"):
        AskOptions.from_record(dict(record, calibration={"points": [[0.0, 1.0]]}))
    assert replace(AskOptions(), calibration=make()).calibration == make()
