"""Sharded generations answer as the single index (docs/index-format.md,
"Sharded generations"): index id, Merkle root, every hit's canonical JSON
but the shard field, explanations, for S in {1, 2, 3, 7}, every method,
both kernels, k up to 1000; the phases give the same bytes whatever the
input order, partition or process count; the exact statistics reduction
equals the one-process value bit for bit (hypothesis); verify names a
damaged file; golden files verify against a sharded directory."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import Index
from regrag.corpus.extract.pdf import available as pdf_available
from regrag.corpus.model import Document, Section
from regrag.errors import InputError
from regrag.index import codec
from regrag.index.parameters import IndexParameters
from regrag.index.shard_phases import (
    analyse_partition, build_shard, merge_partials, partial_statistics, reduce_statistics, shard_of,
)
from regrag.index.shard_statistics import statistics_from_bytes
from regrag.index.sharded import ShardedIndex, build_sharded, publish_sharded
from regrag.index.verify import verify_store
from regrag.retrieval.options import SearchOptions
from regrag.text.analyzer import Analyzer

REPO = Path(__file__).resolve().parents[2]
WORDS = ["apple", "banana", "cherry", "fee", "rate", "VNM", "3.5%", "ngân hàng", "lãi suất", "年费", "利率", "margin",
         "loan", "annual", "card", "interest"]
QUERIES = ["apple fee", "lãi suất ngân hàng", "年费 利率", "margin loan 3.5%", "apple banana cherry fee rate card",
           "annual interest card fee", "nothing-matches"]
KERNELS = ["python"] + (["numpy"] if importlib.util.find_spec("numpy") else [])
SHARD_COUNTS = (1, 2, 3, 7)
DEPTHS = (1, 10, 100, 1000)


def document(number: int, words: list[str], title: str, issuer: str) -> Document:
    text = " ".join(words) + "."
    return Document(f"d{number:03d}", title, text, (Section(title, 0, len(text)),), (("issuer", issuer),),
                    f"d{number:03d}.md")


def corpus(seed: int, count: int) -> list[Document]:
    chance = random.Random(seed)
    return [document(number, [chance.choice(WORDS) for _ in range(chance.randrange(1, 40))],
                     chance.choice(["", "Fees", "Rates", "Card fees"]), chance.choice(["Acme", "Bank"]))
            for number in range(count)]


def sharded_directory(documents, parameters: IndexParameters, shards: int, **options) -> Path:
    analyzer = Analyzer()
    files, statistics = build_sharded(documents, analyzer, parameters, shards, **options)
    directory = Path(tempfile.mkdtemp(prefix=f"shards{shards}-"))
    publish_sharded(directory, files, statistics, analyzer, parameters)
    return directory


def without_shard(hits, shards: int) -> list[dict]:
    found = []
    for hit in hits:
        record = hit.to_dict()
        assert record.pop("shard") == shard_of(hit.document_id, shards)
        found.append(record)
    return found


@pytest.fixture(scope="module", params=[1.3], ids=["title-1.3"])  # non-dyadic; the default 3 is the CLI test's
def pair(request):
    parameters = IndexParameters(title_weight=request.param)
    documents = corpus(7, 150)
    single = Index.from_documents(documents, parameters=parameters)
    return documents, parameters, single


@pytest.mark.parametrize("shards", SHARD_COUNTS)
def test_a_sharded_index_answers_as_the_single_index(pair, shards):
    documents, parameters, single = pair
    directory = sharded_directory(list(reversed(documents)), parameters, shards)
    for memory_map in (True, False) if shards == 3 else (True,):
        sharded = Index.open(directory, memory_map=memory_map)
        assert isinstance(sharded.inverted, ShardedIndex)
        assert (sharded.index_id, sharded.corpus_root) == (single.index_id, single.corpus_root)
        assert codec.serialise(sharded.inverted, "t") == codec.serialise(single.inverted, "t")
        for kernel in KERNELS:
            for method in ("bm25", "tfidf", "hybrid"):
                for k in DEPTHS:
                    for query in QUERIES:
                        options = SearchOptions(k=k, method=method, kernel=kernel)
                        expected = [hit.to_dict() for hit in single.search(query, options=options)]
                        assert without_shard(sharded.search(query, options=options), shards) == expected
                        assert sharded.ranking(query, options=options) == single.ranking(query, options=options)
        for query in QUERIES[:4]:
            for hit in single.search(query, k=5, method="hybrid"):
                assert sharded.explain(query, hit.passage_id).to_dict() == single.explain(query, hit.passage_id).to_dict()
        filtered = SearchOptions(k=20, method="hybrid", filters=["issuer = Acme"])
        assert without_shard(sharded.search("card fee", options=filtered), shards) == \
            [hit.to_dict() for hit in single.search("card fee", options=filtered)]


def test_unsharded_hits_have_no_shard_field(pair):
    _documents, _parameters, single = pair
    for hit in single.search("apple fee", k=5):
        assert hit.shard is None and "shard" not in json.loads(hit.to_json())


def test_search_ranks_shard_by_shard(pair, monkeypatch):
    documents, parameters, _single = pair
    sharded = Index.open(sharded_directory(documents, parameters, 3))
    from regrag.retrieval import ranking

    ranked = []
    original = ranking.rank

    def counting(index, *arguments, **keywords):
        ranked.append(type(index).__name__)
        return original(index, *arguments, **keywords)

    monkeypatch.setattr(ranking, "rank", counting)
    sharded.search("apple fee", k=10, method="hybrid")
    assert ranked == ["SegmentedIndex"] * 6  # each shard's view ranked by each of the 2 retrievers


def test_the_phases_give_the_same_bytes_whatever_the_order_partition_and_processes():
    parameters = IndexParameters(title_weight=1.3)
    documents = corpus(11, 60)
    analyzer = Analyzer()
    reference = build_sharded(documents, analyzer, parameters, 4)
    shuffled = list(documents)
    random.Random(3).shuffle(shuffled)
    assert build_sharded(list(reversed(documents)), analyzer, parameters, 4) == reference
    assert build_sharded(shuffled, analyzer, parameters, 4, workers=2) == reference
    # the Spark-shaped run: three partitions, partials reduced in a tree, records grouped by shard in any order
    partitions = [shuffled[0::3], shuffled[1::3], shuffled[2::3]]
    keyed = [pair for part in partitions for pair in analyse_partition(part, analyzer, parameters, 4)]
    partials = [partial_statistics([data for _shard, data in analyse_partition(part, analyzer, parameters, 4)])
                for part in partitions]
    statistics = reduce_statistics([merge_partials(merge_partials(partials[2], partials[0]), partials[1])],
                                   analyzer, parameters, 4)
    assert statistics == reference[1]
    shipped = statistics_from_bytes(statistics.to_bytes(), "test")
    files = {shard: build_shard(shard, [data for key, data in reversed(keyed) if key == shard], shipped.to_bytes(),
                                analyzer, parameters) for shard in range(4)}
    assert files == reference[0]


TITLE_WEIGHTS = [1.3, 0.7, 1.1, 2.9, 0.001, 3.0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), count=st.integers(1, 30), weight=st.sampled_from(TITLE_WEIGHTS),
       shards=st.integers(1, 7), partitions=st.integers(1, 5))
def test_the_exact_statistics_reduction_equals_one_process(seed, count, weight, shards, partitions):
    parameters = IndexParameters(title_weight=weight)
    analyzer = Analyzer()
    documents = corpus(seed, count)
    chance = random.Random(seed)
    parts: list[list[Document]] = [[] for _ in range(partitions)]
    for item in documents:
        parts[chance.randrange(partitions)].append(item)
    partials = [partial_statistics([data for _s, data in analyse_partition(part, analyzer, parameters, shards)])
                for part in parts]
    chance.shuffle(partials)
    while len(partials) > 1:  # a random reduction tree
        first = partials.pop(chance.randrange(len(partials)))
        second = partials.pop(chance.randrange(len(partials)))
        partials.append(merge_partials(second, first))
    reduced = reduce_statistics(partials, analyzer, parameters, shards)
    one = reduce_statistics([partial_statistics([d for _s, d in analyse_partition(documents, analyzer, parameters,
                                                                                 shards)])], analyzer, parameters, shards)
    assert reduced.to_bytes() == one.to_bytes()
    single = Index.from_documents(documents, parameters=parameters).inverted
    assert reduced.average_length.hex() == single.average_length.hex()
    assert reduced.length_sum == sum(map(Fraction, single.lengths), Fraction(0))
    assert list(reduced.terms) == sorted(single.postings)
    assert list(reduced.document_frequencies) == [len(single.postings[term].passages) for term in reduced.terms]
    assert (reduced.index_id, reduced.corpus_root) == (single.index_id, single.corpus_root)


def test_bad_input_is_refused_with_a_clear_error():
    parameters = IndexParameters()
    analyzer = Analyzer()
    documents = corpus(5, 10)
    files, statistics = build_sharded(documents, analyzer, parameters, 2)
    keyed = analyse_partition(documents, analyzer, parameters, 2)
    wrong = [data for shard, data in keyed if shard == 1]
    with pytest.raises(InputError, match="belongs to shard 1, not 0"):
        build_shard(0, wrong, statistics, analyzer, parameters)
    with pytest.raises(InputError, match="not a global-statistics file"):
        build_shard(0, [], b"{}", analyzer, parameters)
    with pytest.raises(InputError, match="not an analysed record"):
        build_shard(0, [b"nonsense"], statistics, analyzer, parameters)
    with pytest.raises(InputError, match="duplicate document id"):
        merge_partials(partial_statistics(wrong), partial_statistics(wrong))
    with pytest.raises(InputError, match="shards must be an integer"):
        analyse_partition(documents, analyzer, parameters, 0)
    other = reduce_statistics([partial_statistics(wrong)], analyzer, parameters, 2)
    mixed = dict(files)
    mixed[1] = build_shard(1, wrong, other, analyzer, parameters)
    with pytest.raises(InputError, match="other global statistics"):
        publish_sharded(tempfile.mkdtemp(), mixed, statistics, analyzer, parameters)


def run(*arguments: str, seed: str = "random") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "regrag", *arguments], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONHASHSEED": seed})


def test_cli_sharded_generation_bytes_do_not_depend_on_hash_seed_or_workers(tmp_path):
    documents = REPO / "corpora" / "vn-stock-news" / "documents"
    trees = []
    for name, seed, workers in (("a", "0", "1"), ("b", "1", "2"), ("c", "random", "3")):
        assert run("index", str(documents), "--out", str(tmp_path / name), "--shards", "4", "--workers", workers,
                   seed=seed).returncode == 0
        generation = tmp_path / name / "generations" / "000001"
        trees.append({str(path.relative_to(generation)): path.read_bytes()
                      for path in sorted(generation.rglob("*")) if path.is_file()})
    assert trees[0] == trees[1] == trees[2] and len(trees[0]) > 4 * 15


def test_cli_sharded_build_search_verify_and_damage(tmp_path):
    documents = REPO / "corpora" / "regulations" / "documents"
    single, sharded = tmp_path / "single", tmp_path / "sharded"
    assert run("index", str(documents), "--out", str(single)).returncode == 0
    built = run("index", str(documents), "--out", str(sharded), "--shards", "3", "--workers", "2")
    assert built.returncode == 0, built.stderr
    assert built.stdout.splitlines()[1] == run("index", str(documents), "--out", str(tmp_path / "again")) \
        .stdout.splitlines()[1]  # the index id line
    for method in ("bm25", "tfidf", "hybrid"):
        query = "minimum liquidity coverage ratio"
        one = [json.loads(line) for line in
               run("search", query, "--index", str(single), "--json", "--method", method).stdout.splitlines()]
        many = [json.loads(line) for line in
                run("search", query, "--index", str(sharded), "--json", "--method", method).stdout.splitlines()]
        assert len(one) == 10
        for hit in many:
            assert hit.pop("shard") == shard_of(hit["document_id"], 3)
        assert many == one
    verified = run("verify", str(sharded))
    assert verified.returncode == 0 and "ok" in verified.stdout, verified.stdout + verified.stderr
    if pdf_available():  # golden/regulations.* were recorded with the folder's PDF, which needs pdfminer.six
        golden = run("golden", "verify", str(REPO / "golden" / "regulations.hybrid.golden"), "--index", str(sharded))
        assert golden.returncode == 0, golden.stdout + golden.stderr
    assert run("index", str(documents), "--out", str(tmp_path / "x"), "--shards", "0").returncode == 2
    generation = sharded / "generations" / "000001"
    targets = [generation / "shards" / "000001" / "tfidf_norms.f64", generation / "global_statistics.json",
               next((generation / "shards" / "000002" / "segments").glob("*/positions.bin"))]
    for target in targets:
        data = target.read_bytes()
        target.chmod(0o644)
        target.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
        report = run("verify", str(sharded))
        assert report.returncode == 1 and str(target.relative_to(sharded)) in report.stdout, report.stdout
        target.write_bytes(data)
    assert run("verify", str(sharded)).returncode == 0


SHARED = next((path for path in (Path(os.environ.get("REGRAG_SHARED", REPO.parent / "shared")),
                                 REPO.parent.parent / "shared") if path.is_dir()), REPO.parent / "shared")
SCIFACT = SHARED / "data" / "scifact"


@pytest.fixture(scope="module")
def scifact_expected():
    """SciFact's documents, queries and the single index's rankings (and every 25th query's hits)."""
    from regrag.corpus.load import load_corpus

    if not (SCIFACT / "corpus.jsonl").is_file():
        pytest.skip(f"{SCIFACT} is absent (set REGRAG_SHARED to the folder holding data/scifact)")
    documents = load_corpus(SCIFACT).documents
    with open(SCIFACT / "queries.jsonl", encoding="utf-8") as lines:
        queries = [json.loads(line)["text"] for line in lines if line.strip()]
    single = Index.from_documents(documents, parameters=IndexParameters())
    expected = {}
    for number, query in enumerate(queries):
        for method in ("bm25", "tfidf", "hybrid"):
            for k in DEPTHS:
                options = SearchOptions(k=k, method=method)
                expected[number, method, k] = single.ranking(query, options=options)
                if number % 25 == 0:
                    expected[number, method, k, "json"] = [hit.to_dict() for hit in single.search(query, options=options)]
    return documents, queries, single.index_id, expected


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("REGRAG_SLOW") != "1", reason="minutes of work; REGRAG_SLOW=1 runs it")
@pytest.mark.parametrize("shards", SHARD_COUNTS, ids=[f"S{count}" for count in SHARD_COUNTS])
def test_every_scifact_query_is_answered_as_the_single_index(scifact_expected, shards):
    """All SciFact queries x bm25/tfidf/hybrid x k in {1, 10, 100, 1000} at S shards: the ranking
    (ids and scores, exact) equal; every 25th query's hits compared as canonical JSON but the shard
    field. Every differing list is counted (printed with -s) before the test fails."""
    documents, queries, index_id, expected = scifact_expected
    sharded = Index.open(sharded_directory(documents, IndexParameters(), shards))
    assert sharded.index_id == index_id
    lists = differing = 0
    for number, query in enumerate(queries):
        for method in ("bm25", "tfidf", "hybrid"):
            for k in DEPTHS:
                options = SearchOptions(k=k, method=method)
                lists += 1
                differing += sharded.ranking(query, options=options) != expected[number, method, k]
                if number % 25 == 0:
                    lists += 1
                    differing += without_shard(sharded.search(query, options=options), shards) != \
                        expected[number, method, k, "json"]
    print(f"SciFact S={shards}: {len(queries)} queries x 3 methods x {len(DEPTHS)} depths: {differing} of {lists} "
          "lists differ (rankings of every query, hits as JSON of every 25th)")
    assert differing == 0


def test_index_save_with_shards_and_an_update_of_a_sharded_generation(tmp_path):
    documents = corpus(13, 40)
    single = Index.from_documents(documents)
    single.save(tmp_path / "index", shards=3)
    sharded = Index.open(tmp_path / "index")
    assert isinstance(sharded.inverted, ShardedIndex) and sharded.inverted.shard_count == 3
    assert sharded.index_id == single.index_id and verify_store(tmp_path / "index").ok
    added = [document(500, ["apple", "fee", "card"], "New", "Acme")]
    expected = Index.from_documents([d for d in documents if d.id != "d003"] + added)
    updated = sharded.updated(added, ["d003"])  # published as a segmented (unsharded) generation
    updated.save(tmp_path / "index")
    reopened = Index.open(tmp_path / "index")
    assert not isinstance(reopened.inverted, ShardedIndex)
    assert codec.serialise(reopened.inverted, "t") == codec.serialise(expected.inverted, "t")
    assert [h.to_dict() for h in reopened.search("apple card fee", k=50)] == \
        [h.to_dict() for h in expected.search("apple card fee", k=50)]
    assert verify_store(tmp_path / "index").ok
