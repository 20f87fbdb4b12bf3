"""The sharded build on Spark gives the one-process bytes (docs/distributed.md, "Proofs").

``local[1]`` with 1 partition and ``local[2]`` with 2, 3 and 7 partitions, the
input reversed and shuffled, PYTHONHASHSEED 0, 1 and random on the workers
(and the driver's own seed, whatever pytest runs with; a CLI run with 1),
S in {1, 2, 4}: every shard file, and the manifest, byte-identical to
``build_sharded`` in this process; the index id that of the plain index;
the generation published from files the executors staged in the index
directory (``--spark-files storage``, the default) the same, file for file,
as the one-process publication and the one from files collected on the
driver (``--spark-files driver``). A task that fails on its first attempt
is retried to the same bytes (also after staging its files); a failed job
leaves the previous generation current and no staging folder; an executor
running another analyzer or another Python fails the job with a message
naming both.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from regrag import Index
from regrag.distributed.spark_build import build_on_spark
from regrag.distributed.spark_jobs import FAIL_FIRST_ATTEMPT
from regrag.errors import RegragError
from regrag.index.directory import IndexStore
from regrag.index.parameters import IndexParameters
from regrag.index.shard_staging import commit_staged, new_staging, remove_staging
from regrag.index.sharded import build_sharded, publish_sharded
from regrag.text.analyzer import Analyzer
from tests.distributed.spark_fixtures import corpus_documents, spark, write_jsonl

pytestmark = pytest.mark.spark

REPO = Path(__file__).resolve().parents[2]
PARAMETERS = IndexParameters(title_weight=1.3)  # non-dyadic: a float sum in another order would round differently
ANALYZER = Analyzer("auto")


@pytest.fixture(scope="module")
def documents():
    return corpus_documents()[0]


@pytest.fixture(scope="module")
def reference(documents):
    """The one-process files for each S."""
    return {shards: build_sharded(documents, ANALYZER, PARAMETERS, shards) for shards in (1, 2, 4)}


def _same_as_reference(found, reference, shards):
    files, statistics = found
    expected_files, expected_statistics = reference[shards]
    assert statistics.to_bytes() == expected_statistics.to_bytes()
    assert sorted(files) == list(range(shards))
    for shard in range(shards):
        assert files[shard] == expected_files[shard], f"shard {shard} of {shards}"


def _shuffled(documents, seed):
    chosen = list(documents)
    random.Random(seed).shuffle(chosen)
    return chosen


def test_the_index_id_is_the_plain_index_id(documents, reference):
    plain = Index.from_documents(documents, parameters=PARAMETERS)
    for shards in (1, 2, 4):
        assert reference[shards][1].index_id == plain.index_id


def test_one_worker_one_partition(documents, reference):
    with spark("local[1]", hash_seed="0"):
        for shards in (1, 2, 4):
            _same_as_reference(build_on_spark(documents, ANALYZER, PARAMETERS, shards, partitions=1), reference, shards)


def test_two_workers_many_partitions_input_reversed_and_shuffled(documents, reference):
    with spark("local[2]", hash_seed="1"):
        for partitions, order, shards in ((2, "reversed", 4), (3, "shuffled", 2), (7, "reversed", 1), (7, "shuffled", 4)):
            given = documents[::-1] if order == "reversed" else _shuffled(documents, partitions)
            _same_as_reference(build_on_spark(given, ANALYZER, PARAMETERS, shards, partitions=partitions),
                               reference, shards)


def test_a_task_failing_its_first_attempt_is_retried_to_the_same_bytes(documents, reference):
    with spark("local[2,2]", executor_env={FAIL_FIRST_ATTEMPT: "all"}, hash_seed="random"):
        _same_as_reference(build_on_spark(_shuffled(documents, 5), ANALYZER, PARAMETERS, 2, partitions=3),
                           reference, 2)
    # the injection really fails first attempts: without retries (local[2] allows none) the job fails
    with spark("local[2]", executor_env={FAIL_FIRST_ATTEMPT: "1"}):
        with pytest.raises(RegragError, match=f"{FAIL_FIRST_ATTEMPT}: partition 1 fails its first attempt"):
            build_on_spark(documents, ANALYZER, PARAMETERS, 2, partitions=3)


def _staged_publication(documents, root: Path, shards: int, partitions: int) -> dict[str, bytes]:
    """``build_on_spark`` with a staging folder in ``root``, published with ``commit_staged``:
    the generation's files (the staging folder gone)."""
    store = IndexStore(root)
    staging = new_staging(root)
    try:
        staged, statistics = build_on_spark(documents, ANALYZER, PARAMETERS, shards, partitions=partitions,
                                            staging=staging)
        assert sorted(staged) == list(range(shards))
        assert all(isinstance(size, int) and len(digest) == 64 for listed in staged.values()
                   for _name, size, digest in listed)  # names, sizes and digests only came back
        assert [path.name for path in staging.rglob(".*")] == []  # no attempt's temporary file is left
        commit_staged(store, staging, staged, statistics, ANALYZER, PARAMETERS)
    finally:
        remove_staging(staging)
    assert sorted(os.listdir(root / "generations")) == ["000001"]
    return _tree(root)


