"""The ledger under hostile conditions: a last line cut at every byte, the
documented recovery, a clock that goes backwards, appenders SIGKILLed while
others keep appending, and a ledger path that is a symbolic link, a
directory, a FIFO, a device or not writable. (A full disk: tests/index/
test_disk_full.py, which injects ENOSPC at every write call of an append and
fills a real tmpfs.)"""

from __future__ import annotations

import errno
import os
import random
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import pytest

from regrag.audit import ledger as ledger_module
from regrag.audit.ledger import (
    LedgerReport,
    append_record,
    discard_incomplete_tail,
    format_report,
    read_ledger,
    verify_ledger,
)
from regrag.errors import InputError
from regrag.io import clock as clock_module, system
from regrag.io.system import FileSystem

REPO = Path(__file__).resolve().parents[2]
UTC = timezone.utc
START = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def build(path: Path, count: int) -> bytes:
    """``count`` entries with non-ASCII records (so cuts land inside characters); the file's bytes."""
    for number in range(count):
        append_record(path, {"n": number, "query": "金莲白金信用卡的年费 · lãi suất", "scores": [number / 7]},
                      START + timedelta(seconds=number))
    return path.read_bytes()


def guarded(action: Callable[[], Any], fifo: Path | None = None, seconds: float = 30.0) -> Any:
    """Run ``action``; fail instead of hanging (a FIFO is then opened to free the thread)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = action()
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if fifo is not None:
            for flags in (os.O_WRONLY | os.O_NONBLOCK, os.O_RDONLY | os.O_NONBLOCK):
                try:
                    os.close(os.open(fifo, flags))
                except OSError:
                    pass
        thread.join(5)
        pytest.fail(f"blocked for {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


# 1. a last line cut at every byte, and the recovery ------------------------------------------------
def test_last_line_cut_at_every_byte(tmp_path):
    path = tmp_path / "ledger.jsonl"
    data = build(path, 3)
    last_start = data.rindex(b"\n", 0, len(data) - 1) + 1
    head, last = data[:last_start], data[last_start:]
    for kept in range(1, len(last)):  # 1 byte of the line .. all of it but its newline
        cut = head + last[:kept]
        path.write_bytes(cut)
        report = verify_ledger(path)
        assert (report.ok, report.first_broken_line, report.entries) == (False, 3, 2), kept
        assert report.reason == "incomplete last line (no trailing newline): a write was cut short"
        assert format_report(report).startswith("broken at line 3: incomplete last line")
        with pytest.raises(InputError) as caught:
            read_ledger(path)
        assert str(caught.value).startswith(f"{path}:3: incomplete last line")
        with pytest.raises(InputError) as caught:
            append_record(path, {"n": "refused"}, START)
        message = str(caught.value)
        assert message.startswith(f"{path}:3: the last line is incomplete")
        assert f"regrag ledger verify {path}" in message and "discard_incomplete_tail" in message
        assert path.read_bytes() == cut, "a refused append changed the file"
        # the documented recovery
        assert discard_incomplete_tail(path) == last[:kept]
        assert path.read_bytes() == head and verify_ledger(path) == LedgerReport(True, 2, None, "")
    entry = append_record(path, {"n": "after recovery"}, START)
    assert entry.sequence == 3 and entry.previous == read_ledger(path)[1].hash and verify_ledger(path).entries == 3
    print(f"\nlast line cut at {len(last) - 1} offsets")


def test_the_recovery_command_in_the_documentation_works(tmp_path):
    """docs/ledger.md, "Recovering from a cut last line": its shell line, run as written."""
    text = (REPO / "docs" / "ledger.md").read_text(encoding="utf-8")
    section = text.split("## Recovering from a cut last line", 1)[1]
    command = next(line for line in section.splitlines() if line.startswith("python3 -c "))
    ledger_name, discarded_name = re.search(r" (\S+) > (\S+)$", command).groups()
    path = tmp_path / ledger_name
    data = build(path, 3)
    path.write_bytes(data[:-17])
    assert verify_ledger(path).first_broken_line == 3
    done = subprocess.run(command, shell=True, cwd=tmp_path, env=child_env(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    head = data[: data.rindex(b"\n", 0, len(data) - 1) + 1]
    assert (tmp_path / discarded_name).read_bytes() == data[len(head):-17]
    assert path.read_bytes() == head and verify_ledger(path) == LedgerReport(True, 2, None, "")


def test_a_cut_at_a_line_boundary_is_a_shorter_valid_ledger(tmp_path):
    """What the chain alone cannot show (docs/ledger.md): the last entries
    removed whole. Keeping the last hash elsewhere is what detects it."""
    path = tmp_path / "ledger.jsonl"
    data = build(path, 3)
    last_hash = read_ledger(path)[-1].hash
    path.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 1])
    assert verify_ledger(path) == LedgerReport(True, 2, None, "")
    assert read_ledger(path)[-1].hash != last_hash


def test_recovery_touches_nothing_but_an_incomplete_last_line(tmp_path):
    path = tmp_path / "ledger.jsonl"
    data = build(path, 2)
    assert discard_incomplete_tail(path) == b"" and path.read_bytes() == data
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert discard_incomplete_tail(empty) == b"" and empty.read_bytes() == b""
    only_partial = tmp_path / "partial.jsonl"
    only_partial.write_bytes(data[:40])
    assert discard_incomplete_tail(only_partial) == data[:40] and only_partial.read_bytes() == b""
    assert verify_ledger(only_partial) == LedgerReport(True, 0, None, "")
    # a complete but edited last line is damage for a person to look at, not for recovery
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(data.replace(b'"n":1', b'"n":9'))
    assert discard_incomplete_tail(edited) == b""
    assert edited.read_bytes() == data.replace(b'"n":1', b'"n":9') and not verify_ledger(edited).ok
    # a long partial line, across the 64 KiB blocks read from the end
    long = tmp_path / "long.jsonl"
    long.write_bytes(data + b'{"hash":"' + b"x" * 200_000)
    assert len(discard_incomplete_tail(long)) == 200_009 and long.read_bytes() == data
    with pytest.raises(InputError, match="file not found"):
        discard_incomplete_tail(tmp_path / "missing.jsonl")
    with pytest.raises(InputError, match="is a directory"):
        discard_incomplete_tail(tmp_path)


# 2. a clock that goes backwards ------------------------------------------------------------------------
class ScriptedClock(datetime):
    """``datetime`` whose ``now`` returns the moments given, in turn."""

    moments: list[datetime] = []

    @classmethod
    def now(cls, tz: Any = None) -> "ScriptedClock":  # type: ignore[override]
        moment = cls.moments.pop(0)
        if tz is not None:
            moment = moment.astimezone(tz)
        return cls.combine(moment.date(), moment.timetz())


def test_a_clock_going_backwards_is_recorded_as_given_and_sequence_orders(tmp_path, monkeypatch):
    moments = [
        START,
        START - timedelta(days=1),  # an NTP step back
        START - timedelta(days=1, microseconds=1),
        START - timedelta(days=1, microseconds=1),  # the same instant twice
        datetime(1970, 1, 1, tzinfo=UTC),  # a machine that lost its clock
        datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),  # and one far ahead
        START + timedelta(hours=1),
    ]
    monkeypatch.setattr(clock_module, "datetime", ScriptedClock)
    ScriptedClock.moments = list(moments)
    path = tmp_path / "ledger.jsonl"
    appended = [append_record(path, {"n": number}) for number in range(len(moments))]
    assert ScriptedClock.moments == [], "append_record did not take its time from the clock"
    entries = read_ledger(path)
    assert entries == appended
    assert [e.timestamp for e in entries] == [
        "2026-01-02T03:04:05.678901Z",
        "2026-01-01T03:04:05.678901Z",
        "2026-01-01T03:04:05.678900Z",
        "2026-01-01T03:04:05.678900Z",
        "1970-01-01T00:00:00.000000Z",
        "9999-12-31T23:59:59.999999Z",
        "2026-01-02T04:04:05.678901Z",
    ]
    assert [e.sequence for e in entries] == list(range(1, len(moments) + 1))
    assert [e.record["n"] for e in entries] == list(range(len(moments)))  # file order is append order
    assert sorted(entries, key=lambda e: e.timestamp) != entries  # time does not order the ledger: sequence does
    assert verify_ledger(path) == LedgerReport(True, len(moments), None, "")


# 3. appenders killed while others append -------------------------------------------------------------
def child_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
                PYTHONDONTWRITEBYTECODE="1")


def spawn(code: str, *args: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=child_env(), cwd=str(REPO))


def wait_for(proc: subprocess.Popen, marker: bytes, timeout: float = 60.0) -> bytes:
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while marker not in seen:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no {marker!r} within {timeout} s (got {seen!r})")
            if selector.select(remaining):
                chunk = os.read(proc.stdout.fileno(), 4096)
                if not chunk:
                    proc.wait(5)
                    raise AssertionError(f"child exited ({proc.returncode}): {proc.stderr.read().decode(errors='replace')}")
                seen += chunk
    finally:
        selector.close()
    return seen


def kill(proc: subprocess.Popen) -> bytes:
    """SIGKILL ``proc``; what it printed (after any marker already read)."""
    os.kill(proc.pid, signal.SIGKILL)
    out, _err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return out


# Appends `count` records (or forever), printing "ack SEQUENCE HASH" after each
# append returned, and "refused LINE" when an append was refused.
WRITER = r"""
import sys
from regrag.audit.ledger import append_record
from regrag.errors import InputError
path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
print("ready", flush=True)
number = 0
while count == 0 or number < count:
    try:
        entry = append_record(path, {"writer": name, "number": number})
        print("ack", entry.sequence, entry.hash, flush=True)
    except InputError as error:
        print("refused", str(error).split(":")[1], flush=True)
    number += 1
