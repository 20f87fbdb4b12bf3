"""Fixtures of the command tests: an index directory built by ``regrag index``,
and ``python -m regrag`` run with standard error on a pseudo-terminal (the
progress line) or not."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from regrag.cli import main
from regrag.corpus.extract.pdf import available as pdf_available

REPO = Path(__file__).resolve().parents[2]
CORPUS = "corpora/regulations/documents"
# its PDF is indexed only with pdfminer.six (regrag[pdf]); without it the folder gives the seven others
REGULATION_DOCUMENTS = 8 if pdf_available() else 7


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def index_dir(tmp_path, capsys):
    directory = tmp_path / "index"
    status, out, _err = run(capsys, "index", CORPUS, "--out", directory)
    assert status == 0 and out.startswith(f"generation 1  ·  {REGULATION_DOCUMENTS} documents")
    return directory


def _run_with_stderr_on_a_terminal(*arguments: str, cwd: Path = REPO) -> tuple[int, bytes, bytes]:
    """``python -m regrag ARGUMENTS`` with standard error on a pseudo-terminal; (status, stdout, stderr)."""
    master, slave = pty.openpty()
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    process = subprocess.Popen([sys.executable, "-m", "regrag", *arguments], cwd=cwd, env=environment,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    out = process.stdout.read()
    process.wait(timeout=300)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child's side is closed and everything has been read
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    return process.returncode, out, err


def _run_plain(*arguments: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "regrag", *arguments], cwd=cwd, env=environment,
                          capture_output=True, timeout=300)


@pytest.fixture
def run_with_stderr_on_a_terminal():
    """``python -m regrag ARGUMENTS`` with standard error on a pseudo-terminal; (status, stdout, stderr)."""
    return _run_with_stderr_on_a_terminal


@pytest.fixture
def run_plain():
    """``python -m regrag ARGUMENTS``, output captured (standard error is not a terminal)."""
    return _run_plain


@pytest.fixture
def markdown_regulations(tmp_path) -> Path:
    """The regulations' Markdown files alone: for tests of what a command writes to standard error
    (progress), which must not depend on whether pdfminer.six is installed (without it the folder's
    PDF adds a 'not indexed' note)."""
    folder = tmp_path / "regulations-markdown"
    folder.mkdir()
    for source in sorted((REPO / CORPUS).glob("*.md")):
        shutil.copyfile(source, folder / source.name)
    return folder
