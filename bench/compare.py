"""Side-by-side benchmark of regrag and its peers on one BEIR folder.

    python3 -m pip install -e ".[bench]"     # rank-bm25, bm25s, PyStemmer, tantivy
    python3 bench/compare.py                  # every system on ../shared/data/scifact
    python3 bench/compare.py --systems regrag-bm25,bm25s --folder DIR --json /tmp/compare.json
    python3 bench/compare.py --system bm25s   # one system, in this process

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
    score, the query's own id is dropped).
``bm25s``
    numpy backend, Lucene BM25 (k1 = 1.5, b = 0.75) over
    ``bm25s.tokenize(title + " " + text, stopwords="en",
    stemmer=Stemmer.Stemmer("english"))``; one query per ``retrieve`` call,
    ``n_threads=1``; tokenising the query is part of its time.
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
    ``searcher.search(query, k)``. Hits are turned into ids through a table
    (segment, doc) -> stored id built once after the commit (counted in the
    index time), not by loading each hit's stored document.

How
---
Each system runs in its own process: this script re-invokes itself with
``--system NAME --json`` (``sys.executable``, ``PYTHONPATH`` holding the
repository root, ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``,
``OPENBLAS_NUM_THREADS`` and ``NUMBA_NUM_THREADS`` set to 1, so everything is
single-threaded), so the peak RSS is that system's own.

* read s: reading the corpus (regrag: ``load_corpus``; peers: ``json.loads`` of
  each line); reported, and excluded from the index time.
* index s: building the index from the texts already in memory, including
  tokenisation.
* nDCG@10, Recall@100: a run of depth 1000 for every query, ordered and scored
  as trec_eval does (``regrag.eval.metrics.trec_eval_order`` and
  ``evaluate``), the query's own id dropped from every system's run.
* speed: sequential single queries, top 10 and top 1000, each query's time
  from the query text to a list of (document id, score); one warm-up pass,
  then 3 timed passes. q/s is the best of the 3 passes (queries / the sum of
  their times), to damp machine noise; a query's latency is its fastest of
  the 3 passes, and p50/p99 (nearest rank) are taken over queries.
* peak RSS: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of the system's
  process, read after the timed passes and the depth-1000 run and before
  regrag's evaluation modules are imported in a peer's process.

Below the table, every speed column of regrag-bm25 and regrag-hybrid is given
as a multiple of each peer's (against rank-bm25, both sides on its 50
queries), because absolute times drift from run to run on shared machines.
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
SYSTEMS = ("regrag-bm25", "regrag-hybrid", "bm25s", "rank-bm25", "tantivy")
REGRAG_SYSTEMS = ("regrag-bm25", "regrag-hybrid")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")
DEPTH = 1000
TOP = (10, DEPTH)
PASSES = 3
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


def build_regrag(folder: Path, method: str) -> Built:
    import regrag
    from regrag.corpus.load import load_corpus
    from regrag.engine import Index

    rank_documents = regrag_document_ranking()
    corpus, read_seconds = timed(lambda: load_corpus(folder))
    index, index_seconds = timed(lambda: Index.from_documents(corpus.documents))

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

    def build() -> Any:
        retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene", backend="numpy")
        retriever.index(stemmed_tokens(texts, stemmer), show_progress=False)
        return retriever

    retriever, index_seconds = timed(build)

    def rank(_query_id: str, text: str, k: int) -> Hits:
        positions, scores = retriever.retrieve(
            stemmed_tokens([text], stemmer), k=min(k, len(ids)), n_threads=1,
            show_progress=False, backend_selection="numpy",
        )
        return [(ids[p], s) for p, s in zip(positions[0].tolist(), scores[0].tolist()) if s > 0]

    return Built(rank, len(ids), read_seconds, index_seconds,
                 versions=package_versions("bm25s", "PyStemmer", "numpy"))


def build_rank_bm25(folder: Path) -> Built:
    import numpy
    import Stemmer
    from rank_bm25 import BM25Okapi

    (ids, texts), read_seconds = timed(lambda: read_corpus_texts(folder))
    stemmer = Stemmer.Stemmer("english")
    model, index_seconds = timed(lambda: BM25Okapi(stemmed_tokens(texts, stemmer, as_strings=True)))

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

    def rank(_query_id: str, text: str, k: int) -> Hits:
        query = index.parse_query(plain_words(text), ["body"])
        return [(id_of[(address.segment_ord, address.doc)], score) for score, address in searcher.search(query, k).hits]

    return Built(rank, searcher.num_docs, read_seconds, index_seconds, versions=package_versions("tantivy"))


def stored_ids(tantivy: Any, searcher: Any) -> dict[tuple[int, int], str]:
    """(segment, doc) -> stored id of every document of the index."""
    everything = searcher.search(tantivy.Query.all_query(), searcher.num_docs).hits
    return {(address.segment_ord, address.doc): searcher.doc(address)["id"][0] for _score, address in everything}


BUILDERS: dict[str, Callable[[Path], Built]] = {
    "regrag-bm25": lambda folder: build_regrag(folder, "bm25"),
    "regrag-hybrid": lambda folder: build_regrag(folder, "hybrid"),
    "bm25s": build_bm25s,
    "rank-bm25": build_rank_bm25,
    "tantivy": build_tantivy,
}


# measuring -------------------------------------------------------------------


def timed_passes(rank: Ranker, queries: Sequence[Query], k: int, passes: int = PASSES) -> list[list[float]]:
    """Seconds of each query in each of ``passes`` passes, after a warm-up pass."""
    for query_id, text in queries:
        rank(query_id, text, k)
    timings = []
    for _ in range(passes):
        seconds = []
        for query_id, text in queries:
            started = time.perf_counter()
            rank(query_id, text, k)
            seconds.append(time.perf_counter() - started)
        timings.append(seconds)
    return timings


def nearest_rank(ordered: Sequence[float], fraction: float) -> float:
    position = min(len(ordered), max(1, math.ceil(fraction * len(ordered))))
    return ordered[position - 1]


def speed_summary(timings: list[list[float]], count: int) -> dict[str, float]:
    """q/s of the best pass and latency percentiles over the first ``count`` queries."""
    fastest = sorted(min(seconds[i] for seconds in timings) for i in range(count))
    return {
        "queries": count,
        "queries_per_second": max(count / sum(seconds[:count]) for seconds in timings),
        "p50_ms": 1000 * nearest_rank(fastest, 0.50),
        "p99_ms": 1000 * nearest_rank(fastest, 0.99),
    }


def effectiveness_queries(queries: list[Query], built: Built, top_depth_timings: list[list[float]]) -> list[Query]:
    """All queries, unless a slow system would need more than the budget for them."""
    if not built.slow:
        return queries
    per_query = sum(min(seconds) for seconds in zip(*top_depth_timings)) / len(top_depth_timings[0])
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


def measure(system: str, folder: Path) -> dict[str, Any]:
    """Build one system, time its queries, score its run (in this process)."""
    queries = read_judged_queries(folder)
    built = BUILDERS[system](folder)
    rss_after_index = peak_rss_mib()
    timed_queries = queries[:SLOW_QUERY_COUNT] if built.slow else queries
    progress(f"[{system}] read {built.read_seconds:.2f} s, index {built.index_seconds:.2f} s; timing {len(timed_queries)} queries")
    timings = {k: timed_passes(built.rank, timed_queries, k) for k in TOP}
    speed = {
        f"top{k}": {
            "timed": speed_summary(timings[k], len(timed_queries)),
            "first50": speed_summary(timings[k], min(SLOW_QUERY_COUNT, len(timed_queries))),
        }
        for k in TOP
    }
    scored_queries = effectiveness_queries(queries, built, timings[DEPTH])
    runs = {query_id: built.rank(query_id, text, DEPTH) for query_id, text in scored_queries}
    peak = peak_rss_mib()
    effectiveness = score_runs(folder, runs)
    progress(f"[{system}] nDCG@10 {effectiveness['ndcg@10']:.4f}, peak RSS {peak:.0f} MiB")
    return {
        "system": system,
        "folder": str(folder),
        "documents": built.documents,
        "queries": len(queries),
        "speed_queries": len(timed_queries),
        "read_seconds": built.read_seconds,
        "index_seconds": built.index_seconds,
        "depth": DEPTH,
        **effectiveness,
        "speed": speed,
        "peak_rss_mib": peak,
        "peak_rss_after_index_mib": rss_after_index,
        "versions": built.versions,
        "threads": {name: os.environ.get(name) for name in THREAD_VARIABLES},
    }


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# the parent ------------------------------------------------------------------


def child_environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment.update({name: "1" for name in THREAD_VARIABLES})
    paths = [str(REPO)] + [p for p in environment.get("PYTHONPATH", "").split(os.pathsep) if p]
    environment["PYTHONPATH"] = os.pathsep.join(paths)
    return environment


def run_in_child(system: str, folder: Path) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--system", system, "--folder", str(folder), "--json"]
    completed = subprocess.run(command, env=child_environment(), stdout=subprocess.PIPE, text=True, check=False)
    if completed.returncode != 0:
        return {"system": system, "error": f"its process exited with status {completed.returncode} (see above)"}
    return json.loads(completed.stdout)


def cell(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def results_table(results: list[dict[str, Any]]) -> list[str]:
    lines = [
        (
            "| system | read s (excluded) | index s | nDCG@10 | Recall@100 | top-10 p50 ms | top-10 p99 ms"
            " | top-10 q/s | top-1000 q/s | peak RSS MiB |"
        ),
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        if "error" in result:
            lines.append(f"| {result['system']} | {result['error']} |" + " |" * 8)
            continue
        top10, top1000 = result["speed"]["top10"]["timed"], result["speed"]["top1000"]["timed"]
        mark = " †" if result["speed_queries"] < result["queries"] else ""
        effectiveness_mark = " ‡" if result["scored_queries"] < result["queries"] else ""
        lines.append(
            f"| {result['system']} | {cell(result['read_seconds'], 2)} | {cell(result['index_seconds'], 2)}"
            f" | {cell(result['ndcg@10'], 4)}{effectiveness_mark} | {cell(result['recall@100'], 4)}{effectiveness_mark}"
            f" | {cell(top10['p50_ms'], 3)}{mark} | {cell(top10['p99_ms'], 3)}{mark}"
            f" | {cell(top10['queries_per_second'], 1)}{mark} | {cell(top1000['queries_per_second'], 1)}{mark}"
            f" | {cell(result['peak_rss_mib'], 0)} |"
        )
    return lines


def table_notes(results: list[dict[str, Any]]) -> list[str]:
    done = [r for r in results if "error" not in r]
    if not done:
        return []
    first = done[0]
    notes = [(
        f"{first['documents']:,} documents, {first['queries']} test queries; runs of depth {DEPTH} scored under"
        " trec_eval's conventions (regrag.eval.metrics). Speed: sequential single queries, one warm-up pass, then"
        f" {PASSES} passes; q/s is the best of the {PASSES} passes (to damp machine noise), p50/p99 are over each"
        f" query's fastest of the {PASSES}. Single-threaded ({', '.join(THREAD_VARIABLES)} = 1), one process per system."
    )]
    for result in done:
        if result["speed_queries"] < result["queries"]:
            notes.append(f"† {result['system']}: speed measured on the first {result['speed_queries']} queries only.")
        if result["scored_queries"] < result["queries"]:
            notes.append(f"‡ {result['system']}: nDCG@10 and Recall@100 on the first {result['scored_queries']} queries only.")
        elif result["speed_queries"] < result["queries"]:
            notes.append(f"{result['system']}: nDCG@10 and Recall@100 on all {result['scored_queries']} queries.")
    return notes


SPEED_COLUMNS: tuple[tuple[str, str], ...] = (  # (label, where in a result)
    ("index time", "index_seconds"),
    ("top-10 p50", "top10.p50_ms"),
    ("top-10 p99", "top10.p99_ms"),
    ("top-10 q/s", "top10.queries_per_second"),
    ("top-1000 q/s", "top1000.queries_per_second"),
)


def speed_value(result: dict[str, Any], where: str, subset: str) -> float:
    if "." not in where:
        return result[where]
    depth, name = where.split(".")
    return result["speed"][depth][subset][name]


def ratio_lines(results: list[dict[str, Any]]) -> list[str]:
    """Each regrag system's speed columns as multiples of each peer's."""
    done = {r["system"]: r for r in results if "error" not in r}
    ours = [done[name] for name in REGRAG_SYSTEMS if name in done]
    peers = [r for name, r in done.items() if name not in REGRAG_SYSTEMS]
    if not ours or not peers:
        return []
    lines = [
        "Ratios, regrag's figure ÷ the peer's (times: above 1 = regrag slower; q/s: above 1 = regrag faster):",
        "",
        "| regrag | peer | queries | " + " | ".join(label for label, _where in SPEED_COLUMNS) + " |",
        "| --- | --- | --- | " + " | ".join("---:" for _ in SPEED_COLUMNS) + " |",
    ]
    for mine in ours:
        for peer in peers:
            subset = "first50" if peer["speed_queries"] < peer["queries"] or mine["speed_queries"] < mine["queries"] else "timed"
            count = mine["speed"]["top10"][subset]["queries"]
            cells = []
            for _label, where in SPEED_COLUMNS:
                ratio = speed_value(mine, where, subset) / speed_value(peer, where, subset)
                cells.append(f"{ratio:.2f} ×")
            scope = f"first {count}" if subset == "first50" else f"all {count}"
            lines.append(f"| {mine['system']} | {peer['system']} | {scope} | " + " | ".join(cells) + " |")
    return lines


def warnings(results: list[dict[str, Any]]) -> list[str]:
    lines = []
    for result in results:
        if "error" in result:
            lines.append(f"WARNING: {result['system']} failed: {result['error']}")
        elif result["ndcg@10"] < SANE_NDCG:
            lines.append(
                f"WARNING: {result['system']} nDCG@10 = {result['ndcg@10']:.4f} < {SANE_NDCG}:"
                " most likely a tokenisation bug, its figures are not comparable"
            )
    return lines


def render(results: list[dict[str, Any]], folder: Path, seconds: float) -> str:
    versions: dict[str, str] = {}
    for result in results:
        versions.update(result.get("versions", {}))
    lines = [f"## regrag and its peers on {folder.resolve().name}", "", *results_table(results), ""]
    lines += [*table_notes(results), ""]
    ratios = ratio_lines(results)
    if ratios:
        lines += [*ratios, ""]
    lines += warnings(results)
    lines.append(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs; "
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
    parser = argparse.ArgumentParser(description="benchmark regrag against rank-bm25, bm25s and tantivy")
    parser.add_argument("--folder", default=str(DEFAULT_FOLDER), help="BEIR folder (default ../shared/data/scifact)")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help=f"comma-separated, from {','.join(SYSTEMS)}")
    parser.add_argument("--system", choices=SYSTEMS, help="measure this one system in this process")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help="write the results as JSON to FILE (standard output when FILE is omitted)")
    arguments = parser.parse_args(argv)
    unknown = [name for name in arguments.systems.split(",") if name not in SYSTEMS]
    if unknown:
        parser.error(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}")
    return arguments


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    folder = Path(arguments.folder)
    started = time.perf_counter()
    if arguments.system:
        for name in THREAD_VARIABLES:
            os.environ.setdefault(name, "1")  # before numpy or tantivy is imported
        with contextlib.redirect_stdout(sys.stderr):  # standard output carries only the JSON
            results = [measure(arguments.system, folder)]
        if arguments.json:
            write_json(results[0], arguments.json)
            return 0
    else:
        results = [run_in_child(system, folder) for system in arguments.systems.split(",")]
    seconds = time.perf_counter() - started
    report = render(results, folder, seconds)
    if arguments.json == "-":
        write_json({"results": results, "seconds": seconds}, "-")
    else:
        print(report)
        if arguments.json:
            write_json({"folder": str(folder), "results": results, "seconds": seconds, "markdown": report}, arguments.json)
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