def test_executors_stage_the_shard_files_and_the_driver_publishes_the_same_bytes(documents, reference, tmp_path):
    """The new path against the one-process publication and the collect path's, S in {1, 2, 4}, local[2]."""
    with spark("local[2]", hash_seed="1"):
        for shards, partitions, order in ((1, 3, "reversed"), (2, 2, "shuffled"), (4, 7, "reversed")):
            given = documents[::-1] if order == "reversed" else _shuffled(documents, partitions)
            publish_sharded(tmp_path / f"one-{shards}", *reference[shards], ANALYZER, PARAMETERS)
            expected = _tree(tmp_path / f"one-{shards}")
            collected = build_on_spark(given, ANALYZER, PARAMETERS, shards, partitions=partitions)
            publish_sharded(tmp_path / f"collected-{shards}", *collected, ANALYZER, PARAMETERS)
            staged = _staged_publication(given, tmp_path / f"staged-{shards}", shards, partitions)
            assert len(expected) > 5 * shards
            assert _without_current(staged) == _without_current(expected), shards
            assert _without_current(_tree(tmp_path / f"collected-{shards}")) == _without_current(expected), shards


def test_a_task_failing_after_staging_its_files_is_retried_to_the_same_bytes(documents, reference, tmp_path):
    with spark("local[2,2]", executor_env={FAIL_FIRST_ATTEMPT: "staged"}, hash_seed="random"):
        staged = _staged_publication(_shuffled(documents, 4), tmp_path / "staged", 2, 3)
    publish_sharded(tmp_path / "one", *reference[2], ANALYZER, PARAMETERS)
    assert _without_current(staged) == _without_current(_tree(tmp_path / "one"))


