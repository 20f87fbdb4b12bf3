"""Issue 12: answers.jsonl shapes, --no-answers, gzipped BEIR files, and eval --json byte-reproducible."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from regrag.cli import main
from regrag.errors import InputError
from regrag.eval.beir import read_answers
from regrag.eval.run import evaluate_folder, load_labelled_set


@pytest.fixture
def labelled(tmp_path):
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "paris.md").write_text("# France\n\nThe capital of France is Paris.\n")
    (tmp_path / "documents" / "answer.md").write_text("# Numbers\n\nThe answer to everything is 42.\n")
    (tmp_path / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "capital of France"}\n{"_id": "q2", "text": "answer to everything"}\n')
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tparis.md\t1\nq2\tanswer.md\t1\n")
    return tmp_path


def test_answer_may_be_a_list_of_strings_or_a_number(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"_id": "q1", "answer": ["Paris", "the city of Paris"]}\n{"_id": "q2", "answer": 42}\n'
                    '{"_id": "q3", "answer": 3.5, "answerable": true}\n{"_id": "q4", "answer": [7, "seven", ""]}\n'
                    '{"_id": "q5", "answers": ["x", {"text": "y", "answer_start": 0}]}\n')
    assert read_answers(path) == {
        "q1": (True, ("Paris", "the city of Paris")),
        "q2": (True, ("42",)),
        "q3": (True, ("3.5",)),
        "q4": (True, ("7", "seven")),
        "q5": (True, ("x", "y")),
    }


@pytest.mark.parametrize(("line", "message"), [
    ('{"_id": "q", "answer": {"text": "x"}}', r"a:1: 'answer' must be a string, a finite number or a list of them, got dict$"),
    ('{"_id": "q", "answer": ["x", null]}', r"a:1: 'answer' must be .* got NoneType in the list$"),
    ('{"_id": "q", "answer": true}', r"a:1: 'answer' must be .* got bool$"),
    ('{"_id": "q", "answer": "x", "answerable": "yes"}', r"a:1: 'answerable' must be true or false, got str$"),
    ('{"_id": "q", "answers": [1]}', r"a:1: 'answers' must be a list of strings or of objects with a string 'text'$"),
])
def test_bad_answer_lines_name_the_field_they_have(tmp_path, line, message):
    path = tmp_path / "a"
    path.write_text(line + "\n")
    with pytest.raises(InputError, match=message):
        read_answers(path)


def test_any_listed_answer_counts(labelled):
    (labelled / "answers.jsonl").write_text('{"_id": "q1", "answer": ["Lyon", "Paris"]}\n{"_id": "q2", "answer": 42}\n')
    result = evaluate_folder(labelled, methods=("bm25",)).result("bm25")
    assert result.answer_metrics["answer_contains"] == 1.0


def test_no_answers_does_not_read_answers_jsonl(labelled, capsys):
    (labelled / "answers.jsonl").write_bytes(b"\xff this is not JSON\n")
    with pytest.raises(InputError, match="answers.jsonl:1: invalid UTF-8"):
        load_labelled_set(labelled)
    assert load_labelled_set(labelled, answers=False).references == {}
    assert main(["eval", "--beir", str(labelled), "--method", "bm25", "--no-answers"]) == 0
    assert "regrag: error" not in capsys.readouterr().err


def test_gzipped_beir_corpus_and_queries(tmp_path):
    corpus = b"".join(json.dumps({"_id": f"d{i}", "title": "", "text": f"topic{i} words"}).encode() + b"\n" for i in range(3))
    (tmp_path / "corpus.jsonl.gz").write_bytes(gzip.compress(corpus, mtime=0))
    (tmp_path / "queries.jsonl.gz").write_bytes(gzip.compress(b'{"_id": "q1", "text": "topic1"}\n', mtime=0))
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("q1\td1\t1\n")
    report = evaluate_folder(tmp_path, methods=("bm25",))
    assert report.document_count == 3 and report.result("bm25").run["q1"][0][0] == "d1"


def test_eval_json_is_byte_reproducible_and_timings_go_to_stderr(labelled):
    command = [sys.executable, "-m", "regrag", "eval", "--beir", str(labelled), "--json"]
    first = subprocess.run(command, capture_output=True, check=True)
    second = subprocess.run(command, capture_output=True, check=True)
    assert first.stdout == second.stdout
    record = json.loads(first.stdout)
    assert "index_seconds" not in record and all("timings" not in entry for entry in record["methods"].values())
    timings = json.loads(first.stderr.decode().split("regrag: timings: ", 1)[1])
    assert set(timings) == {"index_seconds", "methods"} and set(timings["methods"]) == {"bm25", "tfidf", "hybrid"}
    assert timings["methods"]["bm25"]["query_mean_ms"] >= 0


def test_report_keeps_timings_apart(labelled):
    report = evaluate_folder(labelled, methods=("bm25",))
    record = report.to_dict(per_query=True)
    assert "index_seconds" not in record and "timings" not in record["methods"]["bm25"]
    assert report.timings()["methods"]["bm25"]["queries_per_second"] >= 0
