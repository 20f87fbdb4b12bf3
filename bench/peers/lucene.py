"""Lucene as a peer of ``bench/compare.py``, through Anserini's fat jar or plain Lucene jars.

The jars are tools, not data: they stay outside the repository, in
``--lucene-jars DIR``, else ``$REGRAG_LUCENE_JARS``, else
``~/.cache/regrag-bench`` (docs/performance.md gives the download command and
the checksums). Either an ``anserini-*-fatjar.jar`` (it bundles Lucene), or
``lucene-core-*.jar`` with ``lucene-analysis-common-*.jar``. Without ``java``
and ``javac`` or without the jars, ``skip_reason`` says why in one line and
compare.py leaves Lucene out.

``LuceneBench.java`` beside this file does the measuring inside one JVM (see
its header): a Python process in front of each query would time the pipe, not
Lucene. It is compiled once per source and jar set into
``DIR/classes-<hash>``. This module turns its output into compare.py's
result fields.

    python3 bench/peers/lucene.py --fetch            # the fat jar into ~/.cache/regrag-bench (pip, SHA-256 checked)
    python3 bench/peers/lucene.py --folder ../shared/data/scifact --k1 0.9 --b 0.4   # nDCG@10 of a configuration
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).with_name("LuceneBench.java")
JARS_VARIABLE = "REGRAG_LUCENE_JARS"
DEFAULT_JARS = Path.home() / ".cache" / "regrag-bench"
# The JVM sized once for the run: a fixed heap (no resizing while timed) and the serial collector
# (no collector threads beside the one that searches).
JVM_OPTIONS = ("-Xms2g", "-Xmx2g", "-XX:+UseSerialGC")
# Anserini's fat jar as pyserini's wheel ships it (the wheel is the only way to it from the registries
# these machines reach): pyserini 0.25.0 carries Anserini 0.25.0 (Lucene 9.9.1, built for Java 11).
WHEEL = "pyserini==0.25.0"
WHEEL_FILE = "pyserini-0.25.0-py3-none-any.whl"
WHEEL_SHA256 = "d807cfd8ea7c6e24b6f7ecd3f80d7dac64698b039abfc65ca10d194f6d49bd0b"
FAT_JAR = "anserini-0.25.0-fatjar.jar"
FAT_JAR_SHA256 = "2fd149f56449de22993be8cd4dca6a77c78898c35422a0725ed03cccf71cd821"

Query = tuple[str, str]


def jars_directory(given: str | None = None) -> Path:
    """Where the jars are looked for: ``given``, else ``$REGRAG_LUCENE_JARS``, else ~/.cache/regrag-bench."""
    if given:
        return Path(given).expanduser()
    return Path(os.environ[JARS_VARIABLE]).expanduser() if os.environ.get(JARS_VARIABLE) else DEFAULT_JARS


def find_jars(directory: Path) -> list[Path]:
    """The class path in ``directory``: the newest-named Anserini fat jar, else the two Lucene jars; [] if neither."""
    if not directory.is_dir():
        return []
    fat = sorted(directory.glob("anserini-*-fatjar.jar"))
    if fat:
        return [fat[-1]]
    core = sorted(directory.glob("lucene-core-*.jar"))
    analysis = sorted(directory.glob("lucene-analysis-common-*.jar"))
    return [core[-1], analysis[-1]] if core and analysis else []


def skip_reason(directory: Path) -> str | None:
    """None when Lucene can run, else why not (one line)."""
    missing = [tool for tool in ("java", "javac") if shutil.which(tool) is None]
    if missing:
        return f"no {' / no '.join(missing)} on PATH"
    if not find_jars(directory):
        return (f"no jars at {directory} (an anserini-*-fatjar.jar, or lucene-core-*.jar and"
                f" lucene-analysis-common-*.jar; see docs/performance.md, or pass --lucene-jars DIR)")
    return None


def compiled_classes(jars: Sequence[Path], directory: Path) -> Path:
    """LuceneBench compiled against ``jars`` (once per source and jar set)."""
    digest = hashlib.sha256(SOURCE.read_bytes())
    for jar in jars:
        digest.update(f"\0{jar.resolve()}\0{jar.stat().st_size}".encode())
    classes = directory / f"classes-{digest.hexdigest()[:16]}"
    if not (classes / "LuceneBench.class").is_file():
        staging = Path(tempfile.mkdtemp(prefix="classes-", dir=directory))
        subprocess.run(["javac", "-cp", os.pathsep.join(map(str, jars)), "-d", str(staging), str(SOURCE)],
                       check=True, stdout=sys.stderr)
        if not (classes / "LuceneBench.class").is_file():
            shutil.rmtree(classes, ignore_errors=True)
            staging.rename(classes)
    return classes


def write_tsv(rows: Sequence[tuple[str, str]], path: Path) -> None:
    """``id<TAB>text`` lines; tabs, CR and LF inside a field become spaces (separators to Lucene's tokenizer too)."""
    table = str.maketrans({"\t": " ", "\r": " ", "\n": " "})
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for identifier, text in rows:
            out.write(f"{identifier.translate(table)}\t{text.translate(table)}\n")


def read_corpus(folder: Path) -> list[tuple[str, str]]:
    """(id, ``title + " " + text``) of ``corpus.jsonl``, as compare.py's other peers read it."""
    rows = []
    with open(folder / "corpus.jsonl", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                record = json.loads(line)
                rows.append((record["_id"], f"{record.get('title', '')} {record['text']}"))
    return rows


def run(folder: Path, timed: Sequence[Query], warm: Sequence[Query], warmup: int, top: Sequence[int],
        jars_dir: Path, k1: float = 1.5, b: float = 0.75) -> dict[str, Any]:
    """One round in a fresh JVM: compare.py's fields (read/index seconds, per-query seconds per depth,
    versions, the JVM's peak RSS) and ``hits``, the deepest pass's [(id, score)] per query id."""
    reason = skip_reason(jars_dir)
    if reason:
        raise RuntimeError(f"lucene: {reason}")
    jars = find_jars(jars_dir)
    classes = compiled_classes(jars, jars_dir)
    started = time.perf_counter()
    documents = read_corpus(folder)
    read_seconds = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="regrag-lucene-") as scratch:
        paths = {name: Path(scratch) / f"{name}.tsv" for name in ("documents", "timed", "warm")}
        write_tsv(documents, paths["documents"])
        write_tsv(timed, paths["timed"])
        write_tsv(warm or timed, paths["warm"])
        command = ["java", *JVM_OPTIONS, "-cp", os.pathsep.join(map(str, [*jars, classes])), "LuceneBench",
                   "--documents", str(paths["documents"]), "--timed", str(paths["timed"]),
                   "--warm", str(paths["warm"]), "--warmup", str(warmup), "--top", ",".join(map(str, top)),
                   "--k1", repr(float(k1)), "--b", repr(float(b))]
        completed = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True)
    answer = json.loads(completed.stdout)
    # the JVM's own VmHWM; else the largest child's ru_maxrss (KiB on Linux), which may be javac's
    peak_rss_kib = answer["peak_rss_kib"]
    if peak_rss_kib < 0:
        peak_rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    versions = {"lucene": answer["versions"]["lucene"], "java": answer["versions"]["java"]}
    if "anserini" in jars[0].name:
        versions["anserini"] = jars[0].name.removeprefix("anserini-").removesuffix("-fatjar.jar")
    return {
        "documents": answer["documents"],
        "read_seconds": read_seconds,  # Python's reading of corpus.jsonl, as for the other peers
        "index_seconds": answer["index_seconds"],  # the fresh JVM's first build
        "index_cpu_seconds": answer["index_cpu_seconds"],  # the building thread's CPU time (not the JIT's)
        "index_again_seconds": answer["index_again_seconds"],  # the same build again in that JVM
        "warmup_searches": answer["warmup_searches"],
        "jit_settle_searches": answer["jit_settle_searches"],  # further warm-up until the JIT was idle
        "jit_settled": answer["jit_settled"],
        "seconds": answer["seconds"],
        "versions": versions,
        "bm25": {"k1": k1, "b": b},
        "peak_rss_mib": peak_rss_kib / 1024,
        "hits": {query_id: [(d, s) for d, s in hits] for query_id, hits in answer["hits"].items()},
    }


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as data:
        for block in iter(lambda: data.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_fat_jar(directory: Path) -> Path:
    """Download pyserini's wheel with pip (no dependencies), check both SHA-256s, keep only the fat jar."""
    import zipfile

    directory.mkdir(parents=True, exist_ok=True)
    jar = directory / FAT_JAR
    if jar.is_file() and sha256_of(jar) == FAT_JAR_SHA256:
        return jar
    with tempfile.TemporaryDirectory(prefix="regrag-wheel-", dir=directory) as scratch:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", scratch, WHEEL],
                       check=True, stdout=sys.stderr)
        wheel = Path(scratch) / WHEEL_FILE
        if sha256_of(wheel) != WHEEL_SHA256:
            raise RuntimeError(f"{wheel.name}: SHA-256 {sha256_of(wheel)}, expected {WHEEL_SHA256}")
        with zipfile.ZipFile(wheel) as archive, open(Path(scratch) / FAT_JAR, "wb") as out:
            with archive.open(f"pyserini/resources/jars/{FAT_JAR}") as member:
                shutil.copyfileobj(member, out)
        if sha256_of(Path(scratch) / FAT_JAR) != FAT_JAR_SHA256:
            raise RuntimeError(f"{FAT_JAR}: SHA-256 {sha256_of(Path(scratch) / FAT_JAR)}, expected {FAT_JAR_SHA256}")
        (Path(scratch) / FAT_JAR).replace(jar)
    return jar


