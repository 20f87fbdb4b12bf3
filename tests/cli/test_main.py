"""What main() does around every command (regrag/cli/output.py, docs/cli.md):
failed writes to standard output or error, Ctrl-C, --version, a bare
``regrag``, and the rule for arguments under a non-UTF-8 locale. All run
real subprocesses: the interpreter's own decoding of argv and its flush at
exit are part of what is tested. Also: bad usage of any command is one line
and exit status 2."""

from __future__ import annotations

import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from regrag import __version__
from regrag.cli import main

REPO = Path(__file__).resolve().parents[2]
REGULATIONS = str(REPO / "corpora" / "regulations" / "documents")


def run(capsys, *arguments):
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["search", "x", "--method", "nope"], "invalid choice"),
        (["search", "x", "--filter", "date>=soon"], "needs a date"),
        (["search", "x", "--corpus", "/no/such/place"], "/no/such/place"),
        (["search", "x", "-k", "0"], "k must be a positive integer"),
        (["search", "x", "--k1", "-1"], "k1"),
        (["explain", "x", "missing#1"], "no passage"),
        (["eval", "--beir", "/no/such/beir"], "not a BEIR folder"),
        (["frobnicate"], "invalid choice"),
        # a bare `regrag` prints the usage and a hint: tests/test_cli_run.py::test_bare_regrag_prints_usage_and_a_hint
    ],
)
def test_bad_usage_exits_2_with_one_line(capsys, arguments, message):
    status, out, err = run(capsys, *arguments)
    assert status == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def regrag(*arguments, env=None, **options):
    environment = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run([sys.executable, "-m", "regrag", *arguments], env=environment,
                          capture_output=options.pop("capture_output", True), timeout=120, **options)


def one_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8")
    assert text.count("\n") == 1 and text.endswith("\n"), text
    assert "Traceback" not in text and "Exception ignored" not in text, text
    return text


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("cli-run") / "index"
    result = regrag("index", REGULATIONS, "--out", str(directory))
    assert result.returncode == 0, result.stderr
    return str(directory)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("command", [("verify", "--quick"), ("search", "fee", "--index")])
def test_full_disk_on_stdout_is_one_line_and_status_2(index_dir, command):
    with open("/dev/full", "wb") as full:
        result = regrag(*command, index_dir, stdout=full, stderr=subprocess.PIPE, capture_output=False)
    assert result.returncode == 2  # was a traceback and 1, which verify means as "damaged"
    assert one_line(result.stderr) == "regrag: error: cannot write to standard output: No space left on device\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_help_and_version_to_a_full_disk_are_status_2():
    with open("/dev/full", "wb") as full:
        for flag in ("--help", "--version"):
            result = regrag(flag, stdout=full, stderr=subprocess.PIPE, capture_output=False)
            assert result.returncode == 2, flag
            one_line(result.stderr)


def test_closed_pipe_is_one_line_and_status_2(index_dir):
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will ever read: the first write fails with EPIPE
    try:
        result = regrag("verify", "--quick", index_dir, stdout=write_end, stderr=subprocess.PIPE, capture_output=False)
    finally:
        os.close(write_end)
    assert result.returncode == 2
    assert one_line(result.stderr) == "regrag: error: cannot write to standard output: Broken pipe\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_failing_stderr_still_gives_status_2_without_hanging():
    with open("/dev/full", "wb") as full:
        result = regrag("search", "fee", "--method", "nope", stdout=subprocess.PIPE, stderr=full, capture_output=False)
    assert result.returncode == 2 and result.stdout == b""


def test_closed_stdout_is_refused():
    result = regrag("search", "fee", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, capture_output=False,
                    preexec_fn=lambda: os.close(1))
    assert result.returncode == 2
    assert one_line(result.stderr) == "regrag: error: standard output is closed\n"


def wait_until_reading_standard_input(process, timeout=60.0):
    """Return once the child is blocked in read(0, ...), so the signal lands in the read and
    not in the imports (a fixed one-second sleep was too short on a loaded machine). Where the
    kernel cannot say (not x86-64 Linux, or /proc/PID/syscall unreadable), wait one second."""
    syscall = Path(f"/proc/{process.pid}/syscall")
    if platform.machine() != "x86_64" or not sys.platform.startswith("linux"):
        time.sleep(1.0)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            fields = syscall.read_text().split()
        except OSError:
            time.sleep(1.0)
            return
        if fields[:2] == ["0", "0x0"]:  # x86-64 system call 0 is read(); its first argument is the descriptor
            return
        time.sleep(0.05)


def test_ctrl_c_is_one_line_and_status_130():
    # verify-proof - blocks reading standard input, so the signal arrives at a known place
    environment = dict(os.environ, PYTHONPATH=str(REPO))
    # the child starts with Ctrl-C's default action, whatever this process inherited: a shell without job
    # control starts background commands (``cmd &``) with SIGINT ignored, Python then leaves it ignored,
    # and the child would never see the signal (it read an end of file instead, or waited forever)
    process = subprocess.Popen([sys.executable, "-m", "regrag", "verify-proof", "-"], env=environment,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_until_reading_standard_input(process)
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)  # standard input stays open until the child has exited: no end of file first
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130
    assert out == b"" and one_line(err) == "regrag: interrupted\n"


