"""Fuzz regrag's input surfaces: the analyzer, the corpus loaders, queries, filters, the ledger
and the index manifest (targets: tests/fuzz/targets.py; seeds: tests/fuzz/seeds/<target>/).

    python3 bench/fuzz.py --list
    python3 bench/fuzz.py --target analyzer --seconds 300             # atheris if importable
    python3 bench/fuzz.py --target all --seconds 120 --engine builtin  # every target in turn
    python3 bench/fuzz.py --target query --cases 20000 --seed 7        # a fixed, repeatable run

Engines:

- ``atheris`` (coverage-guided, libFuzzer; ``pip install atheris``): each target runs in its own
  process for ``--seconds``, the seeds as its starting corpus; libFuzzer stops at the first
  finding and writes it to ``FINDINGS/<target>/crash-*`` (or ``timeout-*``).
- ``builtin`` (the standard library only): a deterministic mutation loop. Inputs come from a
  ``random.Random(--seed)``: bit and byte flips, inserts, deletions, duplicated and repeated
  chunks, splices of two corpus entries, and tokens of a per-target dictionary and of the
  hostile Unicode pieces of tests/strategies.py. An input joins the corpus when it makes the
  target refuse with a message not seen before (a cheap stand-in for coverage). With
  ``--cases`` the run is exactly repeatable.
- ``auto`` (default): atheris when it can be imported, else builtin.

A finding is any exception a target lets escape other than ``regrag.errors.InputError`` (and
its subclasses), including an ``AssertionError`` from an invariant the target checks; with the
builtin engine an input slower than ``--slow`` + ``--slow-per-kb`` x its size is a finding too
(analysis is linear, so a slow input is a super-linear path; bench/worst_case_analysis.py
measures the growth). Findings
are grouped by exception type and innermost regrag frame; for each group the shortest input
found is minimised (chunks removed while the same group reproduces) and written to
``FINDINGS/<target>/<group>.bin`` with the traceback beside it in ``<group>.txt``. A finding
worth keeping becomes a seed (and so a regression test: tests/fuzz/test_seeds.py).

Exit status: 0 when no target had a finding, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from regrag.errors import InputError  # noqa: E402
from tests.fuzz.targets import KNOWN_FINDINGS, REFUSALS, TARGETS, run_target, seed_directory  # noqa: E402

MAX_LENGTH = 64 * 1024
CORPUS_CAP = 2000

_JSON_TOKENS = (
    b"{", b"}", b"[", b"]", b'"', b":", b",", b"null", b"true", b"false", b"0", b"-0", b"1e400", b"-1",
    b"4294967296", b"99999999999999999999", b"1.5", b"NaN", b"Infinity", b'"\\ud800"', b'"\\u0000"', b"\\",
    b'"id"', b'"text"', b'"title"', b'"sections"', b'"metadata"', b'"_id"', b'"hash"', b'"sequence"',
    b'"previous"', b'"record"', b'"timestamp"', b'"format"', b'"files"', b'"regrag-index/3"', b'"bytes"',
    b'"sha256"', b'"document_count"', b'"average_length"', b"\n", b"\r\n", b"\xef\xbb\xbf", b"[" * 70,
)
_MARKDOWN_TOKENS = (
    b"# ", b"## ", b"###### ", b"####### ", b" #", b"---\n", b"```", b"~~~", b"title: ", b"issuer: ",
    b"effective_date: 2025-01-01", b"http://x", b"\n", b"\r\n", b"\r", b"\t", b" " * 64, b"\n\n",
    b"\xef\xbb\xbf", b"\xff\xfe",
)
_QUERY_TOKENS = (
    b"\n", b"=", b">=", b"<=", b"<", b">", b"language=zh", b"effective_date>=2025-01-01", b"issuer=",
    b"the", b"annual fee", b"margin interest rate", b"HPG", b"IT", b"\xe5\xb9\xb4\xe8\xb4\xb9", b"3.45%",
    b"2025-02-30", b"T+1", b"'s",
)
DICTIONARIES: dict[str, tuple[bytes, ...]] = {
    "analyzer": _QUERY_TOKENS,
    "jsonl": _JSON_TOKENS,
    "markdown": _MARKDOWN_TOKENS,
    "query": _QUERY_TOKENS,
    "filters": _QUERY_TOKENS,
    "ledger": _JSON_TOKENS,
    "manifest": _JSON_TOKENS,
}


def _hostile_pieces() -> tuple[bytes, ...]:
    from tests.strategies import HOSTILE_PIECES

    return tuple(piece.encode("utf-8") for piece in HOSTILE_PIECES)


def load_seeds(target: str) -> list[bytes]:
    folder = seed_directory() / target
    seeds = [path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()] if folder.is_dir() else []
    return seeds or [b""]


# --- the builtin mutation loop ------------------------------------------------------------------


class Mutator:
    """Byte-level mutations drawn from one seeded ``random.Random``."""

    def __init__(self, rng: random.Random, dictionary: tuple[bytes, ...], max_length: int) -> None:
        self.rng = rng
        self.dictionary = dictionary
        self.max_length = max_length

    def mutate(self, data: bytes, corpus: list[bytes]) -> bytes:
        buffer = bytearray(data)
        for _ in range(1 + self.rng.randrange(4)):
            self._one(buffer, corpus)
        return bytes(buffer[: self.max_length])

    def _position(self, buffer: bytearray) -> int:
        return self.rng.randrange(len(buffer) + 1)

    def _one(self, buffer: bytearray, corpus: list[bytes]) -> None:
        rng = self.rng
        choice = rng.randrange(10)
        if buffer and choice == 0:  # flip a bit
            position = rng.randrange(len(buffer))
            buffer[position] ^= 1 << rng.randrange(8)
        elif buffer and choice == 1:  # set a byte
            buffer[rng.randrange(len(buffer))] = rng.randrange(256)
        elif choice == 2:  # insert random bytes
            position = self._position(buffer)
            buffer[position:position] = bytes(rng.randrange(256) for _ in range(1 + rng.randrange(4)))
        elif buffer and choice == 3:  # delete a range
            start = rng.randrange(len(buffer))
            del buffer[start : start + 1 + rng.randrange(min(64, len(buffer) - start))]
        elif buffer and choice == 4:  # duplicate a range
            start = rng.randrange(len(buffer))
            chunk = buffer[start : start + 1 + rng.randrange(32)]
            position = self._position(buffer)
            buffer[position:position] = chunk
        elif choice in (5, 6):  # insert a dictionary token
            position = self._position(buffer)
            buffer[position:position] = rng.choice(self.dictionary)
        elif choice == 7 and len(corpus) > 1:  # splice with another input
            other = rng.choice(corpus)
            cut = self._position(buffer)
            start = rng.randrange(len(other) + 1)
            buffer[cut:] = other[start:]
        elif choice == 8:  # repeat a chunk many times (floods, long runs, long lines)
            if buffer:
                start = rng.randrange(len(buffer))
                chunk = bytes(buffer[start : start + 1 + rng.randrange(4)])
            else:
                chunk = rng.choice(self.dictionary)
            times = rng.choice((10, 100, 1000, 5000))
            position = self._position(buffer)
            buffer[position:position] = chunk * max(1, min(times, (self.max_length - len(buffer)) // max(1, len(chunk))))
        elif buffer and choice == 9:  # truncate
            del buffer[rng.randrange(len(buffer)) :]


@dataclass
class Finding:
    """One group of findings: the shortest input seen, its traceback, how often it was hit."""

    signature: str
    data: bytes
    report: str
    count: int = 1


@dataclass
class Outcome:
    """What one target run did."""

    target: str
    engine: str
    cases: int = 0
    refused: int = 0
    seconds: float = 0.0
    slowest: float = 0.0
    corpus: int = 0
    findings: dict[str, Finding] = field(default_factory=dict)


def _signature(error: BaseException) -> str:
    """Exception type plus the innermost frame in regrag or the targets."""
    frames = traceback.extract_tb(error.__traceback__)
    inside = [frame for frame in frames if "/regrag/" in frame.filename or "/tests/fuzz/" in frame.filename]
    frame = (inside or frames)[-1] if (inside or frames) else None
    where = f"{Path(frame.filename).name}:{frame.lineno}" if frame else "?"
    return f"{type(error).__name__}@{where}"


def _refusal_key(error: InputError) -> str:
    """A refusal's message with numbers and quoted parts removed: a new key means a new path."""
    message = str(error)
    kept = []
    quoted = False
    for character in message[:160]:
        if character in "'\"":
            quoted = not quoted
            continue
        if quoted or character.isdigit():
            continue
        kept.append(character)
    return f"{type(error).__name__}:{''.join(kept)}"


