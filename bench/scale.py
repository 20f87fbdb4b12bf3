"""regrag at scale: index, save, load and query synthetic corpora of 10k, 100k
and 1M passages.

    python3 bench/scale.py --sizes 10000,100000 --json /tmp/scale.json
    python3 bench/scale.py                      # 10k, 100k and 1M (1M: hours, many GiB)
    python3 bench/scale.py --corpus vi --articles 35440    # Vietnamese news, through the CLI

With ``--corpus en|vi|zh`` and ``--articles N`` / ``--passages N`` the script
instead writes a synthetic news corpus (``news_corpus``: Vietnamese, Chinese;
or the English documents below) as a JSONL file and measures ``regrag index``,
the index on disk, ``Index.open``, first and repeated queries and ``regrag
search`` end to end, each in its own process (``scale_news``, whose docstring
says exactly what is measured). The rest of this docstring is the in-process
measurement of ``--sizes``.

The corpus (deterministic: the same --seed and the same SciFact file give the
same documents, byte for byte, on any machine and hash seed; every random
number comes from a ``random.Random`` seeded with a string, never the global
generator):

- a vocabulary of 200,000 pronounceable word types (two to four
  consonant-vowel syllables over ``bdfgkmnprtz`` and ``aiou``, sometimes a
  final ``kmnpr``), spelt so that regrag's English analyzer keeps every type
  whole and distinct (no stopword can be spelt so, and the two endings
  Porter's stemmer would change are excluded); shorter types take the more
  frequent ranks, as in real text (about 4.6 letters a running word);
- words drawn from a Zipf distribution over those ranks (exponent 1.05), by
  bisecting a precomputed cumulative table;
- one document = one section = one passage; its length in words (title plus
  text) is drawn from the empirical distribution of SciFact's documents
  (``../shared/data/scifact/corpus.jsonl``, words = whitespace-separated
  tokens of title + " " + text; 5,183 documents, mean about 215 words), not
  from a fitted curve; the title has 5-12 words (uniform) and the text the
  rest, in sentences of 6-24 words. Texts are capped below regrag's
  4000-character passage bound (whole words are dropped from the end; about
  0.2% of documents: the count is reported) so each document is exactly one
  passage. Ids are ``d`` + 7 digits, and the first N documents of a larger
  size are the N documents of the smaller one;
- 200 queries (``--queries``) of 3-12 words (uniform), each word drawn with
  probability 0.8 from the same Zipf distribution restricted to the
  mid-frequency ranks 100-20,000 and otherwise from the whole distribution.

For each size, in this order:

1. a build subprocess generates the documents (timed, excluded from the
   other figures), indexes them (``Index.from_documents``: "index"), writes
   the index directory (``index.save``: "save") and reports its own peak
   RSS (``ru_maxrss``: the generated documents are part of it, since
   ``from_documents`` needs them in memory) and the size of the generation
   directory on disk;
2. a second, fresh subprocess times ``Index.open`` (page cache warm from the
   save: "cold-ish"), reports its ``ru_maxrss`` after the open minus that of
   a baseline subprocess that imports the same modules and opens nothing
   ("loaded RSS"; a peak, so it includes what opening holds transiently; the
   JSON also has the resident size after the open), then runs every query
   once per method as a warm-up and then once more timed: p50 and p99
   (nearest rank) of ``index.ranking(query, k=10, method)`` for ``bm25`` and
   ``hybrid``.

The index-time growth from one size to the next is (t_big / t_small) divided
by the size ratio: 1.0 is linear, 2.0 means twice the time per passage.

Limits: each size has ``--max-minutes`` (default 60) for build plus
measurement; a child over it is killed and the size recorded as timed out.
A size is skipped (and recorded as such) when extrapolating the previous size
linearly (times the last growth ratio, if above 1) predicts more time than
that or more memory than ``--max-gib``. Children run under an address-space
limit of ``--max-gib`` (default 90% of physical memory), so running out of
memory is a recorded ``MemoryError``, not the kernel's OOM killer. A failed
size does not stop the run.

Index directories are written under a temporary directory and deleted after
each size, unless ``--keep-dir DIR`` is given (then ``DIR/scale-SIZE`` is
kept); ``--keep-dir DIR --reuse`` then re-measures opening and queries on
those directories without building them again (for a quieter machine).
Figures are MB = 10^6 bytes, seconds and milliseconds. The JSON also
records the commit measured and any uncommitted files under regrag/.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SCIFACT = REPO.parent / "shared" / "data" / "scifact" / "corpus.jsonl"
DEFAULT_SIZES = (10_000, 100_000, 1_000_000)

VOCABULARY_SIZE = 200_000
ZIPF_EXPONENT = 1.05
CONSONANTS = "bdfgkmnprtz"
VOWELS = "aiou"
FINALS = "kmnpr"
FINAL_PROBABILITY = 0.3
SYLLABLE_COUNTS = (2, 3, 4)
SYLLABLE_WEIGHTS = (10, 45, 45)
# Endings Porter's stemmer would change in these words (-ator -> -ate, -iti removed).
# No Lucene stopword can be spelt with these letters in two or more syllables.
UNSTABLE_ENDINGS = ("ator", "iti")
TITLE_WORDS = (5, 12)
SENTENCE_WORDS = (6, 24)
MAX_TEXT_CHARS = 4000  # regrag's default IndexParameters.max_passage_chars
ID_DIGITS = 7
QUERY_WORDS = (3, 12)
QUERY_BAND = (100, 20_000)  # 1-based ranks of the mid-frequency words queries prefer
QUERY_BAND_PROBABILITY = 0.8
TOP_K = 10
METHODS = ("bm25", "hybrid")
MB = 1e6


# corpus generation ------------------------------------------------------------

@dataclass(frozen=True)
class Vocabulary:
    """Word types by rank (most frequent first) and the cumulative Zipf weights."""

    words: list[str]
    cumulative: list[float]

    def sampler(self, rng: random.Random, first_rank: int = 1, last_rank: int | None = None) -> Callable[[int], list[str]]:
        """A function drawing ``n`` words from the Zipf distribution restricted to ranks ``first_rank..last_rank``."""
        words, cumulative = self.words, self.cumulative
        low = first_rank - 1
        high = len(words) - 1 if last_rank is None else last_rank - 1
        base = cumulative[low - 1] if low > 0 else 0.0
        width = cumulative[high] - base
        draw = rng.random

        def sample(count: int) -> list[str]:
            return [words[bisect_right(cumulative, base + draw() * width, low, high)] for _ in range(count)]

        return sample


def make_vocabulary(seed: int, size: int = VOCABULARY_SIZE, exponent: float = ZIPF_EXPONENT) -> Vocabulary:
    rng = random.Random(f"regrag-scale/{seed}/vocabulary")
    seen: set[str] = set()
    words: list[str] = []
    while len(words) < size:
        word = _pronounceable(rng)
        if word not in seen and not word.endswith(UNSTABLE_ENDINGS):
            seen.add(word)
            words.append(word)
    words.sort(key=len)  # stable: the shortest types take the most frequent ranks
    cumulative = list(itertools.accumulate(1.0 / rank**exponent for rank in range(1, size + 1)))
    return Vocabulary(words, cumulative)


def _pronounceable(rng: random.Random) -> str:
    syllables = rng.choices(SYLLABLE_COUNTS, SYLLABLE_WEIGHTS)[0]
    word = "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(syllables))
    if rng.random() < FINAL_PROBABILITY:
        word += rng.choice(FINALS)
    return word


def scifact_lengths(path: Path) -> list[int]:
    """Words (whitespace-separated) in title + text of every SciFact document, sorted."""
    if not path.is_file():
        sys.exit(f"scale.py: {path}: no such file (the length distribution comes from SciFact; see --scifact)")
    lengths = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                lengths.append(len(f"{record.get('title', '')} {record['text']}".split()))
    return sorted(lengths)


@dataclass(frozen=True)
class Record:
    id: str
    title: str
    text: str
    capped: bool


def generate_records(size: int, seed: int, vocabulary: Vocabulary, lengths: Sequence[int]) -> Iterator[Record]:
    """The first ``size`` documents of the seed's document stream."""
    rng = random.Random(f"regrag-scale/{seed}/documents")
    sample = vocabulary.sampler(rng)
    for number in range(size):
        total = rng.choice(lengths)
        title_words = rng.randint(*TITLE_WORDS)
        title = _capitalized(" ".join(sample(title_words)))
        text, capped = _text(rng, sample(max(1, total - title_words)))
        yield Record(f"d{number:0{ID_DIGITS}d}", title, text, capped)


