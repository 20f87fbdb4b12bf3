"""Every shell block of the documentation runs, so the docs cannot go stale.

Collected: each fenced ```sh, ```bash, ```shell or ```console block of
README.md, docs/*.md, golden/README.md, bench/README.md and corpora/*/README.md,
one test per block, in document order (a block may use what an earlier block
of the same file made, e.g. /tmp/regrag-index).

How a block runs:
- with bash, ``set -e -o pipefail``, from a fresh temporary copy of the
  repository (one copy per Markdown file, shared by its blocks in order),
  with ``../shared`` next to the copy pointing at the real ``../shared``
  (the data sets) when it exists, ``python3``/``python`` being the test's
  own interpreter, and ``LC_ALL=C.UTF-8``;
- every ``/tmp/`` in a block (and in its shown output) is rewritten to a
  private temporary directory of that file, so parallel or repeated runs
  never collide;
- ``python3 -m pip install ...`` is replaced by ``true``: the tests run in
  the environment those commands make (``.ci/run`` installs it).

Annotations, on HTML comment lines (invisible on GitHub) right before the
opening fence, several allowed:
- ``<!-- docs-test: exit N -->``: the block's exit status must be N (default 0);
- ``<!-- docs-test: skip REASON -->``: not run (the reason is the skip message);
- ``<!-- docs-test: slow -->``: run only when ``REGRAG_DOCS_SLOW=1`` (minutes of work);
- ``<!-- docs-test: needs MODULE[,MODULE] -->``: skipped when a module cannot be
  imported (the optional adapters or the bench extras).
Within an ``sh`` block, a one-line command may end in ``# exit N``: that
command must exit with N and the block goes on.

Shown output: in a ``console`` block, lines starting with ``$ `` are commands
(a trailing backslash continues one onto the next line) and the lines after
each, up to the next ``$ ``, are its expected standard output and error
(2>&1), compared exactly; a line ``...`` matches any number of lines.

Every test carries the pytest marker ``docs_commands`` (``-m "not docs_commands"``
leaves them out); slow blocks also carry ``docs_slow``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# ../shared holds the data sets (SciFact, XQuAD); a git worktree may sit one level deeper than the clone
SHARED = next((path for path in (Path(os.environ.get("REGRAG_SHARED", REPO.parent / "shared")),
                                 REPO.parent.parent / "shared") if path.is_dir()), REPO.parent / "shared")
LANGUAGES = {"sh", "bash", "shell", "console"}
BLOCK_TIMEOUT = 900
_ANNOTATION = re.compile(r"^<!--\s*docs-test:\s*(?P<kind>exit|skip|slow|needs)\b\s*(?P<value>.*?)\s*-->\s*$")
_FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<language>[\w-]*)")
_PIP_INSTALL = re.compile(r"\bpython3?\s+-m\s+pip\s+install\b[^&|;\n]*")
_EXIT_COMMENT = re.compile(r"^(?P<command>.*\S)\s+#\s*exit\s+(?P<status>\d+)\s*$")


def documentation_files() -> list[Path]:
    names = ["README.md", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md")),
             "golden/README.md", "bench/README.md",
             *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "corpora").glob("*/README.md"))]
    return [REPO / name for name in names if (REPO / name).is_file()]


@dataclass(frozen=True)
class Block:
    """One fenced shell block and its annotations."""

    path: str  # relative to the repository
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    exit_status: int = 0
    skip: str | None = None
    slow: bool = False
    needs: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.path}:{self.line}"


def parse_blocks(path: Path, root: Path = REPO) -> list[Block]:
    """The shell blocks of one Markdown file, in order, with the annotations above each."""
    lines = path.read_text(encoding="utf-8").split("\n")
    relative = path.relative_to(root).as_posix()
    blocks: list[Block] = []
    pending: dict = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        annotation = _ANNOTATION.match(line.strip())
        if annotation:
            kind, value = annotation.group("kind"), annotation.group("value")
            if kind == "exit":
                pending["exit_status"] = int(value)
            elif kind == "skip":
                pending["skip"] = value or "skipped"
            elif kind == "slow":
                pending["slow"] = True
            else:
                pending["needs"] = tuple(name.strip() for name in value.split(",") if name.strip())
            index += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            end = index + 1
            while end < len(lines) and not lines[end].startswith(fence.group("fence")):
                end += 1
            language = fence.group("language")
            if language in LANGUAGES:
                blocks.append(Block(relative, index + 1, language, "\n".join(lines[index + 1:end]) + "\n", **pending))
            pending = {}
            index = end + 1
            continue
        if line.strip():
            pending = {}  # an annotation applies only to the block right below it
        index += 1
    return blocks


ALL_BLOCKS = [block for path in documentation_files() for block in parse_blocks(path)]


class Workspace:
    """A temporary copy of the repository for one Markdown file, and its private /tmp."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="regrag-docs-"))
        self.repo = self.root / "repo"
        self.tmp = self.root / "tmp"
        self.bin = self.root / "bin"
        shutil.copytree(REPO, self.repo, symlinks=True, ignore=shutil.ignore_patterns(
            ".git", ".venv*", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis", ".benchmarks", "build", "dist"))
        self.tmp.mkdir()
        self.bin.mkdir()
        for name in ("python3", "python"):
            # a wrapper, not a symlink: a symlink to a virtual environment's python in another folder
            # starts the base interpreter (no pyvenv.cfg beside the link), without the venv's packages
            wrapper = self.bin / name
            wrapper.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} \"$@\"\n", encoding="utf-8")
            wrapper.chmod(0o755)
        if SHARED.is_dir():
            (self.root / "shared").symlink_to(SHARED)

    def rewrite(self, text: str) -> str:
        return text.replace("/tmp/", f"{self.tmp}/")

    def environment(self) -> dict[str, str]:
        environment = dict(os.environ)
        environment.update(PATH=f"{self.bin}{os.pathsep}{environment.get('PATH', '')}", PYTHONPATH=str(self.repo),
                           LC_ALL="C.UTF-8", TMPDIR=str(self.tmp), PYTHONDONTWRITEBYTECODE="1", COLUMNS="80")
        environment.pop("PYTHONUTF8", None)
        return environment

    def run(self, script: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", script], cwd=self.repo, env=self.environment(), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=BLOCK_TIMEOUT)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


_WORKSPACES: dict[str, Workspace] = {}


@pytest.fixture(scope="module", autouse=True)
def _remove_workspaces():
    yield
    for workspace in _WORKSPACES.values():
        workspace.remove()
    _WORKSPACES.clear()


def workspace_for(path: str) -> Workspace:
    if path not in _WORKSPACES:
        _WORKSPACES[path] = Workspace()
    return _WORKSPACES[path]


def shell_script(text: str) -> str:
    """An sh block as a bash script: pip installs are no-ops, ``# exit N`` lines are checked and go on."""
    out = ["set -e -o pipefail"]
    for line in text.split("\n"):
        line = _PIP_INSTALL.sub("true", line)
        expected = _EXIT_COMMENT.match(line)
        if expected and not line.rstrip().endswith("\\"):
            status = expected.group("status")
            out.append(f"_status=0; {expected.group('command')} || _status=$?; "
                       f"if [ \"$_status\" -ne {status} ]; then echo \"docs-test: expected exit {status}, got $_status: \"{_quote(expected.group('command'))} >&2; exit 99; fi")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def console_steps(text: str) -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` of a console block."""
    steps: list[tuple[str, list[str]]] = []
    lines = text.rstrip("\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.startswith("$ "):
            if steps:
                steps[-1][1].append(line)
            index += 1
            continue
        command = line[2:]
        while command.endswith("\\") and index + 1 < len(lines):
            index += 1
            command = command[:-1] + "\n" + lines[index]
        steps.append((command, []))
        index += 1
    return steps


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line; a line ``...`` stands for any number of lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(output_matches(expected[1:], actual[start:]) for start in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and output_matches(expected[1:], actual[1:])


def _marks(block: Block):
    marks = [pytest.mark.docs_commands]
    if block.slow:
        marks.append(pytest.mark.docs_slow)
    if "sentence_transformers" in block.needs:
        marks.append(pytest.mark.sentence_transformers)  # run by .ci/run's second step (the test-labse extra)
    return marks


@pytest.mark.parametrize("block", [pytest.param(b, id=b.name, marks=_marks(b)) for b in ALL_BLOCKS])
def test_documented_commands_run(block: Block):
    if block.skip:
        pytest.skip(f"{block.name}: {block.skip}")
    if block.slow and os.environ.get("REGRAG_DOCS_SLOW") != "1":
        pytest.skip(f"{block.name}: slow (minutes); REGRAG_DOCS_SLOW=1 runs it")
    missing = [name for name in block.needs if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{block.name}: needs {', '.join(missing)} (an optional extra)")
    workspace = workspace_for(block.path)
    if block.language != "console":
        result = workspace.run(shell_script(workspace.rewrite(block.text)))
        assert result.returncode == block.exit_status, (
            f"{block.name}: exit status {result.returncode}, documented {block.exit_status}\n"
            + result.stdout.decode("utf-8", "replace")[-4000:])
        return
    steps = console_steps(block.text)
    assert steps, f"{block.name}: a console block without a '$ ' command"
    for number, (command, expected) in enumerate(steps):
        last = number == len(steps) - 1
        result = workspace.run(workspace.rewrite(_PIP_INSTALL.sub("true", command)))
        wanted_status = block.exit_status if last else 0
        expected_status = _EXIT_COMMENT.match(command.split("\n")[-1])
        if expected_status:
            wanted_status = int(expected_status.group("status"))
        actual = result.stdout.decode("utf-8", "replace").rstrip("\n").split("\n") if result.stdout else []
        assert result.returncode == wanted_status, (
            f"{block.name}: `{command}` exit status {result.returncode}, documented {wanted_status}\n" + "\n".join(actual))
        shown = [workspace.rewrite(line) for line in expected]
        assert output_matches(shown, actual), (
            f"{block.name}: `{command}` printed\n" + "\n".join(actual) + "\n--- the docs show ---\n" + "\n".join(shown))


# --- the collector and the conventions themselves ---------------------------------------------


def test_the_conventions_are_parsed(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n\n<!-- docs-test: exit 1 -->\n<!-- docs-test: needs faiss, torch -->\n```sh\nfalse\n```\n\n"
                    "<!-- docs-test: skip no network -->\n\n```console\n$ echo a\na\n```\n```python\nx\n```\n"
                    "<!-- docs-test: slow -->\n```bash\nsleep 1\n```\n", encoding="utf-8")
    blocks = parse_blocks(page, tmp_path)
    assert [(b.line, b.language, b.exit_status, b.skip, b.slow, b.needs) for b in blocks] == [
        (5, "sh", 1, None, False, ("faiss", "torch")),
        (11, "console", 0, "no network", False, ()),
        (19, "bash", 0, None, True, ()),
    ]


def test_console_steps_and_wildcards():
    steps = console_steps("$ echo a \\\n  b\na b\n$ true\n")
    assert steps == [("echo a \n  b", ["a b"]), ("true", [])]
    assert output_matches(["x", "...", "z"], ["x", "1", "2", "z"]) and output_matches(["..."], [])
    assert not output_matches(["x"], ["x", "y"]) and not output_matches(["x", "...", "z"], ["x", "y"])


def test_shell_script_rewrites_installs_and_exit_comments():
    script = shell_script('python3 -m pip install -e ".[bench]" && echo ok\nfalse   # exit 1\necho after\n')
    assert 'true&& echo ok' in script.replace(" &&", "&&")
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == "ok\nafter\n"
    wrong = subprocess.run(["bash", "-c", shell_script("true   # exit 2\necho never\n")], capture_output=True, text=True,
                           timeout=60)
    assert wrong.returncode == 99 and "expected exit 2, got 0" in wrong.stderr and "never" not in wrong.stdout


def test_every_documentation_file_with_shell_blocks_is_collected():
    collected = {block.path for block in ALL_BLOCKS}
    assert {"README.md", "docs/evaluation.md", "docs/cli.md"} <= collected
