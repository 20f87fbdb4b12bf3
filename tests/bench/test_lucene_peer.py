"""bench/compare.py's Lucene peer: skipped in one line without java or jars, and, where both are
here, a real JVM run on a tiny BEIR folder (skipped in CI, which has no jars)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import compare
from bench.peers import lucene


def make_beir_folder(folder: Path) -> Path:
    documents = [
        {"_id": "d1", "title": "Cats", "text": "Cats purr and cats sleep."},
        {"_id": "d2", "title": "Dogs", "text": "Dogs bark\tloudly\nat night."},
        {"_id": "d3", "title": "Birds", "text": "Birds sing in the morning; running birds are rare."},
    ]
    queries = [{"_id": "q1", "text": "barking dogs"}, {"_id": "q2", "text": "running birds"},
               {"_id": "q3", "text": "the"}]
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td2\t1\nq2\td3\t1\nq3\td1\t1\n",
                                               encoding="utf-8")
    return folder


def test_no_java_is_one_line_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # a folder with no java in it
    assert lucene.skip_reason(tmp_path) == "no java / no javac on PATH"


def test_no_jars_names_the_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(lucene.shutil, "which", lambda tool: f"/usr/bin/{tool}")
    reason = lucene.skip_reason(tmp_path / "empty")
    assert reason is not None and reason.startswith(f"no jars at {tmp_path / 'empty'} ")


def test_jars_found_fat_jar_first_else_both_lucene_jars(tmp_path):
    (tmp_path / "lucene-core-9.12.3.jar").write_bytes(b"")
    assert lucene.find_jars(tmp_path) == []  # the analysis jar is missing
    (tmp_path / "lucene-analysis-common-9.12.3.jar").write_bytes(b"")
    assert [p.name for p in lucene.find_jars(tmp_path)] == ["lucene-core-9.12.3.jar",
                                                            "lucene-analysis-common-9.12.3.jar"]
    (tmp_path / "anserini-0.25.0-fatjar.jar").write_bytes(b"")
    assert [p.name for p in lucene.find_jars(tmp_path)] == ["anserini-0.25.0-fatjar.jar"]


def test_jars_directory_option_then_variable_then_cache(monkeypatch, tmp_path):
    monkeypatch.setenv(lucene.JARS_VARIABLE, str(tmp_path / "from-variable"))
    assert lucene.jars_directory(str(tmp_path / "given")) == tmp_path / "given"
    assert lucene.jars_directory() == tmp_path / "from-variable"
    monkeypatch.delenv(lucene.JARS_VARIABLE)
    assert lucene.jars_directory() == lucene.DEFAULT_JARS


def test_tsv_fields_keep_one_line_each(tmp_path):
    path = tmp_path / "rows.tsv"
    lucene.write_tsv([("a\tb", "one\ttwo\r\nthree"), ("c", "")], path)
    assert path.read_text(encoding="utf-8") == "a b\tone two  three\nc\t\n"


def test_compare_skips_lucene_in_one_line_and_runs_the_rest(monkeypatch, tmp_path, capsys):
    folder = make_beir_folder(tmp_path / "beir")
    monkeypatch.setattr(lucene.shutil, "which", lambda tool: None)
    measured = []

    def fake_child(system, arguments, score):
        measured.append(system)
        return {"system": system, "error": "not measured in this test"}

    monkeypatch.setattr(compare, "run_in_child", fake_child)
    status = compare.main(["--folder", str(folder), "--systems", "tantivy,lucene", "--rounds", "2"])
    captured = capsys.readouterr()
    assert measured == ["tantivy"]  # lucene never started; tantivy's failure stops its later rounds
    assert status == 1  # from tantivy's (faked) failure, not from the skip
    assert "lucene: skipped: no java / no javac on PATH\n" in captured.err
    assert "lucene: skipped: no java / no javac on PATH\n" in captured.out  # in the report too
    monkeypatch.setattr(compare, "run_in_child", lambda *a: pytest.fail("nothing is left to run"))
    assert compare.main(["--folder", str(folder), "--systems", "lucene"]) == 0
    capsys.readouterr()
    assert compare.main(["--folder", str(folder), "--system", "lucene"]) == 1  # by hand: one line, no traceback
    assert capsys.readouterr().err == "lucene: skipped: no java / no javac on PATH\n"


@pytest.mark.skipif(lucene.skip_reason(lucene.jars_directory()) is not None,
                    reason=f"lucene: {lucene.skip_reason(lucene.jars_directory())}")
def test_a_real_jvm_round_on_a_tiny_folder(tmp_path):
    folder = make_beir_folder(tmp_path / "beir")
    result = compare.measure("lucene", folder, None, warmup=5, score=True)
    assert result["documents"] == 3 and result["queries"] == 3 and result["warmup_searches"] == 5
    assert sorted(result["seconds"]) == ["top10", "top100", "top1000"]
    assert all(len(times) == 3 and min(times) > 0 for times in result["seconds"].values())
    assert result["ndcg@10"] > 0.6  # q1 and q2 find their document first through Porter stems
    hits = lucene.run(folder, [("q1", "barking dogs"), ("q3", "the")], [], 0, (10,), lucene.jars_directory())["hits"]
    assert [d for d, _s in hits["q1"]] == ["d2"]  # "bark" matches, nothing else does
    assert hits["q3"] == []  # a stop word only: no clause, no hit