def _text(rng: random.Random, words: list[str]) -> tuple[str, bool]:
    """Sentences of the words; whole words dropped from the end to stay under the passage bound."""
    sentences = []
    start = 0
    while start < len(words):
        end = start + rng.randint(*SENTENCE_WORDS)
        sentences.append(_capitalized(" ".join(words[start:end])) + ".")
        start = end
    text = " ".join(sentences)
    if len(text) <= MAX_TEXT_CHARS:
        return text, False
    cut = text.rindex(" ", 0, MAX_TEXT_CHARS)  # whole words, room left for the final period
    return text[:cut].rstrip(".") + ".", True


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def make_queries(seed: int, count: int, vocabulary: Vocabulary) -> list[str]:
    rng = random.Random(f"regrag-scale/{seed}/queries")
    middle = vocabulary.sampler(rng, *QUERY_BAND)
    anywhere = vocabulary.sampler(rng)
    queries = []
    for _ in range(count):
        words = [(middle if rng.random() < QUERY_BAND_PROBABILITY else anywhere)(1)[0]
                 for _ in range(rng.randint(*QUERY_WORDS))]
        queries.append(" ".join(words))
    return queries


# measurements inside children -------------------------------------------------

def _peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def _current_rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _limit_memory(gib: float) -> None:
    limit = int(gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _directory_bytes(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def _import_regrag() -> Any:
    """The modules both the measuring child and the baseline child import."""
    sys.path.insert(0, str(REPO))
    import regrag.index.directory  # noqa: F401  (Index.open imports it lazily; the baseline must hold it too)
    from regrag.engine import Index

    return Index


def child_build(arguments: argparse.Namespace) -> dict[str, Any]:
    _limit_memory(arguments.max_gib)
    Index = _import_regrag()
    from regrag.corpus.model import Document, Section

    report: dict[str, Any] = {"rss_start_mb": _peak_rss_bytes() / MB, "stage": "generation"}
    try:
        started = time.perf_counter()
        vocabulary = make_vocabulary(arguments.seed)
        lengths = scifact_lengths(Path(arguments.scifact))
        documents, capped = [], 0
        for record in generate_records(arguments.size, arguments.seed, vocabulary, lengths):
            documents.append(Document(record.id, record.title, record.text,
                                      (Section(record.title, 0, len(record.text)),), (), "synthetic"))
            capped += record.capped
        del vocabulary
        report.update(generation_s=time.perf_counter() - started, documents=len(documents), capped=capped,
                      rss_after_generation_mb=_peak_rss_bytes() / MB, stage="index")
        started = time.perf_counter()
        index = Index.from_documents(documents)
        report.update(index_s=time.perf_counter() - started, passages=index.passage_count, stage="save")
        started = time.perf_counter()
        generation = index.save(arguments.index_dir)
        report["save_s"] = time.perf_counter() - started
    except MemoryError:
        documents.clear()  # free what we can before reporting
        report.update(error=f"MemoryError during {report['stage']}", build_peak_rss_mb=_peak_rss_bytes() / MB)
        return report
    directory = Path(arguments.index_dir) / "generations" / f"{generation.number:06d}"
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    report.update(disk_mb=_directory_bytes(directory) / MB, terms=manifest["term_count"],
                  postings=manifest["posting_count"], corpus_root=index.corpus_root,
                  build_peak_rss_mb=_peak_rss_bytes() / MB, stage="done")
    return report


def child_measure(arguments: argparse.Namespace) -> dict[str, Any]:
    _limit_memory(arguments.max_gib)
    Index = _import_regrag()
    if arguments.index_dir is None:
        return {"baseline_rss_mb": _peak_rss_bytes() / MB}
    try:
        started = time.perf_counter()
        index = Index.open(arguments.index_dir)
        report: dict[str, Any] = {"load_s": time.perf_counter() - started,
                                  "open_peak_rss_mb": _peak_rss_bytes() / MB,
                                  "open_current_rss_mb": _current_rss_bytes() / MB}
        queries = json.loads(Path(arguments.queries_file).read_text(encoding="utf-8"))
        for method in METHODS:
            report[method] = _latencies(index, queries, method)
    except MemoryError:
        return {"error": "MemoryError while opening or querying"}
    return report


def _latencies(index: Any, queries: list[str], method: str) -> dict[str, float]:
    for query in queries:  # warm-up pass
        index.ranking(query, k=TOP_K, method=method)
    seconds, answered = [], 0
    for query in queries:
        started = time.perf_counter()
        results = index.ranking(query, k=TOP_K, method=method)
        seconds.append(time.perf_counter() - started)
        answered += bool(results)
    return {"p50_ms": _percentile(seconds, 50) * 1e3, "p99_ms": _percentile(seconds, 99) * 1e3,
            "mean_ms": sum(seconds) / len(seconds) * 1e3, "queries_with_hits": answered}


def _percentile(values: Sequence[float], percent: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


# the parent: one size after another ---------------------------------------------

def _run_child(mode: str, options: list[str], timeout: float) -> tuple[dict[str, Any] | None, str | None, float]:
    """Run this script as a child; its report (last stdout line, JSON) or why there is none, and its wall time."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", mode, *options]
    started = time.perf_counter()
    try:
        finished = subprocess.run(command, stdout=subprocess.PIPE, text=True, timeout=max(timeout, 1.0), check=False)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s ({mode})", time.perf_counter() - started
    wall = time.perf_counter() - started
    if finished.returncode < 0:
        return None, f"{mode} child killed by signal {-finished.returncode} (out of memory?)", wall
    lines = finished.stdout.strip().splitlines()
    if finished.returncode != 0 or not lines:
        return None, f"{mode} child exited with status {finished.returncode}", wall
    report = json.loads(lines[-1])
    return report, report.get("error"), wall


def _estimate(previous: dict[str, Any] | None, size: int, growth: float | None) -> tuple[float, float] | None:
    """Seconds and peak MB of ``size`` extrapolated from the previous size's build."""
    if previous is None or previous.get("error") or not previous.get("build") or "save_s" not in previous["build"]:
        return None
    build = previous["build"]
    factor = size / previous["size"] * max(1.0, growth or 1.0)
    seconds = (build["generation_s"] + build["index_s"] + build["save_s"]) * factor
    return seconds, build["build_peak_rss_mb"] * size / previous["size"]


def measure_size(size: int, arguments: argparse.Namespace, work: Path, queries_file: Path,
                 estimate: tuple[float, float] | None) -> dict[str, Any]:
    result: dict[str, Any] = {"size": size}
    budget = arguments.max_minutes * 60
    if estimate is not None and (estimate[0] > budget or estimate[1] > arguments.max_gib * 2**30 / MB):
        result["error"] = (f"skipped: extrapolated {estimate[0] / 60:.0f} min and {estimate[1] / 1e3:.1f} GB "
                           f"(budget {arguments.max_minutes:g} min, {arguments.max_gib:.1f} GiB)")
        return result
    index_dir = work / f"scale-{size}"
    common = ["--seed", str(arguments.seed), "--max-gib", str(arguments.max_gib)]
    if arguments.reuse and index_dir.exists():
        # --reuse: the index directory of an earlier run (same seed); build figures are not measured
        _log(f"size {size:,}: reusing {index_dir}")
        build, error, wall = None, None, 0.0
        result["reused"] = str(index_dir)
    else:
        if index_dir.exists():
            shutil.rmtree(index_dir)
        _log(f"size {size:,}: generating, indexing, saving ...")
        build, error, wall = _run_child("build", [*common, "--size", str(size), "--scifact", str(arguments.scifact),
                                                  "--index-dir", str(index_dir)], budget)
    result["build"], result["build_wall_s"] = build, wall
    if error is None:
        _log(f"size {size:,}: opening and querying ...")
        measured, error, _ = _run_child("measure", [*common, "--index-dir", str(index_dir),
                                                    "--queries-file", str(queries_file)], budget - wall)
        result["measure"] = measured
    if error is not None:
        result["error"] = error
    if not arguments.keep_dir:
        shutil.rmtree(index_dir, ignore_errors=True)
    return result


def growth_ratios(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Index-time growth between consecutive measured sizes, per passage (1.0 = linear)."""
    built = [r for r in results if r.get("build") and "index_s" in r["build"]]
    return [{"from": small["size"], "to": big["size"],
             "ratio": big["build"]["index_s"] / small["build"]["index_s"] / (big["size"] / small["size"])}
            for small, big in itertools.pairwise(built)]


def _label(size: int) -> str:
    for divisor, suffix in ((1_000_000, "M"), (1_000, "k")):
        if size >= divisor and size % divisor == 0:
            return f"{size // divisor}{suffix}"
    return str(size)


def _cell(report: dict[str, Any] | None, key: str, form: str = "{:.2f}") -> str:
    if not report or report.get(key) is None:
        return "–"
    return form.format(report[key])


def _latency_cell(measure: dict[str, Any] | None, method: str) -> str:
    if not measure or method not in measure:
        return "–"
    return f"{measure[method]['p50_ms']:.1f} / {measure[method]['p99_ms']:.1f}"


def markdown(results: list[dict[str, Any]], baseline_mb: float, growth: list[dict[str, Any]]) -> str:
    header = ("| size | documents | passages | generation s | index s | save s | build peak RSS MB | on-disk MB "
              "| load s | loaded RSS MB | bm25 p50 / p99 ms | hybrid p50 / p99 ms |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    notes = []
    for result in results:
        build, measure = result.get("build"), result.get("measure")
        loaded = (f"{measure['open_peak_rss_mb'] - baseline_mb:.0f}"
                  if measure and "open_peak_rss_mb" in measure else "–")
        lines.append(" | ".join([
            f"| {_label(result['size'])}", _cell(build, "documents", "{:,}"), _cell(build, "passages", "{:,}"),
            _cell(build, "generation_s", "{:.1f}"), _cell(build, "index_s", "{:.1f}"), _cell(build, "save_s", "{:.1f}"),
            _cell(build, "build_peak_rss_mb", "{:.0f}"), _cell(build, "disk_mb", "{:.1f}"),
            _cell(measure, "load_s"), loaded, _latency_cell(measure, "bm25"), _latency_cell(measure, "hybrid"),
        ]) + " |")
        if result.get("error"):
            notes.append(f"- {_label(result['size'])}: {result['error']}")
        if result.get("reused"):
            notes.append(f"- {_label(result['size'])}: index reused from {result['reused']} (--reuse): build not measured")
        if build and build.get("capped"):
            notes.append(f"- {_label(result['size'])}: {build['capped']:,} texts capped at {MAX_TEXT_CHARS} characters")
    lines.append("")
    lines.extend(notes)
    wanted = next((g for g in growth if g["from"] == 100_000 and g["to"] == 1_000_000), None)
    lines.append("Index-time growth 100k→1M, (t_1M / t_100k) / 10: "
                 + (f"{wanted['ratio']:.2f} (1.0 = linear)" if wanted else "not measured"))
    for ratio in growth:
        if ratio is not wanted:
            lines.append(f"Index-time growth {_label(ratio['from'])}→{_label(ratio['to'])}, "
                         f"per passage: {ratio['ratio']:.2f} (1.0 = linear)")
    lines.append(f"Loaded RSS = ru_maxrss after Index.open minus {baseline_mb:.0f} MB "
                 "(an interpreter with regrag imported).")
    return "\n".join(lines)


def source_state() -> dict[str, Any]:
    """The commit measured and the files under regrag/ that differ from it (read-only git calls)."""
    def git(*arguments: str) -> str | None:
        try:
            done = subprocess.run(["git", "--no-optional-locks", "-C", str(REPO), *arguments],
                                  capture_output=True, text=True, timeout=60, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "--short", "HEAD")
    changed = git("status", "--porcelain", "--", "regrag") or ""
    return {"commit": commit.strip() if commit else None, "changed": [line[3:] for line in changed.splitlines()]}


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _default_max_gib() -> float:
    return round(0.9 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                        help="comma-separated passage counts (default 10000,100000,1000000)")
    parser.add_argument("--seed", type=int, default=1, help="corpus and query seed (default 1)")
    parser.add_argument("--queries", type=int, default=200, help="number of queries (default 200)")
    parser.add_argument("--max-minutes", type=float, default=60.0, help="budget per size (default 60)")
    parser.add_argument("--max-gib", type=float, default=_default_max_gib(),
                        help="address-space limit of every child (default 90%% of physical memory)")
    parser.add_argument("--scifact", default=str(DEFAULT_SCIFACT), help="SciFact corpus.jsonl (length distribution)")
    parser.add_argument("--keep-dir", help="write the index directories here and keep them")
    parser.add_argument("--json", help="also write the figures as JSON to this file")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep-dir: open and query the index directories an earlier run kept there "
                             "(same --seed) instead of building them again; build figures are then not measured")
    news = parser.add_argument_group("news corpora through the command line (bench/scale_news.py)")
    news.add_argument("--corpus", choices=("en", "vi", "zh"),
                      help="measure regrag index / open / search on this synthetic corpus instead of --sizes")
    news.add_argument("--articles", default="", help="with --corpus: comma-separated article counts")
    news.add_argument("--passages", default="", help="with --corpus: comma-separated passage counts")
    news.add_argument("--work-dir", default="/work/tmp/scale", help="where corpora and indexes are written")
    news.add_argument("--workers", type=int, help="forwarded to regrag index when it has --workers")
    news.add_argument("--memory", type=int, metavar="MB", help="forwarded to regrag index --memory (its build budget)")
    news.add_argument("--kernels", default="", help="with --corpus: open and query once per kernel, e.g. python,numpy "
                      "(REGRAG_KERNEL; default: the default kernel only)")
    news.add_argument("--methods", default="bm25,hybrid", help="with --corpus: methods timed top-10 (bm25,hybrid)")
    news.add_argument("--latency-queries", type=int, default=20, help="new queries for first vs repeated (20)")
    news.add_argument("--cli-runs", type=int, default=5, help="regrag search runs end to end (5)")
    news.add_argument("--keep", action="store_true", help="keep the corpus file and index directory")
    news.add_argument("--reuse-corpus", action="store_true",
                      help="use the corpus file already in --work-dir (and its .stats.json, written with it)")
    news.add_argument("--distinct", type=int, metavar="N",
                      help="with --corpus en --passages P (P a multiple of N): the first N documents, then the same "
                           "titles and texts again under the next ids until P (fast; the statistics are N's)")
    news.add_argument("--max-streamed-file-bytes", metavar="BYTES",
                      help="forwarded to regrag index (the streamed corpus file's limit, default 16GiB)")
    parser.add_argument("--child", choices=("build", "measure"), help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--index-dir", help=argparse.SUPPRESS)
    parser.add_argument("--queries-file", help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    try:
        arguments.article_list = [int(s.replace("_", "")) for s in arguments.articles.split(",") if s.strip()]
        arguments.passage_list = [int(s.replace("_", "")) for s in arguments.passages.split(",") if s.strip()]
    except ValueError:
        parser.error("--articles / --passages: expected comma-separated integers")
    if (arguments.article_list or arguments.passage_list) and not arguments.corpus:
        parser.error("--articles / --passages need --corpus en|vi|zh")
    if arguments.corpus and not (arguments.article_list or arguments.passage_list):
        parser.error("--corpus needs --articles N and/or --passages N")
    if min(arguments.article_list + arguments.passage_list, default=1) < 1:
        parser.error("--articles / --passages: each count must be at least 1")
    if arguments.distinct is not None and (arguments.corpus != "en" or arguments.article_list or arguments.distinct < 1
                                           or any(size % arguments.distinct for size in arguments.passage_list)):
        parser.error("--distinct N needs --corpus en and --passages sizes that are multiples of N")
    try:
        arguments.size_list = [int(s.replace("_", "")) for s in arguments.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes: expected comma-separated integers, got {arguments.sizes!r}")
    if not arguments.size_list or min(arguments.size_list) < 1 or max(arguments.size_list) >= 10**ID_DIGITS:
        parser.error(f"--sizes: each size must be between 1 and {10**ID_DIGITS - 1}")
    if arguments.queries < 1:
        parser.error("--queries must be at least 1")
    if arguments.reuse and not arguments.keep_dir:
        parser.error("--reuse needs --keep-dir (where the earlier run kept its index directories)")
    return arguments


def run(arguments: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    source = source_state()
    if arguments.keep_dir:
        work = Path(arguments.keep_dir).resolve()
        work.mkdir(parents=True, exist_ok=True)
        temporary = None
    else:
        temporary = tempfile.TemporaryDirectory(prefix="regrag-scale-")
        work = Path(temporary.name)
    try:
        scifact_lengths(Path(arguments.scifact))  # fail early if the length distribution is missing
        queries_file = work / "queries.json"
        queries = make_queries(arguments.seed, arguments.queries, make_vocabulary(arguments.seed))
        queries_file.write_text(json.dumps(queries, ensure_ascii=False, indent=0), encoding="utf-8")
        baseline, error, _ = _run_child("measure", ["--max-gib", str(arguments.max_gib)], 600)
        if baseline is None:
            sys.exit(f"scale.py: the baseline child failed: {error}")
        results: list[dict[str, Any]] = []
        for size in arguments.size_list:
            growth = growth_ratios(results)
            estimate = _estimate(results[-1] if results else None, size, growth[-1]["ratio"] if growth else None)
            results.append(measure_size(size, arguments, work, queries_file, estimate))
            _log(f"size {size:,}: {results[-1].get('error') or 'done'}")
    finally:
        if temporary is not None:
            temporary.cleanup()
    return {
        "command": ["python3", "bench/scale.py", *sys.argv[1:]],
        "source": source, "seed": arguments.seed, "queries": queries, "top_k": TOP_K,
        "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "max_minutes": arguments.max_minutes, "max_gib": arguments.max_gib,
        "baseline_rss_mb": baseline["baseline_rss_mb"], "results": results,
        "growth": growth_ratios(results), "total_s": time.perf_counter() - started,
    }


def main(argv: list[str] | None = None) -> None:
    arguments = parse_arguments(argv)
    if arguments.child:
        child = child_build if arguments.child == "build" else child_measure
        print(json.dumps(child(arguments)), flush=True)
        return
    if arguments.corpus:
        import scale_news  # bench/ is sys.path[0] when this script runs

        news_report = scale_news.measure(arguments, sys.modules[__name__])
        print(scale_news.markdown(news_report))
        print(f"\n{news_report['date']}, load {' '.join(f'{x:.2f}' for x in news_report['load'])} at the end, "
              f"Python {news_report['python']}, {news_report['cpus']} CPUs, regrag at {news_report['source']['commit']}.")
        if arguments.json:
            Path(arguments.json).write_text(json.dumps(news_report, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                                            encoding="utf-8")
        return
    report = run(arguments)
    print(markdown(report["results"], report["baseline_rss_mb"], report["growth"]))
    print(f"\nTotal wall time {report['total_s'] / 60:.1f} min (seed {report['seed']}, "
          f"{len(report['queries'])} queries, top-{TOP_K}, Python {report['python']}, {report['cpus']} CPUs).")
    source = report["source"]
    if source["commit"]:
        changed = f", uncommitted changes in {', '.join(source['changed'])}" if source["changed"] else ""
        print(f"regrag at commit {source['commit']}{changed}.")
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
