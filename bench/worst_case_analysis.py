"""Worst-case inputs for analysis and the other text paths: time (and memory) at sizes n, 2n,
4n, 8n, and the growth per doubling. Linear code grows about 2x per doubling; quadratic 4x.

    python3 bench/worst_case_analysis.py                    # n = 125,000 characters (8n = 1 M)
    python3 bench/worst_case_analysis.py --base 50000 --only flood,sentences
    python3 bench/worst_case_analysis.py --regex-sweep-only # every compiled pattern in regrag
    python3 bench/worst_case_analysis.py --json /tmp/worst.json --markdown /tmp/worst.md

What is measured:

1. analysis (``Analyzer("auto")``: ``analyze`` and ``term_counts``) of inputs built to hit each
   rule's worst case: a 1 MB single token, combining floods (one class, interleaved classes,
   no base, with BOMs inside, half-width voiced marks, Hangul jamo), zero-width joiners, bidi
   controls, alternating scripts, NFKC expanders (U+FDFA, U+3300), runs of digits with periods
   or commas, apostrophes, plus signs, ticker-like capitals, punctuation lines, Vietnamese
   syllable pairs, CJK bigrams, BOM runs; peak memory of ``analyze`` (tracemalloc) too;
2. ``sentence_spans`` on long runs of periods, ``!?`` with closing quotes, and many short
   sentences; ``detect_language`` on a flood and on Vietnamese text;
3. the corpus loader's Markdown heading and metadata-line patterns (regrag/corpus/load.py)
   on pathological lines, and ``load_corpus`` of a Markdown file holding one;
4. filter parsing (its length cap lifted for the measurement), and the query entity step
   (``EntityCatalog.match``) on long queries against a catalog of 2,000 names;
5. ``--regex-sweep``: every compiled pattern found in regrag's modules, searched and matched
   on 20 adversarial strings at 2,000 and 16,000 characters.

Each time is the best of ``--repeat`` runs (default 3), so noise from other processes inflates
it less; a case whose growth per doubling (``(t(8n) / t(n)) ** (1/3)``) exceeds ``--flag``
(default 2.5) is flagged, unless it takes under 1 ms at n and 10 ms at 8n (timer noise). Absolute times drift on shared machines; the ratios are what count.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import json
import pkgutil
import re
import shutil
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from regrag.errors import InputError  # noqa: E402
from regrag.text.analyzer import Analyzer, detect_language  # noqa: E402
from regrag.text.sentences import sentence_spans  # noqa: E402


def repeat_to(piece: str, size: int, prefix: str = "", suffix: str = "") -> str:
    """``prefix`` + ``piece`` repeated to ``size`` characters in all + ``suffix``."""
    count = max(1, (size - len(prefix) - len(suffix)) // max(1, len(piece)))
    return prefix + piece * count + suffix


@dataclass(frozen=True)
class Case:
    """One worst case: how to build its input of ``size`` characters, and what to run on it."""

    group: str
    name: str
    make: Callable[[int], Any]
    run: Callable[[Any], object]
    memory: bool = False
    scale: float = 1.0  # sizes are ``scale`` x the base sizes (paths with small caps)


def analysis_cases() -> list[Case]:
    analyzer = Analyzer("auto")

    def both(text: str) -> None:
        analyzer.analyze(text)
        analyzer.term_counts(text)

    inputs: dict[str, Callable[[int], str]] = {
        "1 MB single ASCII token": lambda n: "a" * n,
        "single non-ASCII token (ệ)": lambda n: "ệ" * n,
        "combining flood, one class": lambda n: "a" + "\u0301" * (n - 1),
        "combining flood, interleaved classes": lambda n: repeat_to("\u0301\u0316", n, "a"),
        "combining flood, no base": lambda n: repeat_to("\u0301\u0316", n, " "),
        "combining flood, BOMs inside": lambda n: repeat_to("\ufeff\u0301\u0316", n, "e"),
        "half-width voiced marks + acute": lambda n: repeat_to("\uff9e\u0301", n, "\uff76"),
        "Hangul jamo run": lambda n: repeat_to("\u1161\u11a8", n, "\u1100"),
        "zero-width joiners": lambda n: repeat_to("a\u200d", n),
        "bidi controls": lambda n: repeat_to("\u202ea\u202c\u2066b\u2069", n),
        "alternating scripts": lambda n: repeat_to("a中ệ1ｶ한", n),
        "NFKC expander U+FDFA (18x)": lambda n: "\ufdfa" * (n // 18),
        "NFKC squared katakana U+3300": lambda n: "\u3300" * (n // 5),
        "digits and periods": lambda n: repeat_to("1.", n),
        "digits and commas, final %": lambda n: repeat_to("1,", n, "", "5%"),
        "apostrophes": lambda n: repeat_to("a'", n),
        "plus signs": lambda n: repeat_to("a+1", n),
        "ticker-like capitals": lambda n: repeat_to("ABCDE ", n),
        "punctuation line": lambda n: repeat_to("!?.,;:-_/|", n),
        "Vietnamese syllable pairs": lambda n: repeat_to("lãi suất ", n),
        "CJK run (bigrams)": lambda n: "".join(chr(0x4E00 + i % 20000) for i in range(n)),
        "BOM run": lambda n: "\ufeff" * n,
    }
    return [Case("analysis", name, make, both, memory=True) for name, make in inputs.items()]


def text_path_cases() -> list[Case]:
    return [
        Case("sentences", "run of periods", lambda n: "." * n, sentence_spans),
        Case("sentences", "!? run then closing quotes", lambda n: "!?" * (n // 4) + '"' * (n // 2), sentence_spans),
        Case("sentences", "many short sentences", lambda n: repeat_to("a. ", n), sentence_spans),
        Case("sentences", "line separators", lambda n: repeat_to("a\u2028", n), sentence_spans),
        Case("language", "detect: combining flood", lambda n: repeat_to("\u0301\u0316", n, "a"), detect_language),
        Case("language", "detect: Vietnamese text", lambda n: repeat_to("Lãi sau thuế quý 2 ", n), detect_language),
    ]


def loader_cases() -> list[Case]:
    """The Markdown loader's line patterns, looked up by name (the loader is another module's)."""
    from regrag.corpus import load

    cases = []
    heading = getattr(load, "_HEADING", None)
    metadata = getattr(load, "_METADATA_LINE", None)
    if heading is not None:
        cases.append(Case("loader", "_HEADING: '# x' + spaces + 'y'", lambda n: "# x" + " " * n + "y", heading.match,
                          scale=0.02))
        cases.append(Case("loader", "_HEADING: '# x' + ' #' x n + 'y'", lambda n: "# x" + " #" * (n // 2) + "y",
                          heading.match, scale=0.02))
    if metadata is not None:
        cases.append(Case("loader", "_METADATA_LINE: 'a: x' + spaces + 'y'", lambda n: "a: x" + " " * n + "y",
                          metadata.match, scale=0.02))
    folder = Path(tempfile.mkdtemp(prefix="regrag-worst-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)

    def load_markdown(line: str) -> None:
        path = folder / "document.md"
        path.write_text(line + "\n\nbody\n", encoding="utf-8")
        load.load_corpus(path)

    cases.append(Case("loader", "load_corpus: heading line with spaces", lambda n: "# x" + " " * n + "y",
                      load_markdown, scale=0.02))
    return cases


def query_path_cases() -> list[Case]:
    from regrag import filters
    from regrag.corpus.model import Document, Section
    from regrag.retrieval.entities import EntityCatalog

    def parse_uncapped(text: str) -> None:
        saved = filters.MAX_FILTER_CHARACTERS
        filters.MAX_FILTER_CHARACTERS = 1 << 40  # the cap (1,000) lifted: this measures the parser
        try:
            filters.parse_filter(text)
        except InputError:
            pass  # a refusal is an outcome too: what is timed is getting to it
        finally:
            filters.MAX_FILTER_CHARACTERS = saved

    names = [f"Issuer {number:04d} Holdings" for number in range(1000)] + [f"T{number:03d}" for number in range(1000)]
    documents = [
        Document(f"d{number:04d}", "", "x", (Section("", 0, 1),),
                 (("issuer", names[number]), ("ticker", names[1000 + number])), "bench")
        for number in range(1000)
    ]
    catalog = EntityCatalog(documents)
    return [
        Case("filters", "parse_filter: 'x=a' + spaces + 'b'", lambda n: "x=a" + " " * n + "b", parse_uncapped),
        Case("filters", "parse_filter: long field, no operator", lambda n: "a" * n, parse_uncapped),
        Case("entities", "match: long query of words", lambda n: repeat_to("issuer holdings t001 ", n), catalog.match,
             scale=0.1),
        Case("entities", "match: combining flood query", lambda n: repeat_to("\u0301\u0316", n, "T001"), catalog.match,
             scale=0.1),
        Case("entities", "catalog: flood in a metadata name",
             lambda n: [Document("d", "", "x", (Section("", 0, 1),), (("issuer", "A" + "\u0301\u0316" * (n // 2)),),
                                 "bench")],
             EntityCatalog),
    ]


def best_time(function: Callable[[Any], object], value: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        function(value)
        best = min(best, time.perf_counter() - started)
    return best


def peak_memory(function: Callable[[Any], object], value: Any) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        function(value)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def growth(values: list[float]) -> float:
    """Growth per doubling over the whole range: (last / first) ** (1 / doublings)."""
    if values[0] <= 0:
        return float("nan")
    return (values[-1] / values[0]) ** (1 / (len(values) - 1))


def measure(case: Case, base: int, repeat: int, with_memory: bool, budget: float) -> dict[str, Any]:
    sizes = [max(1, int(base * case.scale * factor)) for factor in (1, 2, 4, 8)]
    case.run(case.make(min(sizes[0], 1000)))  # warm-up: caches and lazily built tables, not timed
    times: list[float] = []
    memory: list[int] = []
    for size in sizes:
        value = case.make(size)
        elapsed = best_time(case.run, value, repeat)
        times.append(elapsed)
        if with_memory and case.memory:
            memory.append(peak_memory(case.run, value))
        if elapsed > budget and size != sizes[-1]:
            break  # already too slow to go on: the growth so far tells
    result: dict[str, Any] = {
        "group": case.group, "case": case.name, "sizes": sizes[: len(times)], "seconds": times,
        "per_doubling": [later / earlier if earlier > 0 else float("nan") for earlier, later in zip(times, times[1:])],
        "growth": growth(times) if len(times) > 1 else float("nan"),
    }
    if memory:
        result["peak_bytes"] = memory
        result["memory_growth"] = growth([float(m) for m in memory]) if len(memory) > 1 else float("nan")
    return result


# --- every compiled pattern ---------------------------------------------------------------------


def regrag_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Every ``re.Pattern`` at module level in regrag (adapters skipped when their libraries are
    missing), plus the analyzer's patterns built on first use."""
    import regrag
    from regrag.text import language, normalize, tokenize

    found: dict[str, re.Pattern[str]] = {}
    for module_info in pkgutil.walk_packages(regrag.__path__, "regrag."):
        try:
            module = importlib.import_module(module_info.name)
        except Exception:  # noqa: BLE001 - an optional adapter whose library is not installed
            continue
        for attribute, value in sorted(vars(module).items()):
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                found[f"{module_info.name}.{attribute}"] = value
    chunk, atom = tokenize._patterns()
    found["regrag.text.tokenize._patterns()[0] (chunk)"] = chunk
    found["regrag.text.tokenize._patterns()[1] (atom)"] = atom
    found["regrag.text.normalize._joiner_pattern()"] = normalize._joiner_pattern()
    found["regrag.text.normalize._long_joining_run()"] = normalize._long_joining_run()
    found["regrag.text.language._maybe_vietnamese()"] = language._maybe_vietnamese()
    return sorted(found.items())