def test_keyboard_interrupt_inside_a_command_is_130(monkeypatch, capsys):
    from regrag import cli
    from regrag.cli import index

    def interrupted(_arguments):
        raise KeyboardInterrupt

    monkeypatch.setattr(index, "run_verify", interrupted)  # the handler "regrag verify" registers
    assert cli.main(["verify", "nowhere"]) == 130
    assert capsys.readouterr().err == "regrag: interrupted\n"


def test_version():
    result = regrag("--version")
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout.decode() == f"regrag {__version__} (Python {sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro})\n"


@pytest.mark.parametrize("arguments", [(), ("--quiet",)])
def test_bare_regrag_prints_usage_and_a_hint(arguments):
    result = regrag(*arguments)
    assert result.returncode == 2 and result.stdout == b""
    err = result.stderr.decode()
    assert err.startswith("usage: regrag [-h] [--version] [--quiet]")
    assert err.endswith("regrag: error: a command is required; 'regrag --help' lists the commands, "
                        "'regrag COMMAND --help' shows one command's options\n")
    assert "Traceback" not in err


def test_quiet_before_or_after_the_command(capsys):
    from regrag.cli import main

    assert main(["--quiet", "search", "fee", "-k", "1", "--json"]) == 0
    before = capsys.readouterr().out
    assert main(["search", "fee", "-k", "1", "--json", "--quiet"]) == 0
    assert capsys.readouterr().out == before != ""
    assert main(["golden", "verify", "nowhere.golden", "-q"]) == 2  # nested subcommands take it too


QUERY = "金莲白金信用卡的年费是多少？"


def _euc_jp_environment(tmp_path) -> dict[str, str] | None:
    """LC_ALL=ja_JP.EUC-JP, from the system's locales or compiled into tmp_path (LOCPATH); None if impossible."""
    probe = [sys.executable, "-c", "import sys; print(sys.getfilesystemencoding())"]
    candidates = [{"LC_ALL": "ja_JP.EUC-JP"}]
    if shutil.which("localedef"):
        target = tmp_path / "locales"
        target.mkdir()
        made = subprocess.run(["localedef", "-i", "ja_JP", "-f", "EUC-JP", str(target / "ja_JP.EUC-JP")],
                              capture_output=True, timeout=120)
        if made.returncode in (0, 1) and (target / "ja_JP.EUC-JP").exists():  # 1: warnings only
            candidates.append({"LC_ALL": "ja_JP.EUC-JP", "LOCPATH": str(target)})
    for candidate in candidates:
        environment = dict(os.environ, PYTHONUTF8="0", **candidate)
        environment.pop("PYTHONIOENCODING", None)
        found = subprocess.run(probe, env=environment, capture_output=True, text=True, timeout=60)
        if found.stdout.strip() == "euc_jp":
            return {"PYTHONUTF8": "0", **candidate}
    return None


def test_non_utf8_locale_refuses_a_non_ascii_query_and_records_nothing(tmp_path):
    environment = _euc_jp_environment(tmp_path)
    if environment is None:
        pytest.skip("the ja_JP.EUC-JP locale is neither installed nor can be compiled with localedef "
                    "(.ci/run installs the 'locales' package)")
    ledger = tmp_path / "ledger.jsonl"
    result = regrag("ask", QUERY, "--ledger", str(ledger), env=environment)
    assert result.returncode == 2  # was: the UTF-8 bytes decoded as EUC-JP, answered and recorded garbled
    assert one_line(result.stderr) == (
        "regrag: error: argument 2 is not ASCII and the locale's character encoding is euc_jp, not UTF-8: "
        "regrag reads its arguments as UTF-8 and will not guess; run it under a UTF-8 locale "
        "(e.g. LC_ALL=C.UTF-8) or with PYTHONUTF8=1\n")
    assert not ledger.exists()
    # ASCII arguments mean the same in every locale and are accepted; output is UTF-8 regardless
    plain = regrag("search", "annual fee", "-k", "2", env=environment)
    assert plain.returncode == 0 and plain.stdout == regrag("search", "annual fee", "-k", "2").stdout
    # the fix the message names works
    fixed = regrag("ask", QUERY, env={**environment, "PYTHONUTF8": "1"})
    assert fixed.returncode == 0 and fixed.stdout == regrag("ask", QUERY, env={"LC_ALL": "C.UTF-8"}).stdout


def test_c_locale_without_utf8_mode_refuses_a_non_ascii_query():
    result = regrag("search", QUERY, env={"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"})
    assert result.returncode == 2
    assert "locale's character encoding is ascii, not UTF-8" in one_line(result.stderr)


def test_c_locale_default_is_utf8_mode_and_gives_the_same_bytes():
    # Python 3.7+ turns on UTF-8 mode under the C/POSIX locale (PEP 540): accepted, identical output
    c_locale = regrag("ask", QUERY, env={"LC_ALL": "C"})
    utf8 = regrag("ask", QUERY, env={"LC_ALL": "C.UTF-8"})
    assert c_locale.returncode == utf8.returncode == 0 and c_locale.stdout == utf8.stdout


def test_invalid_utf8_argument_is_refused():
    result = regrag("search", os.fsdecode(b"fee\xff"), env={"LC_ALL": "C.UTF-8"})
    assert result.returncode == 2
    assert one_line(result.stderr) == "regrag: error: argument 2 is not valid UTF-8\n"