print("done", flush=True)
"""

# Takes the lock in append_record and stops at a chosen point inside it.
STOPPED_APPENDER = r"""
import os, sys, time
from regrag.audit import ledger
path, stage = sys.argv[1], sys.argv[2]
real_write = os.write
def write(descriptor, data):
    if stage == "half-written":
        real_write(descriptor, data[: len(data) // 2])
    print("stage:" + stage, flush=True)
    time.sleep(120)
os.write = write
ledger.append_record(path, {"writer": "victim"})
"""


def acknowledged(output: bytes) -> list[tuple[int, str]]:
    lines = (line.split() for line in output.decode(errors="replace").splitlines())
    return [(int(parts[1]), parts[2]) for parts in lines if len(parts) == 3 and parts[0] == "ack"]


@pytest.mark.parametrize("stage", ["holding-the-lock", "half-written"])
def test_an_appender_killed_inside_its_append(tmp_path, stage):
    """Others wait on the lock; when the victim dies they go on. If it died
    with half its line written, they refuse (nothing is appended after a cut
    line), verify names the line, and the recovery lets appends go on."""
    path = tmp_path / "ledger.jsonl"
    build(path, 2)
    victim = spawn(STOPPED_APPENDER, path, stage)
    try:
        wait_for(victim, f"stage:{stage}".encode())
        writers = [spawn(WRITER, path, f"w{i}", 20) for i in range(3)]
        for writer in writers:
            wait_for(writer, b"ready")
        time.sleep(0.3)  # the writers are now blocked on the victim's lock
        assert path.read_bytes().count(b"\n") == 2
    finally:
        kill(victim)
    outputs = [writer.communicate(timeout=120)[0] for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0, 0]
    acks = [ack for output in outputs for ack in acknowledged(output)]
    refusals = [line for output in outputs for line in output.decode().splitlines() if line.startswith("refused")]
    report = verify_ledger(path)
    if stage == "holding-the-lock":
        assert (len(acks), refusals) == (60, [])
        assert report == LedgerReport(True, 62, None, "")
        assert sorted(sequence for sequence, _hash in acks) == list(range(3, 63))
    else:
        assert (acks, len(refusals)) == ([], 60) and set(refusals) == {"refused 3"}
        assert (report.ok, report.first_broken_line, report.entries) == (False, 3, 2)
        assert report.reason.startswith("incomplete last line")
        assert discard_incomplete_tail(path).startswith(b'{"hash":"')
        assert verify_ledger(path) == LedgerReport(True, 2, None, "")
        assert append_record(path, {"writer": "after recovery"}).sequence == 3
    entries = {entry.sequence: entry.hash for entry in read_ledger(path)}
    assert all(entries[sequence] == digest for sequence, digest in acks)
    assert not any(entry.record.get("writer") == "victim" for entry in read_ledger(path))


KILL_TRIALS = 6


def test_appenders_killed_at_random_moments_lose_no_acknowledged_entry(tmp_path):
    rng = random.Random(20261130)
    outcomes = {"intact": 0, "cut last line": 0}
    victim_acks = 0
    for trial in range(KILL_TRIALS):
        path = tmp_path / f"ledger-{trial}.jsonl"
        writers = [spawn(WRITER, path, f"w{i}", 25) for i in range(3)]
        victim = spawn(WRITER, path, "victim", 0)
        for process in (*writers, victim):
            wait_for(process, b"ready")
        time.sleep(rng.uniform(0.0, 0.4))
        victim_output = kill(victim)
        outputs = [writer.communicate(timeout=120)[0] for writer in writers]
        assert [writer.returncode for writer in writers] == [0, 0, 0]
        victim_acks += len(acknowledged(victim_output))
        acks = acknowledged(victim_output) + [ack for output in outputs for ack in acknowledged(output)]
        report = verify_ledger(path)
        data = path.read_bytes()
        if report.ok:
            outcomes["intact"] += 1
            assert report.entries == data.count(b"\n")
        else:  # the only damage a kill can do: a cut last line, named exactly
            outcomes["cut last line"] += 1
            assert report.first_broken_line == data.count(b"\n") + 1 and report.reason.startswith("incomplete last line")
            discard_incomplete_tail(path)
        entries = {entry.sequence: entry.hash for entry in read_ledger(path)}
        assert len(acks) == len({sequence for sequence, _h in acks}), "a sequence number was acknowledged twice"
        assert all(entries.get(sequence) == digest for sequence, digest in acks), "an acknowledged entry was lost"
        assert verify_ledger(path).ok
    print(f"\nSIGKILL trials: {outcomes}; the victims' acknowledged appends: {victim_acks}")
    assert victim_acks > 0, "no victim was killed while appending"


# 4. paths that are not a plain ledger file -------------------------------------------------------------
def test_a_symbolic_link_to_a_ledger_is_followed(tmp_path):
    target = tmp_path / "real.jsonl"
    data = build(target, 2)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert append_record(link, {"via": "link"}, START).sequence == 3
    assert target.read_bytes().startswith(data) and verify_ledger(link) == verify_ledger(target)
    assert link.is_symlink()


def test_a_dangling_symbolic_link_does_not_create_a_file_elsewhere(tmp_path):
    target = tmp_path / "elsewhere" / "planted.jsonl"
    target.parent.mkdir()
    link = tmp_path / "ledger.jsonl"
    link.symlink_to(target)
    with pytest.raises(InputError) as caught:
        append_record(link, {"q": "x"}, START)
    assert str(caught.value) == f"{link}: a symbolic link to a missing file; not creating a ledger through it"
    assert not target.exists()
    with pytest.raises(InputError, match="file not found"):
        verify_ledger(link)


def test_a_symbolic_link_to_a_directory_is_refused(tmp_path):
    link = tmp_path / "ledger.jsonl"
    link.symlink_to(tmp_path)
    with pytest.raises(InputError, match=f"^{link}: is a directory, not a ledger file$"):
        append_record(link, {"q": "x"}, START)


def test_a_directory_is_refused_by_every_call(tmp_path):
    for call in (lambda: append_record(tmp_path, {"q": "x"}), lambda: verify_ledger(tmp_path),
                 lambda: read_ledger(tmp_path), lambda: discard_incomplete_tail(tmp_path)):
        with pytest.raises(InputError, match=f"^{tmp_path}: is a directory"):
            call()


@pytest.mark.parametrize("call", ["append", "verify", "read", "discard"])
def test_a_fifo_is_refused_without_blocking(tmp_path, call):
    fifo = tmp_path / "ledger.jsonl"
    os.mkfifo(fifo)
    action = {"append": lambda: append_record(fifo, {"q": "x"}), "verify": lambda: verify_ledger(fifo),
              "read": lambda: read_ledger(fifo), "discard": lambda: discard_incomplete_tail(fifo)}[call]
    with pytest.raises(InputError, match=f"^{fifo}: not a regular file"):
        guarded(action, fifo)


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null")
def test_a_device_is_refused(tmp_path):
    with pytest.raises(InputError, match="^/dev/null: not a regular file"):
        append_record("/dev/null", {"q": "x"})
    with pytest.raises(InputError, match="^/dev/null: not a regular file"):
        verify_ledger("/dev/null")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions (the read-only tmpfs case in "
                                              "test_disk_full.py covers a ledger that cannot be written)")
def test_a_read_only_ledger_file(tmp_path):
    path = tmp_path / "ledger.jsonl"
    data = build(path, 2)
    path.chmod(0o444)
    with pytest.raises(InputError, match=f"^{path}: cannot open the ledger \\(Permission denied\\)$"):
        append_record(path, {"q": "x"})
    assert path.read_bytes() == data and verify_ledger(path).ok


@pytest.mark.parametrize(("code", "words"), [(errno.EACCES, os.strerror(errno.EACCES)),
                                             (errno.EROFS, os.strerror(errno.EROFS))])
def test_a_ledger_that_cannot_be_opened_for_writing(tmp_path, monkeypatch, code, words):
    path = tmp_path / "ledger.jsonl"
    data = build(path, 2)
    class Refusing(FileSystem):
        def open(self, target: Any, flags: int, mode: int = 0o777) -> int:
            if flags & (os.O_WRONLY | os.O_RDWR):
                raise OSError(code, os.strerror(code), os.fsdecode(target))
            return super().open(target, flags, mode)

    with system.use(Refusing()):
        with pytest.raises(InputError) as caught:
            append_record(path, {"q": "x"})
        assert str(caught.value) == f"{path}: cannot open the ledger ({words})"
        with pytest.raises(InputError, match=f"^{path}: cannot open the ledger"):
            discard_incomplete_tail(path)
        assert verify_ledger(path).entries == 2  # reading still works
    assert path.read_bytes() == data


def test_a_file_system_without_locks(tmp_path, monkeypatch):
    path = tmp_path / "ledger.jsonl"
    data = build(path, 1)

    def no_locks(descriptor: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(ledger_module.fcntl, "flock", no_locks)
    for call in (lambda: append_record(path, {"q": "x"}), lambda: verify_ledger(path)):
        with pytest.raises(InputError, match=f"^{path}: cannot lock the ledger \\({os.strerror(errno.ENOLCK)}\\)$"):
            call()
    assert path.read_bytes() == data


def test_a_read_error_while_verifying_is_an_input_error(tmp_path, monkeypatch):
    path = tmp_path / "ledger.jsonl"
    build(path, 3)

    class Failing:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> "Failing":
            return self

        def __exit__(self, *exc: Any) -> None:
            self.handle.close()

        def fileno(self) -> int:
            return self.handle.fileno()

        def __iter__(self) -> Any:
            yield self.handle.readline()
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    class FailingReads(FileSystem):
        def fdopen(self, descriptor: int, mode: str = "rb", **options: Any) -> Any:
            return Failing(super().fdopen(descriptor, mode, **options))

    with system.use(FailingReads()), pytest.raises(InputError, match=f"^{path}: cannot read \\({os.strerror(errno.EIO)}\\)$"):
        verify_ledger(path)



def test_a_record_holding_nan_is_not_a_ledger_entry(tmp_path):
    # found by bench/fuzz.py (seed tests/fuzz/seeds/ledger/nan-record): Python's json reads
    # NaN, which has no canonical JSON form; the entry used to load and then crash line()
    from regrag.audit.ledger import LedgerEntry, verify_ledger

    entry = {"hash": "0" * 64, "previous": "0" * 64, "record": {"n": float("nan")}, "sequence": 1,
             "timestamp": "2026-01-01T00:00:00.000000Z"}
    with pytest.raises(InputError, match=r"record\['n'\] is nan"):
        LedgerEntry.from_dict(entry)
    report = verify_ledger("tests/fuzz/seeds/ledger/nan-record")
    assert not report.ok and report.first_broken_line == 2 and "NaN" in report.reason