SWEEP_PIECES = (
    ("a", "!"), (" ", "x"), ("\t ", "x"), ("1.", "x"), ("1,", ""), ("#", " x"), (" #", "y"), ("A", "!"), ("A1", "-"),
    ("[1,", ""), ("1/", "x"), ("2024-", "x"), ("0", "g"), (".", ""), ("!?", '"'), ("\u0301", "a"), ("\u4e2d", "a"),
    ("ab", ":"), ("{q", "}"), ("-", "1"),
)


def sweep(pattern: re.Pattern[str], sizes: tuple[int, int], budget: float) -> tuple[float, str, list[float]]:
    """The worst growth per doubling over the sweep strings (search, match and finditer); when
    every string is too fast at the small size to measure (under 0.1 ms), the slowest one, with
    growth 0."""
    worst = (-1.0, "", [0.0, 0.0])
    slowest = (0.0, "", [0.0, 0.0])
    for piece, ending in SWEEP_PIECES:
        for prefix in ("", "# x", "a: x", "x=a", "http://"):
            timings = []
            for size in sizes:
                text = prefix + piece * (size // len(piece)) + ending
                started = time.perf_counter()
                pattern.search(text)
                pattern.match(text)
                for _match in pattern.finditer(text):
                    pass
                timings.append(time.perf_counter() - started)
                if timings[-1] > budget:
                    break
            shown = f"{prefix!r} + {piece!r} x n + {ending!r}"
            if timings[-1] > slowest[2][-1]:
                slowest = (0.0, shown, timings)
            if len(timings) == 1:
                per_doubling = float("inf")  # too slow at the small size already
            elif timings[0] > 1e-4:
                per_doubling = (timings[1] / timings[0]) ** (1 / 3)
            else:
                continue
            if per_doubling > worst[0]:
                worst = (per_doubling, shown, timings)
    return worst if worst[0] >= 0 else slowest


# --- report ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, default=125_000, help="n in characters (default 125,000: 8n = 1 M)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--flag", type=float, default=2.5, help="flag growth per doubling above this (default 2.5)")
    parser.add_argument("--budget", type=float, default=20.0, help="stop a case's sizes after a run this slow (s)")
    parser.add_argument("--only", default="", help="comma-separated substrings of group or case names")
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc peaks")
    parser.add_argument("--regex-sweep-only", action="store_true", help="only the sweep of compiled patterns")
    parser.add_argument("--no-regex-sweep", action="store_true", help="skip the sweep of compiled patterns")
    parser.add_argument("--json", default=None, help="write all results as JSON")
    parser.add_argument("--markdown", default=None, help="write the tables as Markdown")
    arguments = parser.parse_args(argv)

    results: list[dict[str, Any]] = []
    flagged: list[str] = []
    lines = ["| group | case | sizes (characters) | seconds (best of %d) | per doubling | growth | peak memory growth |"
             % arguments.repeat, "|---|---|---|---|---|---|---|"]
    if not arguments.regex_sweep_only:
        cases = analysis_cases() + text_path_cases() + loader_cases() + query_path_cases()
        wanted = [part for part in arguments.only.split(",") if part]
        if wanted:
            cases = [c for c in cases if any(w in c.group or w in c.name for w in wanted)]
        print(f"{'group':<10} {'case':<44} {'sizes':>24} {'seconds':>40} {'growth':>7} {'memory':>7}")
        for case in cases:
            result = measure(case, arguments.base, arguments.repeat, not arguments.no_memory, arguments.budget)
            results.append(result)
            # below a millisecond at n the ratios are timer noise: such a case is not flagged
            measurable = result["seconds"][0] >= 1e-3 or result["seconds"][-1] >= 1e-2
            mark = " FLAG" if (measurable and result["growth"] > arguments.flag) or len(result["seconds"]) < 4 else ""
            if mark:
                flagged.append(f"{case.group}: {case.name}")
            memory = f"{result['memory_growth']:.2f}" if "memory_growth" in result else "-"
            sizes = "/".join(f"{s:,}" for s in result["sizes"])
            seconds = " ".join(f"{t:.4f}" for t in result["seconds"])
            print(f"{case.group:<10} {case.name:<44} {sizes:>24} {seconds:>40} {result['growth']:7.2f} {memory:>7}{mark}",
                  flush=True)
            doublings = " ".join(f"{r:.2f}" for r in result["per_doubling"])
            lines.append(f"| {case.group} | {case.name}{' **FLAG**' if mark else ''} | {sizes} | {seconds} | {doublings} | "
                         f"{result['growth']:.2f} | {memory} |")
    sweep_lines = ["| pattern | worst input | seconds at 2,000 / 16,000 | per doubling |", "|---|---|---|---|"]
    if not arguments.no_regex_sweep:
        print()
        print("regex sweep: every compiled pattern, 20 adversarial strings x 5 prefixes, 2,000 and 16,000 characters")
        for name, pattern in regrag_patterns():
            per_doubling, worst_input, timings = sweep(pattern, (2_000, 16_000), arguments.budget)
            mark = " FLAG" if per_doubling > arguments.flag else ""
            if mark:
                flagged.append(f"regex: {name}")
            shown = " / ".join(f"{t:.4f}" for t in timings)
            print(f"  {name:<62} {per_doubling:6.2f}  {shown:>18}  {worst_input}{mark}", flush=True)
            results.append({"group": "regex", "case": name, "per_doubling": per_doubling, "worst_input": worst_input,
                            "seconds": timings})
            sweep_lines.append(f"| `{name}`{' **FLAG**' if mark else ''} | {worst_input} | {shown} | {per_doubling:.2f} |")
    print()
    print("flagged (growth per doubling above %.1f, or stopped early for time):" % arguments.flag)
    for item in flagged or ["(none)"]:
        print(f"  {item}")
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if arguments.markdown:
        Path(arguments.markdown).write_text("\n".join(lines) + "\n\n" + "\n".join(sweep_lines) + "\n", encoding="utf-8")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
