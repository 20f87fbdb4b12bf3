"""Topics files, the SHA-256 partition function, the executor identity check and the
one-process TREC run of ``regrag search --topics`` (no Spark needed)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from regrag import Index
from regrag.cli import main
from regrag.distributed.batch_search import RankingRequest, rank_here, search_run
from regrag.distributed.partitioning import KeyPartitioner, partition_of
from regrag.distributed.topics import load_topics
from regrag.distributed.worker_identity import ExecutorMismatch, check_executor, environment_identity
from regrag.errors import InputError


def test_tsv_topics_are_sorted_by_id(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text("b\tsecond query\n\na\tfirst query\r\n", encoding="utf-8")
    assert load_topics(str(path)) == [("a", "first query"), ("b", "second query")]


def test_beir_topics(tmp_path):
    path = tmp_path / "queries.jsonl"
    path.write_text('{"_id": "2", "text": "two"}\n{"_id": "1", "text": "one"}\n', encoding="utf-8")
    assert load_topics(str(path)) == [("1", "one"), ("2", "two")]
    assert load_topics(str(tmp_path)) == [("1", "one"), ("2", "two")]


@pytest.mark.parametrize("content, message", [
    ("a\tone\na\ttwo\n", "topics.tsv:2: topic 'a' again (first on line 1)"),
    ("no tab here\n", "topics.tsv:1: expected id<TAB>text"),
    ("a b\tquery\n", "contains white space"),
    ("\n\n", "no topics"),
])
def test_bad_topics_name_the_file_and_line(tmp_path, content, message):
    path = tmp_path / "topics.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)):
        load_topics(str(path))


def test_partition_of_is_sha256_and_independent_of_the_hash_seed():
    assert partition_of("doc-1", 1) == 0
    assert KeyPartitioner(7)("doc-1") == partition_of("doc-1", 7)
    # int.from_bytes(sha256(b"doc-1").digest()[:8], "big") % 7, computed by hand from the digest
    import hashlib

    assert partition_of("doc-1", 7) == int(hashlib.sha256(b"doc-1").hexdigest()[:16], 16) % 7
    code = ("import json; from regrag.distributed.partitioning import partition_of; "
            "print(json.dumps([partition_of(f'k{i}', 5) for i in range(50)]))")
    seen = {subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONHASHSEED=seed),
                           capture_output=True, text=True, check=True).stdout for seed in ("0", "1", "random")}
    assert len(seen) == 1 and len(set(json.loads(seen.pop()))) == 5


def test_an_executor_that_differs_names_both_values():
    expected = dict(environment_identity("auto"), python="2.7.18")
    with pytest.raises(ExecutorMismatch, match=r"executor's python is 3\.\d+\.\d+ but the driver's is 2\.7\.18"):
        check_executor(expected, "auto")
    check_executor(environment_identity("auto"), "auto")


def test_document_run_takes_each_documents_best_passage_and_deepens_until_it_has_enough(tmp_path):
    index = Index.from_path()
    rank = lambda requests: rank_here(index, requests, {})  # noqa: E731
    run = search_run(rank, [("q", "account fees and interest")], hits=3, method="bm25")
    ranking = index.ranking("account fees and interest", k=index.passage_count, method="bm25")
    best = []
    for document, _passage, score in ranking:
        if document not in [d for d, _s in best]:
            best.append((document, score))
    assert run == {"q": best[:3]}
    passages = search_run(rank, [("q", "account fees and interest")], hits=3, method="bm25", unit="passage")
    assert passages == {"q": [(p, s) for _d, p, s in ranking[:3]]}


def test_search_topics_writes_a_trec_run(tmp_path, capsys):
    topics = tmp_path / "topics.tsv"
    topics.write_text("q2\tsavings account interest\nq1\tmobile brokerage fees\n", encoding="utf-8")
    run = tmp_path / "run.txt"
    assert main(["search", "--topics", str(topics), "--output", str(run), "--hits", "2", "--method", "bm25"]) == 0
    lines = run.read_text(encoding="utf-8").splitlines()
    index = Index.from_path()
    expected = []
    for qid, text in (("q1", "mobile brokerage fees"), ("q2", "savings account interest")):
        hits = search_run(lambda r: rank_here(index, r, {}), [(qid, text)], 2, "bm25")[qid]
        expected += [f"{qid} Q0 {doc} {rank} {score!r} regrag-bm25" for rank, (doc, score) in enumerate(hits, 1)]
    assert lines == expected and len(lines) == 4
    assert "2 topics  ·  4 lines" in capsys.readouterr().out


@pytest.mark.parametrize("arguments, message", [
    (["search", "query", "--output", "x"], "--output applies to --topics FILE"),
    (["search"], "give a QUERY or --topics FILE"),
    (["search", "--topics", "t.tsv"], "--topics needs --output RUN"),
    (["search", "--topics", "t.tsv", "--output", "r", "--spark", "local[1]"], "--spark needs --index DIR"),
])
def test_batch_options_are_checked(tmp_path, monkeypatch, capsys, arguments, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.tsv").write_text("q\ttext\n", encoding="utf-8")
    assert main(arguments) == 2
    assert message in capsys.readouterr().err


def test_ranking_requests_have_a_canonical_key():
    assert RankingRequest("a b", 10, "bm25").key == '["bm25",10,"a b"]'


def test_index_on_spark_refuses_what_a_spark_build_does_not_do(tmp_path, capsys):
    arguments = ["index", "regrag/data/default_corpus", "--out", str(tmp_path / "out"), "--spark", "local[1]"]
    Index.from_path().save(tmp_path / "out")  # --update --spark updates a sharded generation only
    assert main(arguments + ["--update"]) == 2
    assert "--update --spark updates a sharded generation" in capsys.readouterr().err
    assert main(arguments + ["--update", "--shards", "2"]) == 2
    assert "--shards cannot be combined with --update" in capsys.readouterr().err
    assert main(arguments + ["--workers", "2"]) == 2
    assert "--workers cannot be combined with --spark" in capsys.readouterr().err
    plain = arguments[:4]  # without --spark, its options are refused before the corpus is read
    assert main(plain + ["--spark-files", "driver"]) == 2
    assert "--spark-files applies to --spark" in capsys.readouterr().err
    assert main(plain + ["--partitions", "2", "--spark-files", "storage"]) == 2
    assert "--partitions, --spark-files apply to --spark" in capsys.readouterr().err


def test_without_pyspark_or_java_spark_is_one_clear_error(tmp_path, monkeypatch, capsys):
    from regrag.distributed import spark_jobs

    monkeypatch.setattr(spark_jobs, "spark_missing_reason", lambda: "pyspark is not installed (pip install 'regrag[spark]')")
    index = tmp_path / "index"
    Index.from_path().save(index)
    (tmp_path / "t.tsv").write_text("q\tsavings\n", encoding="utf-8")
    assert main(["search", "--topics", str(tmp_path / "t.tsv"), "--index", str(index), "--output", str(tmp_path / "r"),
                 "--spark"]) == 2
    assert "regrag: error: --spark: pyspark is not installed (pip install 'regrag[spark]')" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_golden_and_eval_on_spark_need_an_index_directory(tmp_path, capsys):
    queries = tmp_path / "queries.txt"
    queries.write_text("savings account\n", encoding="utf-8")
    assert main(["golden", "record", str(queries), "--out", str(tmp_path / "g"), "--spark"]) == 2
    assert "--spark needs --index DIR" in capsys.readouterr().err
    assert main(["golden", "record", str(queries), "--out", str(tmp_path / "g"), "--partitions", "2"]) == 2
    assert "--partitions applies to --spark" in capsys.readouterr().err
