"""Side-by-side benchmark of regrag and its peers on one BEIR folder.

    python3 -m pip install -e ".[bench]"     # rank-bm25, bm25s, PyStemmer, tantivy
    python3 bench/compare.py                  # every system on ../shared/data/scifact, 3 rounds
    python3 bench/compare.py --queries 300 --rounds 3 --warmup 1000 --warmup-on other
    python3 bench/compare.py --systems regrag-bm25,bm25s --folder DIR --json /tmp/compare.json
    python3 bench/compare.py --system bm25s --score   # one round of one system, in this process, JSON out
    python3 bench/compare.py --lucene-jars DIR        # Lucene's jars from DIR (default $REGRAG_LUCENE_JARS, ~/.cache/regrag-bench)

The folder holds ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/test.tsv``;
the queries are those of the test qrels, in ``regrag eval``'s order (query ids
sorted as strings); the default folder is ``../shared/data/scifact`` relative
to the repository root.

Systems
-------
``regrag-bm25``, ``regrag-hybrid``
    ``Index.from_documents`` on the documents of ``load_corpus(folder)``;
    ranked by document exactly as ``regrag eval`` does
    (``regrag.eval.run.document_ranking``: a document keeps its best passage's
    score, the query's own id is dropped); the pure-Python kernel
    (``REGRAG_KERNEL=python`` in their processes).
``regrag-bm25-numpy``, ``regrag-hybrid-numpy``
    the same with the numpy kernel (``REGRAG_KERNEL=numpy``; the same
    rankings, bit for bit: docs/performance.md, "The numpy kernel").
``regrag-bm25-workers2``
    ``regrag-bm25`` indexed in memory by two processes
    (``Index.from_documents(..., workers=2)``: the same index; ``regrag
    index --workers 2`` writes it through the bounded build): its index time
    is the one to read; it ranks as ``regrag-bm25`` does.
``bm25s``
    numpy backend, Lucene BM25 (k1 = 1.5, b = 0.75) over
    ``bm25s.tokenize(title + " " + text, stopwords="en",
    stemmer=Stemmer.Stemmer("english"))``; one query per ``retrieve`` call,
    ``n_threads=0`` (bm25s's sequential mode; ``n_threads=1`` would send
    every call through a one-worker thread pool); tokenising the query is
    part of its time.
``rank-bm25``
    ``BM25Okapi`` (k1 = 1.5, b = 0.75, epsilon = 0.25) over the same bm25s /
    PyStemmer tokens; top k by sorting ``get_scores``. It scores every document
    in Python, so its speed is measured on the first 50 queries only (and its
    nDCG/Recall on all queries when that is estimated to take under 2 minutes,
    else on the first 50); the output says which.
``tantivy``
    an in-RAM index, one writer thread, an ``en_stem`` text field for
    title + text and a ``raw`` stored id (tantivy's BM25: k1 = 1.2, b = 0.75);
    the query is reduced to its lower-cased words (``\\w+``) so that no
    character or keyword of the query language is left and every query parses;
    ``searcher.search(query, k, count=False)`` (not counting every match,
    which tantivy does by default and which stops it skipping). Hits are
    turned into ids through a table (segment, doc) -> stored id built once
    after the commit (counted in the index time), not by loading each hit's
    stored document.
``lucene``
    Lucene (Anserini's fat jar, else plain Lucene jars) in a JVM of its own,
    started by this system's process (``bench/peers/lucene.py``), which times
    every query inside the JVM (``bench/peers/LuceneBench.java``): an in-RAM
    single-segment index built from one thread, ``EnglishAnalyzer`` (Porter
    stemming, Anserini's DefaultEnglishAnalyzer chain), ``BM25Similarity(1.5,
    0.75)``, Anserini's bag-of-words query, ``IndexSearcher`` without executor
    and ``TopScoreDocCollector`` with ``totalHitsThreshold = k`` (so that it
    may skip non-competitive documents). The warm-up runs in the JVM too (the
    same searches, then more until the JIT compiler is idle), so the JVM's
    start-up and JIT compilation are not in the timed passes; index s is
    the fresh JVM's first build (the same build run again in that JVM is
    reported in a note). Without java/javac or without the jars this system is
    skipped with one line saying why.

How
---
``--rounds R`` rounds (default 3); in each, every system runs in turn in a
fresh process of its own: this script re-invokes itself with ``--system NAME
--json`` (``sys.executable``, ``PYTHONPATH`` holding the repository root,
``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and
``NUMBA_NUM_THREADS`` set to 1, so everything is single-threaded), and the
child prints its results as JSON on standard output. Round i of regrag is
compared with round i of each peer, so each ratio is taken between runs close
in time.

* read s: reading the corpus (regrag: ``load_corpus``; peers: ``json.loads`` of
  each line); reported, and excluded from the index time.
* index s: building the index from the texts already in memory, including
  tokenisation.
* speed: the same queries (the first ``--queries N`` judged queries, default
  all) and the same k for every system, at k = 10, 100 and 1000; sequential
  single queries, each query's time from the query text to a list of
  (document id, score). ``--warmup W`` searches first (default 1,000: the
  queries in order, cycling, k cycling over the three depths), then one timed
  pass per depth (``--warmup-on other`` warms up on the folder's other
  queries instead, so that no per-term cache holds a timed query's words;
  rank-bm25 warms up with as many searches as it has timed queries). q/s is
  queries / the sum of their times; p50/p99 by nearest rank. The table shows each figure's median over the rounds; the
  ratio table shows regrag ÷ peer for each round and their median.
* nDCG@10, Recall@100: round 1's depth-1000 pass, ordered and scored as
  trec_eval does (``regrag.eval.metrics.trec_eval_order`` and ``evaluate``),
  the query's own id dropped from every system's run.
* peak RSS: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the system's
  process, read after its timed passes and before regrag's evaluation
  modules are imported in a peer's process; the largest over the rounds.

The table's header holds the exact command line and the time of the run.
A system whose nDCG@10 is under 0.5 gets a warning: on SciFact every one of
them should be near 0.65-0.70 (bm25s about 0.66-0.69), and a figure far below
means a tokenisation bug.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import re
import resource
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # regrag from this checkout, also when run as --system NAME by hand
DEFAULT_FOLDER = REPO.parent / "shared" / "data" / "scifact"
SYSTEMS = ("regrag-bm25", "regrag-hybrid", "regrag-bm25-numpy", "regrag-hybrid-numpy", "regrag-bm25-workers2", "bm25s",
           "rank-bm25", "tantivy", "lucene")
REGRAG_SYSTEMS = ("regrag-bm25", "regrag-hybrid", "regrag-bm25-numpy", "regrag-hybrid-numpy", "regrag-bm25-workers2")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")
DEPTH = 1000
TOP = (10, 100, DEPTH)
ROUNDS = 3
WARMUP_SEARCHES = 1000
SLOW_QUERY_COUNT = 50  # rank-bm25's speed is measured on this many queries
EFFECTIVENESS_BUDGET_SECONDS = 120.0
SANE_NDCG = 0.5

Hits = list[tuple[str, float]]
Ranker = Callable[[str, str, int], Hits]  # (query id, query text, k) -> [(document id, score)], best first
Query = tuple[str, str]  # (query id, text)


@dataclass
class Built:
    """An indexed system ready to answer queries."""

    rank: Ranker
    documents: int
    read_seconds: float
    index_seconds: float
    slow: bool = False  # speed on the first SLOW_QUERY_COUNT queries only
    versions: dict[str, str] = field(default_factory=dict)


# reading ---------------------------------------------------------------------


def read_judged_queries(folder: Path) -> list[Query]:
    """The test qrels' queries with their text, ids sorted as ``regrag eval`` does.

    Read with the standard library only, so a peer's process holds nothing of
    regrag's while it is measured (its answers are scored afterwards)."""
    texts: dict[str, str] = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                texts[record["_id"]] = record["text"]
    judged: set[str] = set()
    with open(folder / "qrels" / "test.tsv", encoding="utf-8") as lines:
        for line in lines:
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) >= 3 and fields[:3] != ["query-id", "corpus-id", "score"]:
                judged.add(fields[0])
    return [(query_id, texts[query_id]) for query_id in sorted(judged)]