def _classify(target: str, data: bytes) -> tuple[str, str | None, str | None]:
    """('ok' | 'refused' | 'finding', refusal key, finding signature) for one input."""
    try:
        run_target(target, data)
    except InputError as error:
        return "refused", _refusal_key(error), None
    except Exception as error:  # noqa: BLE001 - every other exception (RecursionError too) is what we look for
        return "finding", None, _signature(error)
    return "ok", None, None


def minimise(target: str, data: bytes, signature: str, attempts: int = 300) -> bytes:
    """Remove chunks (halves, then smaller) while the input still gives ``signature``."""
    best = data
    chunk = max(1, len(best) // 2)
    tries = 0
    while chunk >= 1 and tries < attempts:
        position = 0
        changed = False
        while position < len(best) and tries < attempts:
            candidate = best[:position] + best[position + chunk :]
            tries += 1
            if _classify(target, candidate)[2] == signature:
                best = candidate
                changed = True
            else:
                position += chunk
        if not changed:
            chunk //= 2
    return best


def run_builtin(target: str, seconds: float, cases: int | None, seed: int, max_length: int,
                slow: float, slow_per_kb: float) -> Outcome:
    rng = random.Random(f"regrag-fuzz:{target}:{seed}")
    corpus = load_seeds(target)
    mutator = Mutator(rng, DICTIONARIES[target] + _hostile_pieces(), max_length)
    outcome = Outcome(target, "builtin")
    refusals: set[str] = set()
    started = time.monotonic()
    deadline = started + seconds
    queue = list(corpus)  # every seed is run once, unmutated, first
    while True:
        if cases is not None and outcome.cases >= cases:
            break
        if cases is None and time.monotonic() >= deadline:
            break
        data = queue.pop(0) if queue else mutator.mutate(rng.choice(corpus), corpus)
        began = time.perf_counter()
        try:
            run_target(target, data)
            kind = "ok"
        except InputError as error:  # a target lets none escape; counted all the same
            REFUSALS.append(error)
            kind = "ok"
        except Exception as error:  # noqa: BLE001 - a finding
            kind = "finding"
            _record(outcome, _signature(error), data, traceback.format_exc())
        elapsed = time.perf_counter() - began
        if REFUSALS:
            outcome.refused += 1
            keys = {_refusal_key(error) for error in REFUSALS} - refusals
            if keys:  # a refusal not seen before: keep the input to mutate further
                refusals.update(keys)
                if len(corpus) < CORPUS_CAP:
                    corpus.append(data)
        outcome.slowest = max(outcome.slowest, elapsed)
        budget = slow + slow_per_kb * len(data) / 1024
        if elapsed > budget and kind != "finding":
            _record(outcome, f"Slow@{target}", data,
                    f"took {elapsed:.2f} s for {len(data):,} bytes (budget {budget:.2f} s: --slow, --slow-per-kb)\n")
        if kind == "ok" and rng.random() < 0.01 and len(corpus) < CORPUS_CAP:
            corpus.append(data)
        outcome.cases += 1
    outcome.seconds = time.monotonic() - started
    outcome.corpus = len(corpus)
    return outcome


def _record(outcome: Outcome, signature: str, data: bytes, report: str) -> None:
    found = outcome.findings.get(signature)
    if found is None:
        outcome.findings[signature] = Finding(signature, data, report)
        return
    found.count += 1
    if len(data) < len(found.data):
        found.data, found.report = data, report


def write_findings(outcome: Outcome, directory: Path, minimise_inputs: bool) -> list[Path]:
    written = []
    folder = directory / outcome.target
    for signature in sorted(outcome.findings):
        finding = outcome.findings[signature]
        data = finding.data
        if minimise_inputs and not signature.startswith("Slow@"):
            data = minimise(outcome.target, data, signature)
        folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(signature.encode("utf-8")).hexdigest()[:16]
        (folder / f"{name}.bin").write_bytes(data)
        (folder / f"{name}.txt").write_text(
            f"{signature}\nhit {finding.count} time(s); input {len(data)} bytes (minimised from "
            f"{len(finding.data)}): {data[:200]!r}\n\n{finding.report}", encoding="utf-8")
        written.append(folder / f"{name}.bin")
    return written


# --- atheris --------------------------------------------------------------------------------------


def run_atheris_child(target: str, seconds: float, findings: Path, max_length: int) -> None:
    """In this process: instrument regrag and hand the target to libFuzzer (never returns)."""
    import atheris  # type: ignore[import-not-found]

    # regrag is imported already (the targets module imports regrag.errors, which loads the
    # package), so import hooks would miss it: load what the targets use, then instrument
    # every loaded function for coverage
    import regrag.audit.ledger  # noqa: F401
    import regrag.corpus.load  # noqa: F401
    import regrag.engine  # noqa: F401
    import regrag.retrieval.filters  # noqa: F401
    import regrag.index.codec  # noqa: F401
    import regrag.jsonl  # noqa: F401
    import regrag.text.analyzer  # noqa: F401

    atheris.instrument_all()

    def one_input(data: bytes) -> None:
        try:
            run_target(target, data)
        except InputError:
            pass

    work = findings / target / "corpus"
    work.mkdir(parents=True, exist_ok=True)
    seeds = findings / target / "seeds"  # the seeds less the known findings (libFuzzer stops at a crash)
    seeds.mkdir(parents=True, exist_ok=True)
    for path in sorted((seed_directory() / target).iterdir()):
        if path.is_file() and (target, path.name) not in KNOWN_FINDINGS:
            (seeds / path.name).write_bytes(path.read_bytes())
    arguments = [sys.argv[0], f"-max_total_time={int(seconds)}", f"-max_len={max_length}",
                 f"-artifact_prefix={findings / target}/", "-timeout=20", "-rss_limit_mb=4096",
                 "-print_final_stats=1", str(work), str(seeds)]
    atheris.Setup(arguments, one_input)
    atheris.Fuzz()


def run_atheris(target: str, seconds: float, findings: Path, max_length: int) -> Outcome:
    """Run one target under atheris in a child process; parse libFuzzer's final statistics."""
    started = time.monotonic()
    command = [sys.executable, str(Path(__file__).resolve()), "--atheris-child", "--target", target,
               "--seconds", str(seconds), "--findings", str(findings), "--max-length", str(max_length)]
    completed = subprocess.run(command, capture_output=True, text=True, errors="replace")
    outcome = Outcome(target, "atheris", seconds=time.monotonic() - started)
    log = completed.stderr
    (findings / target).mkdir(parents=True, exist_ok=True)
    (findings / target / "atheris.log").write_text(log[-200_000:], encoding="utf-8")
    for line in log.splitlines():
        if line.startswith("stat::number_of_executed_units:"):
            outcome.cases = int(line.split(":")[-1])
        elif line.startswith("Done ") and " runs in " in line and not outcome.cases:
            outcome.cases = int(line.split()[1])
    corpus = findings / target / "corpus"
    outcome.corpus = len(list(corpus.iterdir())) if corpus.is_dir() else 0
    for artifact in sorted((findings / target).glob("*-*")):
        if artifact.name.split("-")[0] in ("crash", "timeout", "oom", "leak", "slow"):
            outcome.findings[artifact.name] = Finding(artifact.name, artifact.read_bytes(), log[-4000:])
    if completed.returncode != 0 and not outcome.findings:
        outcome.findings["atheris-exit"] = Finding("atheris-exit", b"", log[-4000:])
    return outcome


# --- command line --------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="all", help=f"one of {', '.join(TARGETS)}, or all (default)")
    parser.add_argument("--seconds", type=float, default=60.0, help="time per target (default 60)")
    parser.add_argument("--cases", type=int, default=None, help="builtin: run exactly this many inputs per target")
    parser.add_argument("--engine", choices=("auto", "atheris", "builtin"), default="auto")
    parser.add_argument("--seed", type=int, default=0, help="builtin: the random seed (default 0)")
    parser.add_argument("--findings", default="fuzz-findings", help="where findings go (default ./fuzz-findings)")
    parser.add_argument("--max-length", type=int, default=MAX_LENGTH, help=f"longest input (default {MAX_LENGTH})")
    parser.add_argument("--slow", type=float, default=0.5,
                        help="builtin: an input slower than SLOW + SLOW_PER_KB x its size in KB is a finding (0.5 s)")
    parser.add_argument("--slow-per-kb", type=float, default=0.15, help="see --slow (default 0.15 s per KB)")
    parser.add_argument("--no-minimise", action="store_true", help="write findings as found")
    parser.add_argument("--json", default=None, help="also write the summary to this JSON file")
    parser.add_argument("--list", action="store_true", help="list the targets and their seed counts")
    parser.add_argument("--atheris-child", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if arguments.list:
        for name in TARGETS:
            print(f"{name:<10} {len(load_seeds(name))} seeds")
        return 0
    targets = list(TARGETS) if arguments.target == "all" else [arguments.target]
    unknown = [name for name in targets if name not in TARGETS]
    if unknown:
        parser.error(f"unknown target {unknown[0]!r}; choose from {', '.join(TARGETS)} or all")
    findings = Path(arguments.findings).resolve()
    if arguments.atheris_child:
        run_atheris_child(targets[0], arguments.seconds, findings, arguments.max_length)
        return 0
    engine = arguments.engine
    if engine == "auto":
        try:
            import atheris  # type: ignore[import-not-found]  # noqa: F401

            engine = "atheris" if arguments.cases is None else "builtin"
        except ImportError:
            engine = "builtin"
    outcomes = []
    for name in targets:
        if engine == "atheris":
            outcome = run_atheris(name, arguments.seconds, findings, arguments.max_length)
            written = [findings / name / key for key in sorted(outcome.findings)]
        else:
            outcome = run_builtin(name, arguments.seconds, arguments.cases, arguments.seed, arguments.max_length,
                                  arguments.slow, arguments.slow_per_kb)
            written = write_findings(outcome, findings, not arguments.no_minimise)
        outcomes.append(outcome)
        print(f"{name:<10} {outcome.engine:<8} {outcome.cases:>9,} cases in {outcome.seconds:7.1f} s  "
              f"refused {outcome.refused:>8,}  slowest {outcome.slowest * 1000:8.1f} ms  corpus {outcome.corpus:>5}  "
              f"findings {len(outcome.findings)}", flush=True)
        for signature, path in zip(sorted(outcome.findings), written):
            print(f"    {signature}  x{outcome.findings[signature].count}  -> {path}")
    if arguments.json:
        Path(arguments.json).write_text(json.dumps([
            {"target": o.target, "engine": o.engine, "cases": o.cases, "refused": o.refused, "seconds": round(o.seconds, 1),
             "slowest_ms": round(o.slowest * 1000, 1), "findings": sorted(o.findings)} for o in outcomes
        ], indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 1 if any(o.findings for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
