"""bench/scale.py --corpus en|vi|zh: the command line at scale, each step in its own process.

    python3 bench/scale.py --corpus vi --articles 35440 --json /work/tmp/scale/vi.json
    python3 bench/scale.py --corpus zh --passages 10000 --workers 2

For each size (``--articles N`` and ``--passages N`` each take a comma-
separated list; every size is one run), in this order:

1. the corpus is written as a JSONL file under ``--work-dir`` (default
   /work/tmp/scale, outside the repository): vi and zh articles from
   ``news_corpus`` (``--passages N``: articles until N sections, each
   section one passage); en: the English documents of bench/scale.py, one
   passage each (articles = passages). Its raw text bytes (titles, headings,
   bodies, UTF-8) and SHA-256 are recorded;
2. ``python3 -m regrag index CORPUS --out DIR --analyzer LANG`` (plus
   ``--workers N`` when given and ``regrag index --help`` lists it): wall
   time, the child's user+system CPU time and peak RSS (``os.wait4``'s
   ``ru_maxrss``: that child alone);
3. the on-disk size of the index directory (one generation) and its ratio to
   the raw text bytes, and the manifest's term and posting counts;
4. a fresh process times ``Index.open``, wall and CPU (after importing
   regrag: the import is timed apart), then, for each of ``--latency-queries`` new queries, the
   first ``search(query, k=10)`` and the same call repeated (median of each;
   the process's very first query is reported apart), then ``ranking`` top-10
   ``bm25`` and ``hybrid`` p50/p99 (nearest rank) over ``--queries`` queries
   after a warm-up pass;
5. ``python3 -m regrag search --index DIR QUERY`` end to end (regrag's
   modules compiled to bytecode first, as an installed package has them:
   ``compiled_regrag``), ``--cli-runs``
   times with different queries: median and maximum wall time.

Queries are drawn from the corpus vocabulary (``news_corpus.make_queries``;
en: bench/scale.py's queries), deterministic. MB = 10^6 bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import news_corpus

REPO = Path(__file__).resolve().parents[1]
DEFAULT_WORK_DIR = Path("/work/tmp/scale")
MB = 1e6


def write_corpus(language: str, seed: int, articles: int | None, passages: int | None, path: Path,
                 scale_module: Any, scifact: str, distinct: int | None = None) -> dict[str, Any]:
    """The corpus file for one run, and its statistics; ``distinct`` (en): the
    first ``distinct`` documents written, then repeated (``write_repeated``)."""
    if distinct is not None and passages is not None and passages > distinct:
        source = path.with_name(f"{path.stem}.distinct.jsonl")
        stats = write_corpus(language, seed, None, distinct, source, scale_module, scifact)
        try:
            return write_repeated(source, passages // distinct, path, stats)
        finally:
            source.unlink(missing_ok=True)
    if language != "en":
        return news_corpus.write_jsonl(path, news_corpus.articles(language, seed, articles, passages))
    size = articles if articles is not None else passages
    vocabulary = scale_module.make_vocabulary(seed)
    lengths = scale_module.scifact_lengths(Path(scifact))
    stream = (_English(r.id, r.title, r.text, r.capped)
              for r in scale_module.generate_records(size, seed, vocabulary, lengths))
    return news_corpus.write_jsonl(path, stream)


def write_repeated(source: Path, copies: int, path: Path, stats: dict[str, Any]) -> dict[str, Any]:
    """``source`` (bench/scale.py's English corpus, N documents ``d`` + 7 digits)
    ``copies`` times over: copy k's document n is source document n under the id
    of document k·N + n. Every term's document frequency is ``copies`` times
    N's, the vocabulary and lengths are N's: a quick stand-in for 10M distinct
    passages (the JSON says so: ``distinct_passages``)."""
    count, digest = stats["passages"], hashlib.sha256()
    if count * copies > 10**7:
        raise ValueError("ids have 7 digits: at most 10,000,000 documents")
    with path.open("wb") as out:
        for copy in range(copies):
            with source.open("rb") as lines:
                for number, line in enumerate(lines):
                    if not line.startswith(b'{"id": "d') or line[16:17] != b'"':
                        raise ValueError(f"{source}:{number + 1}: not a bench/scale.py English record")
                    line = b'{"id": "d%07d' % (copy * count + number) + line[16:]
                    out.write(line)
                    digest.update(line)
    return {**stats, "articles": stats["articles"] * copies, "passages": count * copies,
            "text_bytes": stats["text_bytes"] * copies, "file_bytes": path.stat().st_size,
            "capped_sections": stats["capped_sections"] * copies, "sha256": digest.hexdigest(), "distinct_passages": count}


@dataclass(frozen=True)
class _English:
    """bench/scale.py's English document as a JSONL record: one section, one passage."""

    id: str
    title: str
    text: str
    capped: int

    @property
    def sections(self) -> tuple[tuple[str, str], ...]:
        return (("", self.text),)

    def record(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "text": self.text,
                "metadata": {"language": "en", "source": "regrag synthetic (fictional)"}}

    def text_bytes(self) -> int:
        return len(self.title.encode()) + len(self.text.encode())


def run_timed(command: list[str], timeout: float, environment: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a command; its wall time, CPU time and peak RSS (``os.wait4``: the
    child with the children it waited for, such as ``--workers`` processes:
    CPU summed, peak the largest single process), status and output."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
                               env={**os.environ, "PYTHONPATH": str(REPO), **(environment or {})})
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    output: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda name=name, stream=stream: output.__setitem__(name, stream.read()))
               for name, stream in (("stdout", process.stdout), ("stderr", process.stderr))]
    for reader in readers:
        reader.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    timer.cancel()
    for reader in readers:
        reader.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss * 1024 / MB,
            "status": process.returncode, "stdout": output.get("stdout", b"").decode(errors="replace"),
            "stderr": output.get("stderr", b"").decode(errors="replace")[-2000:]}