def read_other_queries(folder: Path, excluded: Sequence[Query]) -> list[Query]:
    """The queries of ``queries.jsonl`` not in ``excluded``, ids sorted as strings (for the warm-up)."""
    skip = {query_id for query_id, _text in excluded}
    found = []
    with open(folder / "queries.jsonl", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                if record["_id"] not in skip:
                    found.append((record["_id"], record["text"]))
    return sorted(found)


def read_corpus_texts(folder: Path) -> tuple[list[str], list[str]]:
    """Document ids and their ``title + " " + text`` from ``corpus.jsonl``."""
    ids: list[str] = []
    texts: list[str] = []
    with open(folder / "corpus.jsonl", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                ids.append(record["_id"])
                texts.append(f"{record.get('title', '')} {record['text']}")
    return ids, texts


def timed(function: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    value = function()
    return value, time.perf_counter() - started


def package_versions(*names: str) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for name in names:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "?"
    return versions


# systems ---------------------------------------------------------------------


def build_regrag(folder: Path, method: str, kernel: str, workers: int = 1) -> Built:
    os.environ["REGRAG_KERNEL"] = kernel  # this process runs this one system
    import regrag
    from regrag.corpus.load import load_corpus
    from regrag.engine import Index

    rank_documents = regrag_document_ranking()
    corpus, read_seconds = timed(lambda: load_corpus(folder))
    index, index_seconds = timed(lambda: Index.from_documents(corpus.documents, workers=workers))

    def rank(query_id: str, text: str, k: int) -> Hits:
        return rank_documents(index, query_id, text, method, k)

    return Built(rank, index.document_count, read_seconds, index_seconds, versions={"regrag": regrag.__version__})


def regrag_document_ranking() -> Callable[[Any, str, str, str, int], Hits]:
    """``regrag eval``'s document ranking, or the same rule if it has moved."""
    try:
        from regrag.eval.run import document_ranking
    except ImportError:
        return best_passage_ranking
    return document_ranking


def best_passage_ranking(index: Any, query_id: str, text: str, method: str, depth: int) -> Hits:
    """Documents in the order of their best passage, without the query's own id."""
    # Enough passages that ``depth`` other documents come back whenever that many match.
    wanted = depth + index.passage_count - index.document_count + 1
    ranked: dict[str, float] = {}
    for document_id, _passage_id, score in index.ranking(text, k=wanted, method=method):
        if document_id != query_id and document_id not in ranked:
            ranked[document_id] = score
            if len(ranked) == depth:
                break
    return list(ranked.items())


def stemmed_tokens(texts: list[str], stemmer: Any, as_strings: bool = False) -> Any:
    """bm25s's English tokens (its stop words, PyStemmer's Snowball stemmer)."""
    import bm25s

    return bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, return_ids=not as_strings, show_progress=False)


def build_bm25s(folder: Path) -> Built:
    import bm25s
    import Stemmer

    (ids, texts), read_seconds = timed(lambda: read_corpus_texts(folder))
    stemmer = Stemmer.Stemmer("english")

    backend = bm25s_backend()

    def build() -> Any:
        retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene", backend=backend)
        retriever.index(stemmed_tokens(texts, stemmer), show_progress=False)
        return retriever

    retriever, index_seconds = timed(build)

    # n_threads=0 is bm25s's sequential mode: "If 0, it will run the jobs sequentially, without using
    # multiprocessing" (BM25.retrieve's docstring, bm25s 0.3.16 bm25s/__init__.py); any n_threads >= 1
    # sends every call through a ThreadPoolExecutor. bm25s documents backend="numba" as its faster option
    # (BM25.__init__'s docstring): used whenever numba is installed (the bench extra installs it); its JIT
    # compiles during the warm-up searches. Measured here, SciFact top-10, 300 queries, sequential:
    # numpy 3,585-3,880 q/s, numba 11,890 q/s once compiled.
    def rank(_query_id: str, text: str, k: int) -> Hits:
        positions, scores = retriever.retrieve(
            stemmed_tokens([text], stemmer), k=min(k, len(ids)), n_threads=0,
            show_progress=False, backend_selection=backend,
        )
        return [(ids[p], s) for p, s in zip(positions[0].tolist(), scores[0].tolist()) if s > 0]

    return Built(rank, len(ids), read_seconds, index_seconds,
                 versions=package_versions("bm25s", "PyStemmer", "numpy", "numba"))


def bm25s_backend() -> str:
    """bm25s's fastest documented backend that can run here: numba if importable, else numpy."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return "numpy"
    return "numba"


def build_rank_bm25(folder: Path) -> Built:
    import numpy
    import Stemmer
    from rank_bm25 import BM25Okapi

    (ids, texts), read_seconds = timed(lambda: read_corpus_texts(folder))
    stemmer = Stemmer.Stemmer("english")
    model, index_seconds = timed(lambda: BM25Okapi(stemmed_tokens(texts, stemmer, as_strings=True)))

    # rank-bm25 has one way to score (BM25Okapi.get_scores, pure Python over every document; its
    # get_top_n is this same get_scores followed by numpy.argsort, rank_bm25.py 0.2.2) and no
    # threading option: there is no faster documented configuration.
    def rank(_query_id: str, text: str, k: int) -> Hits:
        scores = model.get_scores(stemmed_tokens([text], stemmer, as_strings=True)[0])
        best = numpy.argsort(-scores, kind="stable")[:k]
        return [(ids[p], s) for p, s in zip(best.tolist(), scores[best].tolist()) if s > 0]

    return Built(rank, len(ids), read_seconds, index_seconds, slow=True,
                 versions=package_versions("rank-bm25", "bm25s", "PyStemmer", "numpy"))


QUERY_WORD = re.compile(r"\w+")


def plain_words(text: str) -> str:
    """The query's lower-cased words only: no operator, quote, bracket, field
    prefix or AND/OR/NOT keyword of tantivy's query language is left."""
    return " ".join(QUERY_WORD.findall(text.lower()))


def build_tantivy(folder: Path) -> Built:
    import tantivy

    (ids, texts), read_seconds = timed(lambda: read_corpus_texts(folder))

    def build() -> tuple[Any, Any, dict[tuple[int, int], str]]:
        schema = tantivy.SchemaBuilder()
        schema.add_text_field("id", stored=True, tokenizer_name="raw")
        schema.add_text_field("body", stored=False, tokenizer_name="en_stem")
        index = tantivy.Index(schema.build())  # no path: in RAM
        writer = index.writer(num_threads=1)
        for document_id, text in zip(ids, texts):
            writer.add_document(tantivy.Document(id=document_id, body=text))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        searcher = index.searcher()
        return index, searcher, stored_ids(tantivy, searcher)

    (index, searcher, id_of), index_seconds = timed(build)

    # count=False: Searcher.search counts every matching document by default ("count (bool, optional):
    # Should the number of documents that match the query be returned as well. Defaults to true",
    # tantivy-py 0.27 tantivy.pyi / Searcher.search docstring); counting visits every match, so top-k
    # pruning cannot skip any. Search itself runs on the calling thread (no executor is configured).
    def rank(_query_id: str, text: str, k: int) -> Hits:
        query = index.parse_query(plain_words(text), ["body"])
        hits = searcher.search(query, k, count=False).hits
        return [(id_of[(address.segment_ord, address.doc)], score) for score, address in hits]

    return Built(rank, searcher.num_docs, read_seconds, index_seconds, versions=package_versions("tantivy"))


def stored_ids(tantivy: Any, searcher: Any) -> dict[tuple[int, int], str]:
    """(segment, doc) -> stored id of every document of the index."""
    everything = searcher.search(tantivy.Query.all_query(), searcher.num_docs).hits
    return {(address.segment_ord, address.doc): searcher.doc(address)["id"][0] for _score, address in everything}


BUILDERS: dict[str, Callable[[Path], Built]] = {
    "regrag-bm25": lambda folder: build_regrag(folder, "bm25", "python"),
    "regrag-hybrid": lambda folder: build_regrag(folder, "hybrid", "python"),
    "regrag-bm25-numpy": lambda folder: build_regrag(folder, "bm25", "numpy"),
    "regrag-hybrid-numpy": lambda folder: build_regrag(folder, "hybrid", "numpy"),
    "regrag-bm25-workers2": lambda folder: build_regrag(folder, "bm25", "python", workers=2),
    "bm25s": build_bm25s,
    "rank-bm25": build_rank_bm25,
    "tantivy": build_tantivy,
}


# measuring -------------------------------------------------------------------


def warm_up(rank: Ranker, queries: Sequence[Query], searches: int) -> int:
    """``searches`` searches before anything is timed: the queries in order,
    cycling, each at the depths of ``TOP`` in turn. Returns how many ran."""
    done = 0
    while done < searches and queries:
        for query_id, text in queries:
            if done >= searches:
                break
            rank(query_id, text, TOP[done % len(TOP)])
            done += 1
    return done


def timed_pass(rank: Ranker, queries: Sequence[Query], k: int) -> tuple[list[float], dict[str, Hits]]:
    """Seconds of each query, sequentially, and its hits."""
    seconds = []
    hits = {}
    for query_id, text in queries:
        started = time.perf_counter()
        answer = rank(query_id, text, k)
        seconds.append(time.perf_counter() - started)
        hits[query_id] = answer
    return seconds, hits


def nearest_rank(ordered: Sequence[float], fraction: float) -> float:
    position = min(len(ordered), max(1, math.ceil(fraction * len(ordered))))
    return ordered[position - 1]


def speed_of(seconds: Sequence[float]) -> dict[str, float]:
    """q/s (queries / the sum of their times) and p50/p99 (nearest rank) of one pass."""
    ordered = sorted(seconds)
    return {
        "queries": len(seconds),
        "queries_per_second": len(seconds) / sum(seconds),
        "p50_ms": 1000 * nearest_rank(ordered, 0.50),
        "p99_ms": 1000 * nearest_rank(ordered, 0.99),
    }


def effectiveness_queries(queries: list[Query], built: Built, depth_seconds: list[float]) -> list[Query]:
    """All queries, unless a slow system would need more than the budget for them."""
    if not built.slow:
        return queries
    per_query = sum(depth_seconds) / len(depth_seconds)
    return queries if per_query * len(queries) <= EFFECTIVENESS_BUDGET_SECONDS else queries[:SLOW_QUERY_COUNT]


def score_runs(folder: Path, runs: dict[str, Hits]) -> dict[str, float]:
    """nDCG@10 and Recall@100 under trec_eval's conventions, with regrag's metrics."""
    from regrag.eval.beir import read_qrels
    from regrag.eval.metrics import evaluate, trec_eval_order

    qrels = read_qrels(folder / "qrels" / "test.tsv")
    judged = {query_id: qrels[query_id] for query_id in runs}
    ordered = {query_id: trec_eval_order([(d, s) for d, s in hits if d != query_id]) for query_id, hits in runs.items()}
    scored = evaluate(ordered, judged, depth=DEPTH)
    return {"ndcg@10": scored["means"]["ndcg@10"], "recall@100": scored["means"]["recall@100"],
            "scored_queries": scored["num_queries"]}


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def measure(system: str, folder: Path, query_limit: int | None, warmup: int, score: bool,
            warmup_on: str = "timed", lucene_jars: str | None = None) -> dict[str, Any]:
    """One round of one system, in this process: build, warm up, one timed
    pass at each depth of ``TOP``; with ``score``, also its effectiveness."""
    queries = read_judged_queries(folder)
    if query_limit:
        queries = queries[:query_limit]
    if system == "lucene":
        return measure_lucene(folder, queries, warmup, score, warmup_on, lucene_jars)
    built = BUILDERS[system](folder)
    timed_queries = queries[:SLOW_QUERY_COUNT] if built.slow else queries
    # "timed": the timed queries themselves; "other": queries.jsonl's other queries, so that no
    # per-term cache (regrag's stems, pieces and idfs, PyStemmer's stem cache) holds a timed query's words
    warm_queries = timed_queries if warmup_on == "timed" else read_other_queries(folder, queries) or timed_queries
    # rank-bm25 scores every document in Python: its warm-up is as many searches as it has timed queries
    warmed = warm_up(built.rank, warm_queries, len(timed_queries) if built.slow else warmup)
    progress(f"[{system}] read {built.read_seconds:.2f} s, index {built.index_seconds:.2f} s;"
             f" {warmed} warm-up searches; timing {len(timed_queries)} queries at k = {', '.join(map(str, TOP))}")
    seconds: dict[str, list[float]] = {}
    last_hits: dict[str, Hits] = {}
    for k in TOP:
        seconds[f"top{k}"], last_hits = timed_pass(built.rank, timed_queries, k)
    result: dict[str, Any] = {
        "system": system,
        "folder": str(folder),
        "documents": built.documents,
        "queries": len(queries),
        "speed_queries": len(timed_queries),
        "warmup_searches": warmed,
        "warmup_on": warmup_on,
        "read_seconds": built.read_seconds,
        "index_seconds": built.index_seconds,
        "seconds": seconds,
        "versions": built.versions,
        "threads": {name: os.environ.get(name) for name in THREAD_VARIABLES},
    }
    if score:
        scored_queries = effectiveness_queries(queries, built, seconds[f"top{DEPTH}"])
        runs = {query_id: last_hits.get(query_id) or built.rank(query_id, text, DEPTH)
                for query_id, text in scored_queries}
        result["peak_rss_mib"] = peak_rss_mib()  # before regrag's evaluation modules are imported
        result.update(score_runs(folder, runs))
        progress(f"[{system}] nDCG@10 {result['ndcg@10']:.4f}, peak RSS {result['peak_rss_mib']:.0f} MiB")
    else:
        result["peak_rss_mib"] = peak_rss_mib()
    return result


def measure_lucene(folder: Path, queries: list[Query], warmup: int, score: bool, warmup_on: str,
                   lucene_jars: str | None) -> dict[str, Any]:
    """``measure`` for Lucene: the JVM builds, warms up and times (bench/peers/lucene.py), this process scores."""
    from bench.peers import lucene

    warm_queries = queries if warmup_on == "timed" else read_other_queries(folder, queries) or queries
    done = lucene.run(folder, queries, warm_queries, warmup, TOP, lucene.jars_directory(lucene_jars))
    progress(f"[lucene] read {done['read_seconds']:.2f} s, index {done['index_seconds']:.2f} s (its thread's CPU"
             f" {done['index_cpu_seconds']:.2f} s; again in the same JVM {done['index_again_seconds']:.2f} s);"
             f" {done['warmup_searches']} warm-up searches, then {done['jit_settle_searches']} more until the JIT"
             f" was idle{'' if done['jit_settled'] else ' (not idle at the cap)'}; timed {len(queries)} queries"
             f" at k = {', '.join(map(str, TOP))}")
    hits = done.pop("hits")
    result = {"system": "lucene", "folder": str(folder), "queries": len(queries), "speed_queries": len(queries),
              "warmup_on": warmup_on, "threads": {name: os.environ.get(name) for name in THREAD_VARIABLES}, **done}
    if score:
        result.update(score_runs(folder, hits))
        progress(f"[lucene] nDCG@10 {result['ndcg@10']:.4f}, peak RSS {result['peak_rss_mib']:.0f} MiB (the JVM's)")
    return result


def lucene_skip_reason(arguments: argparse.Namespace) -> str | None:
    """Why the lucene system cannot run here (no java, no jars), or None."""
    from bench.peers import lucene

    return lucene.skip_reason(lucene.jars_directory(arguments.lucene_jars))


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# the parent ------------------------------------------------------------------


def child_environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment.update({name: "1" for name in THREAD_VARIABLES})
    paths = [str(REPO)] + [p for p in environment.get("PYTHONPATH", "").split(os.pathsep) if p]
    environment["PYTHONPATH"] = os.pathsep.join(paths)
    return environment


def run_in_child(system: str, arguments: argparse.Namespace, score: bool) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--system", system, "--folder", arguments.folder,
               "--warmup", str(arguments.warmup), "--warmup-on", arguments.warmup_on, "--json"]
    if arguments.queries:
        command += ["--queries", str(arguments.queries)]
    if arguments.lucene_jars:
        command += ["--lucene-jars", arguments.lucene_jars]
    if score:
        command.append("--score")
    completed = subprocess.run(command, env=child_environment(), stdout=subprocess.PIPE, text=True, check=False)
    if completed.returncode != 0:
        return {"system": system, "error": f"its process exited with status {completed.returncode} (see above)"}
    return json.loads(completed.stdout)


def cell(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def depth_speed(round_result: dict[str, Any], k: int, count: int | None = None) -> dict[str, float]:
    seconds = round_result["seconds"][f"top{k}"]
    return speed_of(seconds[:count] if count else seconds)


def results_table(rounds: dict[str, list[dict[str, Any]]]) -> list[str]:
    depth_columns = "".join(f" | top-{k} q/s" for k in TOP)
    lines = [
        f"| system | read s (excluded) | index s | nDCG@10 | Recall@100 | top-10 p50 ms | top-10 p99 ms{depth_columns}"
        " | peak RSS MiB |",
        "| --- |" + " ---: |" * (7 + len(TOP)),
    ]
    for system, results in rounds.items():
        failed = [r for r in results if "error" in r]
        if failed:
            lines.append(f"| {system} | {failed[0]['error']} |" + " |" * (6 + len(TOP)))
            continue
        first = results[0]
        mark = " †" if first["speed_queries"] < first["queries"] else ""
        effectiveness_mark = " ‡" if first["scored_queries"] < first["queries"] else ""
        top10 = [depth_speed(r, 10) for r in results]
        speeds = "".join(
            f" | {cell(median([depth_speed(r, k)['queries_per_second'] for r in results]), 0)}{mark}" for k in TOP
        )
        lines.append(
            f"| {system} | {cell(median([r['read_seconds'] for r in results]), 2)}"
            f" | {cell(median([r['index_seconds'] for r in results]), 2)}"
            f" | {cell(first['ndcg@10'], 4)}{effectiveness_mark} | {cell(first['recall@100'], 4)}{effectiveness_mark}"
            f" | {cell(median([s['p50_ms'] for s in top10]), 3)}{mark} | {cell(median([s['p99_ms'] for s in top10]), 3)}{mark}"
            f"{speeds} | {cell(max(r['peak_rss_mib'] for r in results), 0)} |"
        )
    return lines


def table_notes(rounds: dict[str, list[dict[str, Any]]], arguments: argparse.Namespace) -> list[str]:
    done = {system: results for system, results in rounds.items() if not any("error" in r for r in results)}
    if not done:
        return []
    first = next(iter(done.values()))[0]
    count = len(next(iter(done.values())))
    notes = [(
        f"{first['documents']:,} documents, {first['queries']} test queries (the first {first['queries']} of the"
        f" test qrels' ids sorted as strings); nDCG@10 and Recall@100 from round 1's depth-{DEPTH} pass, scored under"
        " trec_eval's conventions (regrag.eval.metrics). Speed: sequential single queries, the same queries and k"
        f" for every system; {count} round(s), each a fresh process per system (systems in turn, so a round's"
        f" figures are close in time), {arguments.warmup} warm-up searches (queries cycling, k cycling over"
        f" {', '.join(map(str, TOP))}) then one timed pass per depth; q/s = queries / the sum of their times,"
        f" p50/p99 by nearest rank; each cell is the median over the rounds (index s too; peak RSS the largest)."
        f" Single-threaded ({', '.join(THREAD_VARIABLES)} = 1)."
    )]
    for system, results in done.items():
        head = results[0]
        if head["speed_queries"] < head["queries"]:
            notes.append(f"† {system}: speed measured on the first {head['speed_queries']} queries only,"
                         f" warm-up {head['warmup_searches']} searches.")
        if head["scored_queries"] < head["queries"]:
            notes.append(f"‡ {system}: nDCG@10 and Recall@100 on the first {head['scored_queries']} queries only.")
        elif head["speed_queries"] < head["queries"]:
            notes.append(f"{system}: nDCG@10 and Recall@100 on all {head['scored_queries']} queries.")
    if "lucene" in done:
        notes.append(lucene_note(done["lucene"]))
    return notes


def lucene_note(results: list[dict[str, Any]]) -> str:
    """How the lucene row was measured: in a warmed JVM, and its index time built again in that JVM."""
    versions = results[0]["versions"]
    made_by = f", Anserini {versions['anserini']}'s fat jar" if "anserini" in versions else ""
    return (f"lucene: Lucene {versions['lucene']}{made_by}, Java {versions['java']}, BM25 k1 = {results[0]['bm25']['k1']:g},"
            f" b = {results[0]['bm25']['b']:g}; its warm-up and timed passes run inside one JVM per round, so JVM"
            " start-up and JIT compilation are not in its q/s (the JVM is warmed like every other system); index s"
            " is the fresh JVM's first build, JIT compilation included (the building thread's CPU time:"
            f" {median([r['index_cpu_seconds'] for r in results]):.2f} s); the same build again in that JVM took"
            f" {median([r['index_again_seconds'] for r in results]):.2f} s (medians); peak RSS is the JVM's VmHWM.")


def ratio_lines(rounds: dict[str, list[dict[str, Any]]]) -> list[str]:
    """q/s of each regrag system ÷ each peer's, each round's (same round) and their median, per depth."""
    done = {system: results for system, results in rounds.items() if not any("error" in r for r in results)}
    ours = [name for name in REGRAG_SYSTEMS if name in done]
    peers = [name for name in done if name not in REGRAG_SYSTEMS]
    if not ours or not peers:
        return []
    lines = [
        "q/s ratios, regrag ÷ peer (above 1 = regrag faster): the median of the rounds, then each round's"
        " (round i of regrag against round i of the peer, on the same queries):",
        "",
        "| regrag | peer | queries | " + " | ".join(f"top-{k}" for k in TOP) + " | index s, regrag ÷ peer (above 1 = regrag slower) |",
        "| --- | --- | --- | " + " | ".join("---" for _ in TOP) + " | --- |",
    ]
    for mine in ours:
        for peer in peers:
            pairs = list(zip(done[mine], done[peer]))
            count = min(done[mine][0]["speed_queries"], done[peer][0]["speed_queries"])
            cells = []
            for k in TOP:
                each = [depth_speed(a, k, count)["queries_per_second"] / depth_speed(b, k, count)["queries_per_second"]
                        for a, b in pairs]
                cells.append(f"{median(each):.2f}× ({', '.join(f'{r:.2f}' for r in each)})")
            index = [a["index_seconds"] / b["index_seconds"] for a, b in pairs]
            cells.append(f"{median(index):.2f}× ({', '.join(f'{r:.2f}' for r in index)})")
            lines.append(f"| {mine} | {peer} | first {count} | " + " | ".join(cells) + " |")
    return lines


def warnings(rounds: dict[str, list[dict[str, Any]]]) -> list[str]:
    lines = []
    for system, results in rounds.items():
        failed = [r for r in results if "error" in r]
        if failed:
            lines.append(f"WARNING: {system} failed: {failed[0]['error']}")
        elif results[0]["ndcg@10"] < SANE_NDCG:
            lines.append(
                f"WARNING: {system} nDCG@10 = {results[0]['ndcg@10']:.4f} < {SANE_NDCG}:"
                " most likely a tokenisation bug, its figures are not comparable"
            )
    return lines


def command_line() -> str:
    """This run's command line as typed (the interpreter shown as ``python3``)."""
    return "python3 " + shlex.join(sys.argv)


def render(rounds: dict[str, list[dict[str, Any]]], arguments: argparse.Namespace, seconds: float,
           skipped: dict[str, str] | None = None) -> str:
    folder = Path(arguments.folder)
    versions: dict[str, str] = {}
    for results in rounds.values():
        for result in results:
            versions.update(result.get("versions", {}))
    lines = [f"## regrag and its peers on {folder.resolve().name}", "",
             f"`{command_line()}` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})", "",
             *results_table(rounds), ""]
    lines += [*table_notes(rounds, arguments), ""]
    ratios = ratio_lines(rounds)
    if ratios:
        lines += [*ratios, ""]
    lines += warnings(rounds)
    lines += [f"{system}: skipped: {reason}" for system, reason in sorted((skipped or {}).items())]
    lines.append(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average at the end"
        f" {', '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        + ", ".join(f"{name} {version}" for name, version in sorted(versions.items()))
        + f"; total {seconds:.0f} s."
    )
    return "\n".join(lines)


def write_json(document: Any, destination: str) -> None:
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    if destination == "-":
        sys.stdout.write(text)
    else:
        Path(destination).write_text(text, encoding="utf-8")


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="benchmark regrag against rank-bm25, bm25s, tantivy and Lucene")
    parser.add_argument("--folder", default=str(DEFAULT_FOLDER), help="BEIR folder (default ../shared/data/scifact)")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help=f"comma-separated, from {','.join(SYSTEMS)}")
    parser.add_argument("--system", choices=SYSTEMS, help="measure one round of this one system in this process")
    parser.add_argument("--queries", type=int, default=0, metavar="N",
                        help="the first N judged queries only (default: all)")
    parser.add_argument("--rounds", type=int, default=ROUNDS, metavar="R",
                        help=f"rounds, each a fresh process per system (default {ROUNDS})")
    parser.add_argument("--warmup", type=int, default=WARMUP_SEARCHES, metavar="W",
                        help=f"warm-up searches before timing (default {WARMUP_SEARCHES})")
    parser.add_argument("--warmup-on", choices=("timed", "other"), default="timed",
                        help="warm up on the timed queries (default) or on queries.jsonl's other queries")
    parser.add_argument("--score", action="store_true", help="with --system: also nDCG@10 and Recall@100")
    parser.add_argument("--lucene-jars", metavar="DIR",
                        help="Anserini's fat jar or Lucene's jars (default $REGRAG_LUCENE_JARS, else ~/.cache/regrag-bench)")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help="write the results as JSON to FILE (standard output when FILE is omitted)")
    arguments = parser.parse_args(argv)
    unknown = [name for name in arguments.systems.split(",") if name not in SYSTEMS]
    if unknown:
        parser.error(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}")
    if arguments.rounds < 1 or arguments.queries < 0 or arguments.warmup < 0:
        parser.error("--rounds must be at least 1, --queries and --warmup at least 0")
    return arguments


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    folder = Path(arguments.folder)
    started = time.perf_counter()
    if arguments.system == "lucene" and lucene_skip_reason(arguments):
        progress(f"lucene: skipped: {lucene_skip_reason(arguments)}")
        return 1
    if arguments.system:
        for name in THREAD_VARIABLES:
            os.environ.setdefault(name, "1")  # before numpy or tantivy is imported
        with contextlib.redirect_stdout(sys.stderr):  # standard output carries only the JSON
            result = measure(arguments.system, folder, arguments.queries or None, arguments.warmup,
                             score=arguments.score, warmup_on=arguments.warmup_on,
                             lucene_jars=arguments.lucene_jars)
        write_json(result, arguments.json or "-")
        return 0
    systems = arguments.systems.split(",")
    skipped = {}
    if "lucene" in systems:
        reason = lucene_skip_reason(arguments)
        if reason:
            skipped["lucene"] = reason
            systems.remove("lucene")
            progress(f"lucene: skipped: {reason}")
    rounds: dict[str, list[dict[str, Any]]] = {system: [] for system in systems}
    for number in range(arguments.rounds):
        progress(f"round {number + 1} of {arguments.rounds}")
        for system in systems:
            if rounds[system] and "error" in rounds[system][-1]:
                continue
            rounds[system].append(run_in_child(system, arguments, score=number == 0))
    seconds = time.perf_counter() - started
    report = render(rounds, arguments, seconds, skipped)
    if arguments.json == "-":
        write_json({"rounds": rounds, "seconds": seconds, "skipped": skipped}, "-")
    else:
        print(report)
        if arguments.json:
            write_json({"folder": str(folder), "command": command_line(), "rounds": rounds, "seconds": seconds,
                        "skipped": skipped, "markdown": report}, arguments.json)
    return 1 if any("error" in r for results in rounds.values() for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