def main(argv: list[str] | None = None) -> int:
    """Effectiveness of one Lucene configuration on a BEIR folder (all judged queries, top-1000)."""
    repository = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(repository))
    from bench.compare import DEFAULT_FOLDER, read_judged_queries, score_runs

    parser = argparse.ArgumentParser(description="nDCG@10 and Recall@100 of Lucene BM25 on a BEIR folder")
    parser.add_argument("--folder", default=str(DEFAULT_FOLDER))
    parser.add_argument("--lucene-jars", metavar="DIR", help=f"default ${JARS_VARIABLE} or {DEFAULT_JARS}")
    parser.add_argument("--k1", type=float, default=1.5)
    parser.add_argument("--b", type=float, default=0.75)
    parser.add_argument("--fetch", action="store_true",
                        help=f"download {FAT_JAR} (from the {WHEEL} wheel, checksums checked) into the jar folder, then stop")
    arguments = parser.parse_args(argv)
    folder, directory = Path(arguments.folder), jars_directory(arguments.lucene_jars)
    if arguments.fetch:
        jar = fetch_fat_jar(directory)
        print(f"{jar} (SHA-256 {FAT_JAR_SHA256})")
        return 0
    reason = skip_reason(directory)
    if reason:
        print(f"lucene: skipped: {reason}")
        return 0
    queries = read_judged_queries(folder)
    result = run(folder, queries, queries, 0, (1000,), directory, arguments.k1, arguments.b)
    scored = score_runs(folder, result["hits"])
    print(f"lucene {result['versions']} BM25 k1={arguments.k1:g} b={arguments.b:g} on {folder.name}:"
          f" {scored['scored_queries']} queries, nDCG@10 {scored['ndcg@10']:.4f},"
          f" Recall@100 {scored['recall@100']:.4f}; index {result['index_seconds']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
