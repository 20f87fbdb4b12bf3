"""Progress lines (regrag/progress.py): drawn on standard error only when it
is a terminal (tested through a pseudo-terminal), silenced by --quiet, and
never a byte of difference on standard output or in what is written."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from regrag.progress import Progress, StagedProgress, format_duration, format_line

REPO = Path(__file__).resolve().parents[1]
REGULATIONS = REPO / "corpora" / "regulations"


def run_with_stderr_on_a_terminal(*arguments: str, cwd: Path = REPO) -> tuple[int, bytes, bytes]:
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


def run_plain(*arguments: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "regrag", *arguments], cwd=cwd, env=environment,
                          capture_output=True, timeout=300)


def test_search_corpus_progress_on_a_terminal_only_and_stdout_unchanged():
    arguments = ("search", "liquidity coverage ratio", "--corpus", str(REGULATIONS / "documents"), "--json")
    status, out, err = run_with_stderr_on_a_terminal(*arguments)
    plain = run_plain(*arguments)
    assert status == plain.returncode == 0
    assert out == plain.stdout != b""  # the same bytes, terminal or not
    assert plain.stderr == b""  # not a terminal: no progress
    assert err.startswith(b"\rindexing: ") and b" documents (" in err and b"building the postings" in err
    assert err.endswith(b"\r")  # the line is erased at the end, nothing is left behind
    assert b"\n" not in err.replace(b"\r\n", b"")  # never a new line of its own
    quiet_status, quiet_out, quiet_err = run_with_stderr_on_a_terminal(*arguments, "--quiet")
    assert quiet_status == 0 and quiet_out == out and quiet_err == b""


def test_index_progress_and_the_index_written_is_the_same(tmp_path):
    documents = str(REGULATIONS / "documents")
    status, out, err = run_with_stderr_on_a_terminal("index", documents, "--out", str(tmp_path / "terminal"))
    plain = run_plain("index", documents, "--out", str(tmp_path / "plain"))
    assert status == plain.returncode == 0 and plain.stderr == b""
    assert b"\rindexing: " in err
    # the summary is the same but for the publishing time
    assert out.splitlines()[:3] == plain.stdout.splitlines()[:3]
    assert run_plain("verify", "--quick", str(tmp_path / "terminal")).returncode == 0


def test_eval_progress_has_a_line_per_stage():
    status, out, err = run_with_stderr_on_a_terminal("eval", "--beir", str(REGULATIONS), "--method", "bm25", "--json")
    plain = run_plain("eval", "--beir", str(REGULATIONS), "--method", "bm25", "--json")
    assert status == plain.returncode == 0
    # without a terminal, standard error holds only the timings line (kept out of the canonical report)
    assert plain.stderr.startswith(b"regrag: timings: ") and plain.stderr.count(b"\n") == 1
    assert b"\rindexing: " in err and b"\rbm25 queries: " in err
    # the canonical report is byte-identical with and without the progress line
    assert out == plain.stdout


def test_golden_record_progress_and_identical_file(tmp_path):
    queries = str(REGULATIONS / "queries.jsonl")
    documents = str(REGULATIONS / "documents")
    status, _out, err = run_with_stderr_on_a_terminal("golden", "record", queries, "--out", str(tmp_path / "a.golden"),
                                                      "--corpus", documents)
    plain = run_plain("golden", "record", queries, "--out", str(tmp_path / "b.golden"), "--corpus", documents)
    assert status == plain.returncode == 0 and plain.stderr == b""
    assert b"\rrecording: " in err and b" queries (100%)" in err
    assert (tmp_path / "a.golden").read_bytes() == (tmp_path / "b.golden").read_bytes()


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_line_is_rate_limited_and_erased():
    now = [0.0]
    stream = FakeTerminal()
    progress = Progress("indexing", "documents", stream=stream, interval=1.0, clock=lambda: now[0])
    now[0] = 0.5
    progress(1, 4)  # first call: drawn
    now[0] = 0.9
    progress(2, 4)  # within the interval: not drawn
    now[0] = 2.0
    progress(3, 4)
    progress(4, 4)  # the last item is always drawn
    progress.close()
    assert stream.getvalue() == (
        "\rindexing: 1/4 documents (25%)  2.0/s  about 2 s left"
        "\rindexing: 3/4 documents (75%)  1.5/s  about 1 s left"
        "\rindexing: 4/4 documents (100%)  2.0/s" + " " * 15 +  # padded over the longer line before
        "\r" + " " * 37 + "\r")


def test_not_a_terminal_or_quiet_writes_nothing():
    for stream, enabled in ((io.StringIO(), True), (FakeTerminal(), False)):
        with Progress("indexing", stream=stream, enabled=enabled) as progress:
            progress(1, 1)
        assert stream.getvalue() == ""


def test_a_broken_terminal_does_not_stop_the_work():
    class Broken(FakeTerminal):
        def write(self, _text):
            raise OSError(5, "Input/output error")

    progress = Progress("indexing", stream=Broken())
    progress(1, 2)  # no exception
    assert not progress.enabled


def test_staged_progress_starts_a_line_per_stage():
    stream = FakeTerminal()
    with StagedProgress(stream=stream, interval=0.0, clock=lambda: 1.0) as progress:
        progress("indexing", 1, 1)
        progress("bm25 queries", 1, 2)
    text = stream.getvalue()
    assert "\rindexing: 1/1 (100%)" in text and "\rbm25 queries: 1/2 (50%)" in text
    assert text.index("indexing") < text.index("bm25 queries")


@pytest.mark.parametrize("seconds, text", [(0.4, "0 s"), (59.4, "59 s"), (61, "1 min 01 s"), (3725, "1 h 02 min")])
def test_durations(seconds, text):
    assert format_duration(seconds) == text


def test_unknown_total():
    assert format_line("loading", "files", 7, 0, 2.0) == "loading: 7 files  3.5/s"
