"""regrag promises Python >= 3.10 (pyproject.toml, README.md): no module may
use syntax or standard-library names that arrived in 3.11 or later (issue 12:
``hashlib.file_digest`` made every index load fail on 3.10). When a 3.10
interpreter is on the machine, the index round trip is also run under it."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for p in (REPO / "regrag").rglob("*.py"))

# Attributes and modules new in 3.11+ (the ones a standard-library-only
# program is likely to reach for); `module.name` or a bare module name.
NEWER = {
    "hashlib.file_digest", "datetime.UTC", "typing.Self", "typing.LiteralString", "typing.Never",
    "typing.assert_never", "typing.reveal_type", "typing.assert_type", "typing.dataclass_transform",
    "typing.Required", "typing.NotRequired", "typing.override", "typing.TypeVarTuple", "typing.Unpack",
    "enum.StrEnum", "enum.verify", "enum.ReprEnum", "asyncio.TaskGroup", "asyncio.timeout", "contextlib.chdir",
    "operator.call", "math.cbrt", "math.exp2", "math.sumprod", "itertools.batched", "inspect.getmembers_static",
    "tomllib", "wsgiref.types",
}
NEWER_BUILTINS = {"ExceptionGroup", "BaseExceptionGroup", "add_note"}


def _newer_names(tree: ast.AST) -> list[str]:
    found: list[str] = []
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in NEWER or alias.name in NEWER:
                    found.append(alias.name)
                aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if f"{node.module}.{alias.name}" in NEWER or node.module in NEWER:
                    found.append(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = aliases.get(node.value.id, node.value.id)
            if f"{module}.{node.attr}" in NEWER:
                found.append(f"{module}.{node.attr}")
        elif isinstance(node, ast.Attribute) and node.attr in NEWER_BUILTINS:
            found.append(node.attr)
        elif isinstance(node, ast.Name) and node.id in NEWER_BUILTINS:
            found.append(node.id)
    return found


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(REPO)) for p in SOURCES])
def test_module_parses_as_python_3_10_and_uses_no_newer_library_names(path):
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path), feature_version=(3, 10))  # e.g. except* is a SyntaxError
    assert _newer_names(tree) == []


def test_the_checker_sees_what_it_looks_for():
    tree = ast.parse("import hashlib, tomllib\nfrom typing import Self\nhashlib.file_digest(f, 'sha256')\n"
                     "raise ExceptionGroup('x', [])\n")
    assert _newer_names(tree) == ["tomllib", "typing.Self", "hashlib.file_digest", "ExceptionGroup"]
    with pytest.raises(SyntaxError):
        ast.parse("try:\n    pass\nexcept* ValueError:\n    pass\n", feature_version=(3, 10))


def _python_310() -> str | None:
    candidates = [os.environ.get("REGRAG_PYTHON310", ""), shutil.which("python3.10") or ""]
    candidates += sorted(str(p) for p in Path("/root/.pyenv/versions").glob("3.10.*/bin/python3.10"))
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            done = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 10))"],
                                  capture_output=True, text=True, timeout=60)
            if done.stdout.strip() == "True":
                return candidate
    return None


def test_index_round_trip_under_python_3_10(tmp_path):
    """Build, load (which checks every file's SHA-256) and verify an index with 3.10."""
    python = _python_310()
    if python is None:
        pytest.skip("no Python 3.10 interpreter on this machine (set REGRAG_PYTHON310)")
    environment = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH", str(REPO)))
    out = tmp_path / "index"

    def run(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([python, "-m", "regrag", *arguments], capture_output=True, text=True,
                              timeout=300, env=environment, cwd=tmp_path)

    built = run("index", str(REPO / "corpora" / "regulations" / "documents"), "--out", str(out))
    assert built.returncode == 0, built.stderr
    searched = run("search", "capital requirements", "--index", str(out), "--json", "-k", "3")
    assert searched.returncode == 0, searched.stderr
    verified = run("verify", str(out))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # The same ranking as this interpreter's (the analyzer records the Unicode
    # version of unicodedata, 13.0.0 on 3.10, so the index ids differ).
    here = subprocess.run([sys.executable, "-m", "regrag", "search", "capital requirements", "--corpus",
                           str(REPO / "corpora" / "regulations" / "documents"), "--json", "-k", "3"],
                          capture_output=True, text=True, timeout=300, env=environment)
    assert here.returncode == 0, here.stderr

    def ranking(output: str) -> list[tuple[str, float]]:
        return [(hit["passage_id"], hit["score"]) for hit in map(json.loads, output.splitlines())]

    assert ranking(searched.stdout) == ranking(here.stdout)


TIMES = ["2026-11-30T10:00:00Z", "2026-01-02T12:00:00.5Z", "2026-01-02T12:00:00.1234567+00:00",
         "2026-01-02T19:00:00+07:00", "2026-01-02 12:00:00,5-05:00", "2026-01-02T12Z", "2026-01-02T12:00+0530",
         "2026-01-02", "20261130T100000Z", "2026-W48-1T10:00:00+00:00", "2026-02-30T10:00:00Z",
         "2026-01-02T10:00:00", "2026-01-02T10:00:00+24:00"]
_PARSE_TIMES = ("import json, sys\nfrom regrag.io.clock import parse_timestamp\nout = []\n"
                "for t in json.loads(sys.argv[1]):\n    try: out.append(parse_timestamp(t).isoformat())\n"
                "    except Exception as e: out.append(type(e).__name__)\nprint(json.dumps(out))\n")


def test_as_of_times_are_read_alike_on_every_python():
    """``--as-of`` was read by ``datetime.fromisoformat``, which accepts more on 3.11
    (``.5``, basic and week formats) than on 3.10 (a fraction of 1 digit was refused)."""
    environment = dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH", str(REPO)))
    here = subprocess.run([sys.executable, "-c", _PARSE_TIMES, json.dumps(TIMES)], capture_output=True, text=True,
                          timeout=60, env=environment)
    parsed = json.loads(here.stdout)
    assert parsed[:8] == ["2026-11-30T10:00:00+00:00", "2026-01-02T12:00:00.500000+00:00",
                          "2026-01-02T12:00:00.123456+00:00", "2026-01-02T12:00:00+00:00",
                          "2026-01-02T17:00:00.500000+00:00", "2026-01-02T12:00:00+00:00",
                          "2026-01-02T06:30:00+00:00", "2026-01-02T23:59:59.999999+00:00"]
    assert parsed[8:] == ["InputError"] * 5
    python = _python_310()
    if python is not None:
        there = subprocess.run([python, "-c", _PARSE_TIMES, json.dumps(TIMES)], capture_output=True, text=True,
                               timeout=60, env=environment)
        assert json.loads(there.stdout) == parsed
