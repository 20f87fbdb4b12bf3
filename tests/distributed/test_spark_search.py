"""Batch search on Spark gives the one-process bytes (docs/distributed.md, "Proofs").

The TREC run of ``search --topics``, the report of ``eval --json`` and the
file of ``golden record`` computed on Spark (``local[2]``, 3 and 7
partitions, a retried task, the index sharded in 2) are byte-identical to
the same commands in one process on the plain index; ``golden verify
--spark`` passes against the sharded index.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regrag import Index
from regrag.cli import main
from regrag.distributed.spark_jobs import FAIL_FIRST_ATTEMPT
from regrag.index.parameters import IndexParameters
from regrag.index.sharded import build_sharded, publish_sharded
from regrag.text.analyzer import Analyzer
from tests.distributed.spark_fixtures import corpus_documents, spark, write_jsonl

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A BEIR folder (queries: document titles, each judging its document), its plain index and a 2-shard index."""
    documents = corpus_documents()[0]
    root = tmp_path_factory.mktemp("beir")
    write_jsonl(documents, root / "corpus.jsonl")
    chosen = documents[::7]
    with open(root / "queries.jsonl", "w", encoding="utf-8") as handle:
        for number, document in enumerate(chosen):
            handle.write(json.dumps({"_id": f"q{number}", "text": document.title or document.text[:60]}) + "\n")
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{n}\t{d.id}\t1\n" for n, d in enumerate(chosen)), encoding="utf-8")
    from regrag.corpus.load import load_corpus

    loaded = load_corpus(root / "corpus.jsonl").documents
    Index.from_documents(loaded).save(root / "plain")
    analyzer, parameters = Analyzer("auto"), IndexParameters()
    publish_sharded(root / "sharded", *build_sharded(loaded, analyzer, parameters, 2), analyzer, parameters)
    return root


def _run(arguments, capsys) -> str:
    assert main(arguments) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_trec_runs_golden_files_and_eval_reports_are_the_one_process_bytes(folder, tmp_path, capsys):
    topics = str(folder / "queries.jsonl")
    plain, sharded = str(folder / "plain"), str(folder / "sharded")
    _run(["search", "--topics", topics, "--index", plain, "--output", str(tmp_path / "one.run"), "--hits", "100"], capsys)
    _run(["golden", "record", topics, "--index", plain, "--out", str(tmp_path / "one.golden"), "-k", "20"], capsys)
    one_eval = _run(["eval", "--beir", str(folder), "--index", plain, "--depth", "100", "--json", "--no-answers"], capsys)
    lines = (tmp_path / "one.run").read_text(encoding="utf-8").splitlines()
    assert len(lines) > 1000 and lines[0].startswith("q0 Q0 ")
    with spark("local[2]", hash_seed="1"):
        for partitions in ("3", "7"):
            run = tmp_path / f"spark-{partitions}.run"
            _run(["search", "--topics", topics, "--index", sharded, "--output", str(run), "--hits", "100",
                  "--spark", "--partitions", partitions], capsys)
            assert run.read_bytes() == (tmp_path / "one.run").read_bytes()
        _run(["golden", "record", topics, "--index", plain, "--out", str(tmp_path / "spark.golden"), "-k", "20",
              "--spark", "--partitions", "3"], capsys)
        assert (tmp_path / "spark.golden").read_bytes() == (tmp_path / "one.golden").read_bytes()
        spark_eval = _run(["eval", "--beir", str(folder), "--index", plain, "--depth", "100", "--json", "--no-answers",
                           "--spark", "--partitions", "7"], capsys)
        assert spark_eval == one_eval
    with spark("local[2,2]", executor_env={FAIL_FIRST_ATTEMPT: "all"}, hash_seed="random"):
        run = tmp_path / "retried.run"
        _run(["search", "--topics", topics, "--index", sharded, "--output", str(run), "--hits", "100", "--spark",
              "--partitions", "3"], capsys)
        assert run.read_bytes() == (tmp_path / "one.run").read_bytes()
        assert "OK: all" in _run(["golden", "verify", str(tmp_path / "one.golden"), "--index", sharded, "--spark"], capsys)