def test_a_failed_job_leaves_the_previous_generation_and_no_staging_folder(documents, tmp_path):
    """The CLI, every phase-C task failing after it staged its files, no retries (``local[2]``):
    exit 2 with the task's message, generation 1 current and readable, nothing else left."""
    corpus = write_jsonl(documents, tmp_path / "corpus.jsonl")
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    first = subprocess.run([sys.executable, "-m", "regrag", "index", str(corpus), "--out", str(tmp_path / "index"),
                            "--shards", "2", "-q"], env=environment, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-2000:]
    before = _tree(tmp_path / "index")
    failing = dict(environment, PYSPARK_SUBMIT_ARGS=f"--conf spark.executorEnv.{FAIL_FIRST_ATTEMPT}=staged pyspark-shell")
    done = subprocess.run([sys.executable, "-m", "regrag", "index", str(corpus), "--out", str(tmp_path / "index"),
                           "--spark", "local[2]", "--shards", "2", "--partitions", "3", "-q"], env=failing,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stderr[-3000:]
    message = [line for line in done.stderr.splitlines() if line.startswith("regrag: error:")]
    assert len(message) == 1 and "fails its first attempt after staging its files" in message[0], done.stderr[-3000:]
    assert _tree(tmp_path / "index") == before  # CURRENT and generation 1 untouched
    assert sorted(os.listdir(tmp_path / "index" / "generations")) == ["000001"]  # no staging folder
    assert Index.open(tmp_path / "index").generation.number == 1  # readable


def _without_current(files: dict[str, bytes]) -> dict[str, bytes]:
    return {name: data for name, data in files.items() if name != "CURRENT"}  # CURRENT holds the publication time


def _cli_index(corpus: Path, out: Path, cwd: Path, **environment: str) -> subprocess.CompletedProcess:
    """``regrag index CORPUS --out OUT --spark local[1]`` in a new driver, run from ``cwd`` (the
    Python workers start there, and the directory a worker starts in comes first on its path)."""
    env = dict(os.environ, PYTHONPATH=str(REPO), **environment)
    return subprocess.run([sys.executable, "-m", "regrag", "index", str(corpus), "--out", str(out), "--spark", "local[1]",
                           "--shards", "2", "-q"], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_an_executor_with_another_analyzer_fails_the_job_naming_both(documents, tmp_path):
    copy = tmp_path / "executor-site"  # another regrag on the executors: its rules say another version
    shutil.copytree(REPO / "regrag", copy / "regrag", ignore=shutil.ignore_patterns("__pycache__"))
    rules = copy / "regrag" / "text" / "rules.py"
    source = rules.read_text(encoding="utf-8")
    marker = "def version(table: RuleTable) -> str:\n"
    assert marker in source
    rules.write_text(source.replace(marker, marker + '    return "executor-copy"\n'), encoding="utf-8")
    corpus = write_jsonl(documents[:30], tmp_path / "corpus.jsonl")
    done = _cli_index(corpus, tmp_path / "out", tmp_path,
                      PYSPARK_SUBMIT_ARGS=f"--conf spark.executorEnv.PYTHONPATH={copy} pyspark-shell")
    assert done.returncode == 2, done.stderr[-3000:]
    message = [line for line in done.stderr.splitlines() if line.startswith("regrag: error:")]
    assert len(message) == 1, done.stderr[-3000:]
    assert "the executor's analyzer is" in message[0] and '"version":"executor-copy"' in message[0]
    assert f'"version":"{ANALYZER.identity()["version"]}"' in message[0].split("but the driver's is")[1]
    assert not (tmp_path / "out" / "CURRENT").exists()  # nothing was published


OTHER_PYTHON = Path("/root/.pyenv/versions/3.12.1/bin/python3")


@pytest.mark.skipif(not OTHER_PYTHON.exists(), reason=f"no other Python here ({OTHER_PYTHON})")
def test_an_executor_with_another_python_fails_the_job_naming_both(documents, tmp_path):
    corpus = write_jsonl(documents[:30], tmp_path / "corpus.jsonl")
    done = _cli_index(corpus, tmp_path / "out", tmp_path, PYSPARK_PYTHON=str(OTHER_PYTHON))
    assert done.returncode == 2, done.stderr[-3000:]
    message = [line for line in done.stderr.splitlines() if line.startswith("regrag: error:")]
    assert len(message) == 1, done.stderr[-3000:]
    assert "3.12" in message[0] and f"{sys.version_info.major}.{sys.version_info.minor}" in message[0], message


def test_the_cli_publishes_the_one_process_generation(documents, reference, tmp_path):
    corpus = write_jsonl(documents[::-1], tmp_path / "corpus.jsonl")
    from regrag.corpus.load import load_corpus

    loaded = load_corpus(corpus).documents  # what the CLI indexes: the JSONL records' documents
    files, statistics = build_sharded(loaded, ANALYZER, PARAMETERS, 2)
    publish_sharded(tmp_path / "one", files, statistics, ANALYZER, PARAMETERS)
    environment = dict(os.environ, PYTHONHASHSEED="1", PYTHONPATH=str(REPO))
    one = _tree(tmp_path / "one")
    for files in ("storage", "driver"):  # the shard files staged by the executors, or collected on the driver
        out = tmp_path / f"spark-{files}"
        done = subprocess.run([sys.executable, "-m", "regrag", "index", str(corpus), "--out", str(out), "--spark",
                               "local[2]", "--shards", "2", "--partitions", "3", "--title-weight", "1.3",
                               "--spark-files", files, "-q"], env=environment, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "2 shard(s), built on Spark" in done.stdout
        other = _tree(out)
        assert sorted(one) == sorted(other) and len(one) > 5
        assert _without_current(one) == _without_current(other), files
        assert sorted(os.listdir(out / "generations")) == ["000001"]
    assert Index.open(out).index_id == Index.from_documents(loaded, parameters=PARAMETERS).index_id


def _tree(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*"))
            if path.is_file() and "lock" not in path.name}


def test_an_update_on_spark_gives_the_bytes_of_a_fresh_sharded_build(documents, tmp_path):
    """``index --update --spark``: the changed documents analysed on the executors, the others'
    records recovered there from the current generation's segments; the published generation is
    file for file a fresh one-process sharded build of the new corpus."""
    import dataclasses

    environment = dict(os.environ, PYTHONHASHSEED="1", PYTHONPATH=str(REPO))

    def regrag(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "regrag", *arguments, "-q"], env=environment,
                              capture_output=True, text=True, timeout=600)

    first = documents[:300]
    corpus = write_jsonl(first, tmp_path / "corpus.jsonl")
    built = regrag("index", str(corpus), "--out", str(tmp_path / "index"), "--shards", "4", "--title-weight", "1.3")
    assert built.returncode == 0, built.stderr[-2000:]
    changed = [dataclasses.replace(item, title=item.title + " revised") for item in first[::37]]
    final = [item for item in first[5:] if item.id not in {c.id for c in changed}] + changed + documents[300:320]
    write_jsonl(final, corpus)
    updated = regrag("index", str(corpus), "--out", str(tmp_path / "index"), "--update", "--allow-deletions",
                     "--spark", "local[2]", "--partitions", "3")
    assert updated.returncode == 0, updated.stderr[-3000:]
    assert f"updated on Spark ({len(changed) + 20} analysed)" in updated.stdout, updated.stdout
    fresh = regrag("index", str(corpus), "--out", str(tmp_path / "fresh"), "--shards", "4", "--title-weight", "1.3")
    assert fresh.returncode == 0, fresh.stderr[-2000:]
    newest = {name.split("/", 2)[2]: data for name, data in _tree(tmp_path / "index").items()
              if name.startswith("generations/000002/")}
    expected = {name.split("/", 2)[2]: data for name, data in _tree(tmp_path / "fresh").items()
                if name.startswith("generations/000001/")}
    assert sorted(newest) == sorted(expected) and len(newest) > 20
    assert newest == expected


def test_a_streamed_corpus_is_read_on_the_executors(documents, tmp_path):
    """A ``.jsonl`` corpus: the driver keeps ids and offsets, the tasks read their splits from the
    file; the bytes are the one-process build's of the loaded documents, whatever the split."""
    from regrag.corpus.load import load_corpus
    from regrag.corpus.stream import stream_corpus

    corpus = write_jsonl(_shuffled(documents, 3), tmp_path / "corpus.jsonl")
    streamed = stream_corpus(corpus, max_chars=PARAMETERS.max_passage_chars).documents
    expected = {4: build_sharded(load_corpus(corpus).documents, ANALYZER, PARAMETERS, 4)}
    with spark("local[2]", hash_seed="0"):
        for partitions in (1, 3, 7):
            _same_as_reference(build_on_spark(streamed, ANALYZER, PARAMETERS, 4, partitions=partitions), expected, 4)
        with open(corpus, "a", encoding="utf-8") as handle:  # changed after the driver's scan
            handle.write('{"_id": "zzz", "title": "", "text": "late"}\n')
        with pytest.raises(RegragError, match="changed"):
            build_on_spark(streamed, ANALYZER, PARAMETERS, 4, partitions=2)