def compiled_regrag(work: Path) -> dict[str, str]:
    """The environment under which ``python3 -m regrag`` reads compiled bytecode, as an installed package
    has it (pip compiles at install time, Python on first import): regrag's modules compiled once
    (``compileall``) into their own ``__pycache__`` folders (ignored by git), and nothing changed in the
    environment, so the standard library and numpy are read from the bytecode they were installed with.
    Without it, a machine with ``PYTHONDONTWRITEBYTECODE=1`` would time compiling every regrag module
    (about 0.3 s) in every end-to-end search. (Until 2026-12-05 the bytecode went to a
    ``PYTHONPYCACHEPREFIX`` folder below ``work``; under a prefix Python looks for every module's
    bytecode there, so each run compiled the standard library's and numpy's modules from source: about
    0.4 s more than an installed regrag pays.) ``work`` is unused; kept for the callers."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "regrag")], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL)
    return {}


def index_supports(option: str) -> bool:
    done = subprocess.run([sys.executable, "-m", "regrag", "index", "--help"], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, check=False)
    return option in done.stdout


def _directory_bytes(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def _manifest_counts(index_dir: Path) -> dict[str, Any]:
    manifests = sorted((index_dir / "generations").glob("*/manifest.json"))
    if not manifests:
        return {}
    manifest = json.loads(manifests[-1].read_text(encoding="utf-8"))
    return {key: manifest[key] for key in ("term_count", "posting_count", "passage_count") if key in manifest}


def child_open(index_dir: str, queries_file: str, latency_queries: int, methods: str = "bm25,hybrid") -> dict[str, Any]:
    """Inside a fresh process: import, open, first vs repeated query, top-10 latencies."""
    started = time.perf_counter()
    sys.path.insert(0, str(REPO))
    from regrag.engine import Index
    import regrag.index.directory  # noqa: F401  (Index.open imports it lazily: counted as import, not open)
    report: dict[str, Any] = {"import_s": time.perf_counter() - started}
    started, cpu = time.perf_counter(), time.process_time()
    index = Index.open(index_dir)
    report["open_s"], report["open_cpu_s"] = time.perf_counter() - started, time.process_time() - cpu
    import resource
    report["open_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / MB
    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    first, repeated = [], []
    for query in queries[:latency_queries]:
        started = time.perf_counter()
        index.search(query, k=10)
        first.append(time.perf_counter() - started)
        started = time.perf_counter()
        index.search(query, k=10)
        repeated.append(time.perf_counter() - started)
    report.update(very_first_query_ms=first[0] * 1e3, first_query_ms=statistics.median(first[1:] or first) * 1e3,
                  repeated_query_ms=statistics.median(repeated) * 1e3)
    for method in methods.split(","):
        for query in queries:
            index.ranking(query, k=10, method=method)
        seconds = []
        for query in queries:
            started = time.perf_counter()
            index.ranking(query, k=10, method=method)
            seconds.append(time.perf_counter() - started)
        seconds.sort()
        report[method] = {"p50_ms": seconds[max(0, -(-50 * len(seconds) // 100) - 1)] * 1e3,
                          "p99_ms": seconds[max(0, -(-99 * len(seconds) // 100) - 1)] * 1e3}
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / MB
    return report


def measure(arguments: Any, scale_module: Any) -> dict[str, Any]:
    """Every requested size of one language: the report (also the JSON)."""
    source = scale_module.source_state()  # the commit measured: read before anything runs
    work = Path(arguments.work_dir).resolve()
    work.mkdir(parents=True, exist_ok=True)
    language = arguments.corpus
    forwarded = []
    if arguments.workers is not None:
        if index_supports("--workers"):
            forwarded = ["--workers", str(arguments.workers)]
        else:
            _log("regrag index has no --workers option here: ignored")
    if getattr(arguments, "memory", None) is not None:
        forwarded += ["--memory", str(arguments.memory)]
    if getattr(arguments, "max_streamed_file_bytes", None) is not None:
        forwarded += ["--max-streamed-file-bytes", arguments.max_streamed_file_bytes]
    kernels = [name for name in getattr(arguments, "kernels", "").split(",") if name.strip()]
    if language == "en":
        queries = scale_module.make_queries(arguments.seed, arguments.queries, scale_module.make_vocabulary(arguments.seed))
    else:
        queries = news_corpus.make_queries(language, arguments.seed, arguments.queries)
    queries_file = work / f"queries-{language}.json"
    queries_file.write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
    runs = [("articles", n) for n in arguments.article_list] + [("passages", n) for n in arguments.passage_list]
    results = []
    for kind, size in runs:
        repeated = getattr(arguments, "distinct", None) and kind == "passages" and size > arguments.distinct
        name = f"{language}-{kind}-{size}" + (f"-of-{arguments.distinct}" if repeated else "")
        corpus, index_dir = work / f"{name}.jsonl", work / f"{name}.index"
        result: dict[str, Any] = {"corpus": language, kind: size, "forwarded": forwarded, "load_before": os.getloadavg()}
        stats = Path(f"{corpus}.stats.json")
        if getattr(arguments, "reuse_corpus", False) and corpus.is_file() and stats.is_file():
            _log(f"{name}: reusing {corpus} (its statistics from {stats.name})")
            result["corpus_file"] = json.loads(stats.read_text(encoding="utf-8"))
            result["generation_s"] = None
        else:
            _log(f"{name}: writing the corpus ...")
            started = time.perf_counter()
            result["corpus_file"] = write_corpus(language, arguments.seed, size if kind == "articles" else None,
                                                 size if kind == "passages" else None, corpus, scale_module,
                                                 arguments.scifact, getattr(arguments, "distinct", None))
            result["generation_s"] = time.perf_counter() - started
            stats.write_text(json.dumps(result["corpus_file"]), encoding="utf-8")
        shutil.rmtree(index_dir, ignore_errors=True)
        _log(f"{name}: regrag index ...")
        analyzer = ["--analyzer", language]
        build = run_timed([sys.executable, "-m", "regrag", "index", str(corpus), "--out", str(index_dir), *analyzer,
                           *forwarded], arguments.max_minutes * 60)
        result["index"] = {k: v for k, v in build.items() if k != "stdout"}
        if build["status"] != 0:
            result["error"] = f"regrag index exited with status {build['status']}: {build['stderr'][-300:]}"
            results.append(result)
            continue
        disk = _directory_bytes(index_dir)
        result.update(disk_mb=disk / MB, disk_ratio=disk / result["corpus_file"]["text_bytes"],
                      manifest=_manifest_counts(index_dir))
        result["load_after_index"] = os.getloadavg()
        for kernel in kernels or [None]:
            _log(f"{name}: opening and querying{f' (REGRAG_KERNEL={kernel})' if kernel else ''} ...")
            opened = run_timed([sys.executable, str(Path(__file__).resolve()), "--child-open", str(index_dir),
                                str(queries_file), str(arguments.latency_queries), arguments.methods],
                               arguments.max_minutes * 60,
                               {"REGRAG_KERNEL": kernel} if kernel else None)
            if opened["status"] == 0:
                report = json.loads(opened["stdout"].strip().splitlines()[-1])
                result.setdefault("open", report)
                if kernel:
                    result.setdefault("open_by_kernel", {})[kernel] = report
            else:
                result["error"] = f"open child exited with status {opened['status']}: {opened['stderr'][-300:]}"
        walls, cpus = [], []
        bytecode = compiled_regrag(work)  # as an installed package has it: pip compiles at install time
        for query in queries[:arguments.cli_runs]:
            search = run_timed([sys.executable, "-m", "regrag", "search", "--index", str(index_dir), query],
                               arguments.max_minutes * 60, bytecode)
            if search["status"] != 0:
                result["error"] = f"regrag search exited with status {search['status']}: {search['stderr'][-300:]}"
                break
            walls.append(search["wall_s"])
            cpus.append(search["cpu_s"])
        if walls:
            result["cli_search"] = {"median_s": statistics.median(walls), "max_s": max(walls), "runs": len(walls),
                                    "median_cpu_s": statistics.median(cpus), "peak_rss_mb": search["peak_rss_mb"]}
        if not arguments.keep:
            shutil.rmtree(index_dir, ignore_errors=True)
            corpus.unlink(missing_ok=True)
            stats.unlink(missing_ok=True)
        results.append(result)
        _log(f"{name}: {result.get('error') or 'done'}")
    return {"command": ["python3", "bench/scale.py", *sys.argv[1:]], "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load": os.getloadavg(), "python": sys.version.split()[0], "cpus": os.cpu_count(),
            "source": source, "queries": len(queries), "results": results}


def markdown(report: dict[str, Any]) -> str:
    header = ("| corpus | articles | passages | text MB | terms | postings / passage | index s (CPU s) | index peak RSS MB | on-disk MB (÷ text) "
              "| open s (CPU s) | CLI search s (median / max (CPU median)) | first / repeated query ms | bm25 p50 / p99 ms "
              "| hybrid p50 / p99 ms |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for r in report["results"]:
        c, i, o, s = r["corpus_file"], r.get("index", {}), r.get("open"), r.get("cli_search")
        m = r.get("manifest", {})
        distinct = f" ({c['distinct_passages']:,} distinct, repeated)" if "distinct_passages" in c else ""
        cells = [r["corpus"], f"{c['articles']:,}", f"{c['passages']:,}{distinct}", f"{c['text_bytes'] / MB:.1f}",
                 f"{m['term_count']:,}" if "term_count" in m else "–",
                 f"{m['posting_count'] / c['passages']:.0f}" if "posting_count" in m and c["passages"] else "–",
                 f"{i['wall_s']:.1f} ({i['cpu_s']:.1f})" if i else "–", f"{i['peak_rss_mb']:.0f}" if i else "–",
                 f"{r['disk_mb']:.1f} ({r['disk_ratio']:.2f}×)" if "disk_mb" in r else "–",
                 (f"{o['open_s']:.2f}" + (f" ({o['open_cpu_s']:.2f})" if "open_cpu_s" in o else "")) if o else "–", (f"{s['median_s']:.2f} / {s['max_s']:.2f}" + (f" ({s['median_cpu_s']:.2f})" if "median_cpu_s" in s else "")) if s else "–",
                 f"{o['first_query_ms']:.1f} / {o['repeated_query_ms']:.1f}" if o else "–",
                 f"{o['bm25']['p50_ms']:.1f} / {o['bm25']['p99_ms']:.1f}" if o else "–",
                 f"{o['hybrid']['p50_ms']:.1f} / {o['hybrid']['p99_ms']:.1f}" if o and "hybrid" in o else "–"]
        lines.append("| " + " | ".join(cells) + " |")
    for r in report["results"]:
        for kernel, o in r.get("open_by_kernel", {}).items():
            lines.append(f"\n- {r['corpus']} {r['corpus_file']['passages']:,} passages, REGRAG_KERNEL={kernel}: open {o['open_s']:.2f} s, "
                         f"bm25 top-10 p50 / p99 {o['bm25']['p50_ms']:.1f} / {o['bm25']['p99_ms']:.1f} ms"
                         + (f", hybrid {o['hybrid']['p50_ms']:.1f} / {o['hybrid']['p99_ms']:.1f} ms" if "hybrid" in o else ""))
    for r in report["results"]:
        if r.get("error"):
            lines.append(f"\n- {r['corpus']} {r.get('articles') or r.get('passages')}: {r['error']}")
    return "\n".join(lines)


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


if __name__ == "__main__" and sys.argv[1:2] == ["--child-open"]:
    print(json.dumps(child_open(*sys.argv[2:4], int(sys.argv[4]), *sys.argv[5:6])), flush=True)
