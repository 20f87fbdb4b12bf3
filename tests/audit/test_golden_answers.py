"""Golden answer files: the committed answers of the sample corpora still hold,
a changed answer needs new answer rules, and the file form rejects edits."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from regrag import Index
from regrag.answer.rules_version import ANSWER_RULES
from regrag.audit.golden import load_golden_queries
from regrag.audit.golden_answers import (
    answer_changes,
    answers_fingerprint,
    dumps_answers,
    loads_answers,
    read_answers,
    record_answers,
    rerecord_problem,
    write_answers,
)
from regrag.corpus.extract.pdf import available as pdf_available
from regrag.errors import InputError

REPO = Path(__file__).resolve().parents[2]
CORPORA = ("product-manuals", "regulations", "vn-stock-news")


@pytest.fixture(scope="module")
def fresh() -> dict[str, dict]:
    """Each sample corpus's answers as this engine gives them now."""
    out = {}
    for corpus in CORPORA:
        folder = REPO / "corpora" / corpus
        out[corpus] = record_answers(Index.from_path(folder / "documents"), load_golden_queries(folder / "queries.jsonl"))
    return out


@pytest.mark.parametrize("corpus", CORPORA)
def test_committed_answers_hold(fresh, corpus):
    """Every recorded answer comes back byte for byte; on failure, re-record with
    ``python3 bench/record_golden.py --answers`` (which asks for new answer rules)."""
    if corpus == "regulations" and not pdf_available():
        pytest.skip("golden/answers/regulations.golden was recorded with the corpus's PDF document: needs pdfminer.six")
    recorded = read_answers(REPO / "golden" / "answers" / f"{corpus}.golden")
    assert answer_changes(recorded, fresh[corpus]) == []
    assert recorded == fresh[corpus]
    assert recorded["answer_rules"] == ANSWER_RULES


def changed(record: dict, qid: str, **fields) -> dict:
    """``record`` with one answer's fields replaced, fingerprinted again."""
    answers = [dict(entry, **fields) if entry["query"] == qid else entry for entry in record["answers"]]
    out = dict(record, answers=answers)
    out["fingerprint"] = answers_fingerprint(out)
    return out


def test_a_changed_answer_needs_new_rules(fresh):
    record = fresh["regulations"]
    qid = record["answers"][0]["query"]
    moved = changed(record, qid, confidence=0.25, found=False)
    assert answer_changes(record, moved) == [f"{qid}: found true -> false, confidence 1.0 -> 0.25"]
    problem = rerecord_problem(record, moved)
    assert problem is not None and qid in problem and "ANSWER_RULES" in problem
    for key, value in (("answer_rules", "regrag-answer/999"), ("lexicon", "regrag-lexicon/999"), ("index_id", "f" * 64)):
        assert rerecord_problem(record, dict(moved, **{key: value})) is None
    # a question asked anew, or with another text, needs no new rules
    assert rerecord_problem(record, changed(record, qid, text="another question", confidence=0.25)) is None
    fewer = dict(record, answers=record["answers"][1:])
    assert rerecord_problem(record, fewer) is None
    assert answer_changes(record, fewer) == [f"{qid}: no longer asked"]
    assert rerecord_problem(record, record) is None


def test_round_trip_and_canonical_lines(fresh, tmp_path):
    record = fresh["vn-stock-news"]
    path = tmp_path / "a.golden"
    write_answers(path, record)
    assert read_answers(path) == record
    text = path.read_text(encoding="utf-8")
    assert text == dumps_answers(record) and text.count("\n") == len(record["answers"]) + 1
    assert json.loads(text.splitlines()[1])["query"] == min(e["query"] for e in record["answers"])


@pytest.mark.parametrize("edit, message", [
    (lambda lines: [lines[0], lines[1].replace('"found":true', '"found":false'), *lines[2:]], "fingerprint does not match"),
    (lambda lines: [lines[0], lines[1].replace('{"answer"', '{ "answer"'), *lines[2:]], ":2: line is not in canonical"),
    (lambda lines: [lines[0], lines[2], lines[1], *lines[3:]], ":3: query ids must be unique and ascending"),
    (lambda lines: [lines[0].replace("regrag-golden-answers/1", "x"), *lines[1:]], ":1: not a golden answers file"),
    (lambda lines: [lines[0], '{"query":"q"}', *lines[2:]], ":2: an answer line needs the keys"),
    (lambda lines: [], "empty file"),
])
def test_malformed_files_name_file_and_line(fresh, tmp_path, edit, message):
    path = tmp_path / "bad.golden"
    lines = dumps_answers(fresh["regulations"]).splitlines()
    path.write_text("\n".join(edit(lines)) + "\n" if edit(lines) else "", encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        read_answers(path)
    assert str(path) in str(caught.value)


def load_script():
    spec = importlib.util.spec_from_file_location("record_golden", REPO / "bench" / "record_golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_refuses_a_changed_answer_under_the_same_rules(fresh, tmp_path, capsys):
    script = load_script()
    arguments = ["--answers", "--corpus", "regulations", "--out-dir", str(tmp_path)]
    assert script.main(arguments) == 0
    path = tmp_path / "answers" / "regulations.golden"
    assert read_answers(path) == fresh["regulations"]
    assert script.main([*arguments, "--check"]) == 0
    # pretend an earlier engine answered reg-q001 otherwise, under the same rules
    qid = fresh["regulations"]["answers"][0]["query"]
    write_answers(path, changed(fresh["regulations"], qid, confidence=0.25, found=False))
    before = path.read_bytes()
    capsys.readouterr()
    assert script.main([*arguments, "--check"]) == 1
    assert f"{qid}: found false -> true, confidence 0.25 -> 1.0" in capsys.readouterr().out
    assert script.main(arguments) == 1
    out = capsys.readouterr().out
    assert "NOT WRITTEN" in out and "ANSWER_RULES" in out
    assert path.read_bytes() == before
    # recorded under other rules: the new answers are written
    older = dict(read_answers(path), answer_rules="regrag-answer/0")
    older["fingerprint"] = answers_fingerprint(older)
    write_answers(path, older)
    assert script.main(arguments) == 0
    assert read_answers(path) == fresh["regulations"]


def test_the_check_says_when_the_index_itself_differs(fresh, tmp_path, capsys):
    # the regulations answers as recorded from another index (as without pdfminer.six, which leaves out its PDF)
    script = load_script()
    other = dict(fresh["regulations"], index_id="0" * 64)
    other["fingerprint"] = answers_fingerprint(other)
    (tmp_path / "answers").mkdir()
    write_answers(tmp_path / "answers" / "regulations.golden", other)
    capsys.readouterr()
    assert script.main(["--answers", "--corpus", "regulations", "--out-dir", str(tmp_path), "--check"]) == 1
    now = fresh["regulations"]["index_id"][:16]
    assert (f"  the index differs: recorded 0000000000000000, now {now} "
            "(a document added, removed or changed, or one not indexed)") in capsys.readouterr().out


def test_the_docs_name_the_current_answer_rules():
    # docs/answers.md and docs/golden.md state the version in force; a bump must update them
    root = Path(__file__).resolve().parents[2]
    for name in ("docs/answers.md", "docs/golden.md", "README.md"):
        assert ANSWER_RULES in (root / name).read_text(encoding="utf-8"), name
