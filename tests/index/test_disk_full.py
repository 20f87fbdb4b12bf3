"""A full disk (and other write failures) during every kind of write regrag makes.

``ENOSPC`` is injected at each write-side system call in turn, by a
fault-injecting file system (``tests/faulty_file_system.py``) swapped in for
``regrag.io.system.active``: the calls of a clean run are counted (``open``
for writing, ``write``, ``fsync``, ``replace``, ``mkdir``), then the 1st,
2nd, ..., n-th is made to fail. For each failure:

- the caller gets one ``InputError`` line naming the exact file whose call
  failed and saying the disk is full, never a raw ``OSError``;
- index directories: ``CURRENT`` is unchanged, the previous generation opens
  and gives the same results, no half generation is visible, nothing is left
  behind (or, if removal fails too, the next publish removes it);
- the ledger: the file is byte for byte what it was, and still verifies;
- golden files: the old file is intact and no temporary file is left;
- the CLI exits 2 with one line.

The last test repeats the index and ledger cases on a real, size-capped
``tmpfs`` in a private user and mount namespace, where the kernel itself
says ``ENOSPC``; it is skipped where such a namespace cannot be made.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from regrag import Index
from regrag.io import writes as atomic
from regrag.audit import golden as golden_module
from regrag.audit.canonical import canonical_json
from regrag.audit.ledger import append_record, discard_incomplete_tail, verify_ledger
from regrag.cli import main
from regrag.errors import CorruptIndexError, InputError, LockedError
from regrag.index import codec
from regrag.index.directory import CURRENT, IndexStore
from regrag.index.verify import verify_store
from regrag.io import system
from tests.faulty_file_system import FaultyFileSystem as Faults, ShortWrites

REPO = Path(__file__).resolve().parents[2]
CORPUS_A = REPO / "corpora" / "regulations" / "documents"
CORPUS_B = REPO / "corpora" / "vn-stock-news" / "documents"
QUERIES = ("liquidity coverage ratio", "minimum reserve requirement", "khối ngoại bán ròng")
DISK_FULL = "no space left on device (the disk is full)"
START = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def fingerprint(index: Index) -> str:
    return canonical_json({"id": index.index_id, "root": index.corpus_root,
                           "results": {q: [h.to_dict() for h in index.search(q, k=5)] for q in QUERIES}})


def generation_names(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "generations").iterdir())


def one_line(message: str) -> str:
    assert "\n" not in message, message
    return message


@pytest.fixture(scope="module")
def corpus_a() -> Index:
    return Index.from_path(CORPUS_A)


@pytest.fixture(scope="module")
def corpus_b() -> Index:
    return Index.from_path(CORPUS_B)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, corpus_a: Index) -> Path:
    root = tmp_path_factory.mktemp("pristine") / "index"
    corpus_a.save(root)
    return root


def relative(calls: list[tuple[str, str]], root: Path) -> list[tuple[str, str]]:
    """Calls with paths relative to ``root`` ("." for ``root`` itself)."""
    return [(call, os.path.relpath(path, root)) for call, path in calls]


@pytest.fixture(scope="module")
def publish_calls(tmp_path_factory, pristine: Path, corpus_b: Index) -> list[tuple[str, str]]:
    """The write-side calls of a clean publish of corpus B over generation 1
    (corpus A), with paths relative to the index directory."""
    root = tmp_path_factory.mktemp("clean") / "index"
    shutil.copytree(pristine, root)
    with pytest.MonkeyPatch.context() as monkeypatch, Faults().active(monkeypatch) as faults:
        IndexStore(root).publish(corpus_b.inverted, "test")
    return relative(faults.calls, root)


# the index store ---------------------------------------------------------------------
def test_a_clean_publish_makes_the_expected_write_calls(publish_calls, pristine):
    kinds = [call for call, _path in publish_calls]
    # the files of the generation (open, write, fsync each), CURRENT.tmp, 2 renames, 3 directory fsyncs,
    # 3 mkdirs (index directory, generations/, the temporary directory) and the LOCK file; then, corpus B
    # having entity metadata, its entity table: entities/ made, its 2 files, entities/ synced, the manifest
    # written again (listing them) and the generation's directory synced again
    files = len(codec.DATA_FILES) + 1  # and the manifest
    table = 2 + 1
    assert kinds.count("open") == files + table + 1 + 1
    assert kinds.count("fsync") == files + table + 1 + 3 + 2
    assert kinds.count("replace") == 2 and kinds.count("mkdir") == 3 + 1
    assert kinds.count("write") >= files + 1
    assert publish_calls[:3] == [("mkdir", "."), ("open", "LOCK"), ("mkdir", "generations")]
    assert publish_calls[-2:] == [("replace", CURRENT), ("fsync", ".")]  # the commit, then DIR
    assert len(publish_calls) >= 3 * files + 9


def test_disk_full_at_every_write_call_of_a_publish(tmp_path, monkeypatch, pristine, publish_calls, corpus_a, corpus_b):
    expected_a, expected_b = fingerprint(corpus_a), fingerprint(corpus_b)
    outcomes = {"before the commit": 0, "after the commit": 0, "no effect": 0}
    for number, (call, name) in enumerate(publish_calls, start=1):
        root = tmp_path / f"case-{number:03d}"
        shutil.copytree(pristine, root)
        path = os.path.normpath(root / name)
        before = (root / CURRENT).read_bytes()
        faults = Faults(fail_at=number)
        if call == "mkdir" and name in (".", "generations"):
            # mkdir of a directory that exists: Path.mkdir(exist_ok=True) sees it is a
            # directory and goes on (a real mkdir would have said EEXIST anyway)
            with faults.active(monkeypatch):
                assert IndexStore(root).publish(corpus_b.inverted, "test").number == 2
            assert faults.failed == (call, path) and fingerprint(Index.open(root)) == expected_b
            outcomes["no effect"] += 1
            continue
        with faults.active(monkeypatch), pytest.raises(InputError) as caught:
            IndexStore(root).publish(corpus_b.inverted, "test")
        assert faults.failed == (call, path), f"call {number}: the run diverged from the clean one"
        assert type(caught.value) is InputError, f"call {number} ({call}): {type(caught.value).__name__}"
        message = one_line(str(caught.value))
        committed = number == len(publish_calls)  # the fsync of DIR after CURRENT was replaced
        if committed:
            outcomes["after the commit"] += 1
            assert message.startswith(f"{root}: generation 2 was published, but the directory could not be flushed")
            assert DISK_FULL in message and "may not survive a crash" in message
            assert IndexStore(root).history()[0] == 2 and fingerprint(Index.open(root)) == expected_b
            continue
        outcomes["before the commit"] += 1
        assert message.startswith(f"{path}: cannot write: {DISK_FULL}"), (number, call, message)
        if path in (str(root), str(root / "LOCK")):  # taking the writer lock
            assert message.endswith("; nothing was published"), message
        else:
            assert message.endswith("; nothing was published (generation 1 is still current)"), message
        # nothing changed that a reader sees, and nothing was left behind
        assert (root / CURRENT).read_bytes() == before
        assert generation_names(root) == ["000001"]
        assert not (root / "CURRENT.tmp").exists()
        reopened = Index.open(root)
        assert reopened.generation.number == 1 and fingerprint(reopened) == expected_a
        assert verify_store(root, full=False).ok
        # and the next publish works
        entry = IndexStore(root).publish(corpus_b.inverted, "test")
        assert entry.number == 2 and generation_names(root) == ["000001", "000002"]
        assert fingerprint(Index.open(root)) == expected_b
    print(f"\ndisk full injected at {len(publish_calls)} write calls of a publish: {outcomes}")
    assert outcomes == {"before the commit": len(publish_calls) - 3, "after the commit": 1, "no effect": 2}


@pytest.mark.parametrize("code", [errno.EIO, getattr(errno, "EDQUOT", errno.ENOSPC), errno.EFBIG, errno.EROFS])
def test_other_write_errors_are_reported_the_same_way(tmp_path, monkeypatch, pristine, publish_calls, corpus_a, code):
    wanted = {errno.EIO: os.strerror(errno.EIO), errno.EFBIG: "file too large", errno.EROFS: os.strerror(errno.EROFS)}
    reason = wanted.get(code, "disk quota exceeded (the disk is full for this user)")
    for number in (5, len(publish_calls) - 2):  # a data file being written; CURRENT.tmp's fsync
        root = tmp_path / f"case-{code}-{number}"
        shutil.copytree(pristine, root)
        before = (root / CURRENT).read_bytes()
        with Faults(fail_at=number, code=code).active(monkeypatch), pytest.raises(InputError) as caught:
            IndexStore(root).publish(Index.from_path(CORPUS_B).inverted, "test")
        path = root / publish_calls[number - 1][1]
        assert str(caught.value).startswith(f"{path}: cannot write: {reason}")
        assert (root / CURRENT).read_bytes() == before and generation_names(root) == ["000001"]
        assert fingerprint(Index.open(root)) == fingerprint(corpus_a)


def test_first_publish_into_a_new_directory_on_a_full_disk(tmp_path, monkeypatch, corpus_a):
    with Faults().active(monkeypatch) as clean:
        corpus_a.save(tmp_path / "clean")
    for number in range(1, len(clean.calls) + 1):
        target = tmp_path / f"fresh-{number:03d}"
        with Faults(fail_at=number).active(monkeypatch), pytest.raises(InputError) as caught:
            corpus_a.save(target)
        if number == len(clean.calls):  # the directory fsync after the commit
            assert "generation 1 was published" in str(caught.value)
            continue
        assert DISK_FULL in one_line(str(caught.value))
        assert str(caught.value).endswith(("nothing was published", "(the directory still has no generation)"))
        assert not (target / CURRENT).exists()
        with pytest.raises(InputError, match="no such index directory|not an index directory"):
            Index.open(target)
        assert corpus_a.save(target).number == 1 and Index.open(target).index_id == corpus_a.index_id


def test_short_writes_are_continued_and_a_write_that_makes_no_progress_is_a_full_disk(tmp_path, monkeypatch, pristine,
                                                                                     corpus_b):
    root = tmp_path / "short"
    shutil.copytree(pristine, root)
    with system.use(ShortWrites(1000)):
        IndexStore(root).publish(corpus_b.inverted, "test")
    fresh = tmp_path / "fresh"
    IndexStore(fresh).publish(corpus_b.inverted, "test")
    names = sorted(str(p.relative_to(fresh / "generations" / "000001"))
                   for p in (fresh / "generations" / "000001").rglob("*") if p.is_file())
    assert "entities/names.json" in names
    for name in names:
        assert (root / "generations" / "000002" / name).read_bytes() == (fresh / "generations" / "000001" / name).read_bytes()

    zero = tmp_path / "zero"
    shutil.copytree(pristine, zero)
    before = (zero / CURRENT).read_bytes()
    no_progress = ShortWrites(0, most_writes=100)
    zero_writes = no_progress.writes
    with system.use(no_progress), pytest.raises(InputError, match=re.escape(f"chunks.sha256: cannot write: {DISK_FULL}")):
        IndexStore(zero).publish(corpus_b.inverted, "test")  # chunks.sha256 is the first file written
    assert len(zero_writes) == 1
    assert (zero / CURRENT).read_bytes() == before and generation_names(zero) == ["000001"]


@pytest.mark.parametrize("where", ["data file", "renamed generation", "CURRENT.tmp", "CURRENT rename"])
def test_leftovers_that_could_not_be_removed_are_removed_by_the_next_publish(tmp_path, monkeypatch, pristine,
                                                                           publish_calls, corpus_a, corpus_b, where):
    """Cleanup after the failure fails too (as it might on a sick disk):
    readers still see generation 1, and the next publish tidies up."""
    kinds = [call for call, _path in publish_calls]
    fail_at = {  # 1-based numbers of calls
        "data file": 10,
        "renamed generation": kinds.index("replace") + 2,  # the fsync of generations/ after the rename
        "CURRENT.tmp": len(publish_calls) - 2,  # its fsync
        "CURRENT rename": len(publish_calls) - 1,
    }[where]
    root = tmp_path / "index"
    shutil.copytree(pristine, root)
    before = (root / CURRENT).read_bytes()
    with monkeypatch.context() as patch:
        patch.setattr(atomic, "remove_quietly", lambda path: None)
        with Faults(fail_at=fail_at, keep_leftovers=True).active(patch), pytest.raises(InputError, match=re.escape(DISK_FULL)):
            IndexStore(root).publish(corpus_b.inverted, "test")
    left = generation_names(root)
    assert left != ["000001"] or (root / "CURRENT.tmp").exists(), "the test did not leave anything behind"
    assert (root / CURRENT).read_bytes() == before
    assert fingerprint(Index.open(root)) == fingerprint(corpus_a) and verify_store(root, full=False).ok
    entry = IndexStore(root).publish(corpus_b.inverted, "test")
    assert not (root / "CURRENT.tmp").exists()
    assert generation_names(root) == ["000001", f"{entry.number:06d}"], "a leftover survived the next publish"
    assert Index.open(root).index_id == corpus_b.index_id


def test_a_size_limit_is_refused_before_anything_is_written(tmp_path, monkeypatch, pristine, corpus_b):
    from regrag.index import build
    from regrag.limits import LimitError, Limits

    root = tmp_path / "index"
    shutil.copytree(pristine, root)
    before = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    monkeypatch.setattr(build, "DEFAULT_LIMITS", Limits(index_postings=1000))
    with Faults().active(monkeypatch) as faults, pytest.raises(LimitError) as caught:
        IndexStore(root).publish(corpus_b.inverted, "test")
    assert faults.calls == [], "something was written before the limit was checked"
    assert "the limit is 1,000 (regrag.limits.Limits.index_postings" in str(caught.value)
    assert {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_a_failed_publish_cannot_be_confused_with_a_locked_or_corrupt_index(tmp_path, monkeypatch, pristine, corpus_b):
    root = tmp_path / "index"
    shutil.copytree(pristine, root)
    with Faults(fail_at=2).active(monkeypatch), pytest.raises(InputError) as caught:  # the LOCK file
        IndexStore(root).publish(corpus_b.inverted, "test")
    assert not isinstance(caught.value, (LockedError, CorruptIndexError))
    assert str(caught.value) == f"{root / 'LOCK'}: cannot write: {DISK_FULL}; nothing was published"


# the ledger ---------------------------------------------------------------------------
def ledger_with(path: Path, count: int) -> bytes:
    """A ledger of ``count`` entries (none: no file); its bytes."""
    for number in range(count):
        append_record(path, {"query": f"q{number}"}, START)
    return path.read_bytes() if count else b""


@pytest.mark.parametrize("existing", [3, 0], ids=["existing-ledger", "new-ledger"])
def test_disk_full_at_every_write_call_of_a_ledger_append(tmp_path, monkeypatch, existing):
    clean = tmp_path / "clean.jsonl"
    ledger_with(clean, existing)
    with Faults().active(monkeypatch) as counted:
        append_record(clean, {"query": "more"}, START)
    # open (for a new file: a first try without O_CREAT, then with O_CREAT | O_EXCL), write, fsync;
    # and for a new file the fsync of its directory
    expected = ["open", "write", "fsync"] if existing else ["open", "open", "write", "fsync", "fsync"]
    assert [call for call, _path in counted.calls] == expected
    for number, (call, _path) in enumerate(counted.calls, start=1):
        path = tmp_path / f"ledger-{number}.jsonl"
        before = ledger_with(path, existing) if existing else None  # None: no file before
        with Faults(fail_at=number).active(monkeypatch), pytest.raises(InputError) as caught:
            append_record(path, {"query": "more"}, START)
        message = one_line(str(caught.value))
        if call == "open":  # creating or opening the file
            assert message == f"{path}: cannot open the ledger ({DISK_FULL})"
        else:
            assert message == f"{path}: cannot write: {DISK_FULL}; the entry was not appended (the ledger is unchanged)"
        if before is None:
            assert not path.exists() or path.read_bytes() == b"", "a new ledger is at most left empty"
        else:
            assert path.read_bytes() == before
        report = verify_ledger(path) if path.exists() else None
        assert report is None or (report.ok and report.entries == existing)
        entry = append_record(path, {"query": "more"}, START)  # the next append works
        assert entry.sequence == existing + 1 and verify_ledger(path).entries == existing + 1


def test_a_short_ledger_write_is_undone(tmp_path, monkeypatch):
    path = tmp_path / "ledger.jsonl"
    before = ledger_with(path, 3)
    with Faults(fail_at=2, short=True).active(monkeypatch), pytest.raises(InputError) as caught:
        append_record(path, {"query": "more"}, START)
    assert str(caught.value).startswith(f"{path}: cannot write: only ")
    assert "bytes written: the disk is probably full; the entry was not appended (the ledger is unchanged)" in str(caught.value)
    assert path.read_bytes() == before and verify_ledger(path).entries == 3


def test_a_partial_line_that_cannot_be_undone_is_found_refused_and_recovered(tmp_path, monkeypatch):
    """The worst case: a short write, and the truncation that should undo it
    fails too. The ledger then ends with a partial line: verify names it,
    append refuses, and the documented recovery restores the ledger."""
    path = tmp_path / "ledger.jsonl"
    before = ledger_with(path, 3)

    with monkeypatch.context() as patch:
        with Faults(fail_at=2, short=True, truncate_error=errno.EIO).active(patch), pytest.raises(InputError) as caught:
            append_record(path, {"query": "more"}, START)
    message = one_line(str(caught.value))
    assert message.startswith(f"{path}: cannot write: only ")
    assert f"the partial line could not be removed ({os.strerror(errno.EIO)})" in message
    assert f"regrag ledger verify {path}" in message
    damaged = path.read_bytes()
    assert damaged.startswith(before) and len(damaged) > len(before) and not damaged.endswith(b"\n")
    report = verify_ledger(path)
    assert (report.ok, report.first_broken_line, report.entries) == (False, 4, 3)
    assert report.reason.startswith("incomplete last line")
    with pytest.raises(InputError, match=rf"^{path}:4: the last line is incomplete"):
        append_record(path, {"query": "refused"}, START)
    assert path.read_bytes() == damaged
    assert discard_incomplete_tail(path) == damaged[len(before):]
    assert path.read_bytes() == before and verify_ledger(path).ok
    assert append_record(path, {"query": "more"}, START).sequence == 4


# golden files (and everything else written with write_atomically) -------------------------
def test_disk_full_at_every_write_call_of_a_golden_file(tmp_path, monkeypatch, corpus_a):
    golden = golden_module.record_golden(corpus_a, [("q1", "liquidity coverage ratio"), ("q2", "reserve")], k=3)
    path = tmp_path / "regulations.golden"
    golden_module.write_golden(path, golden)
    old = path.read_bytes()
    changed = golden_module.record_golden(corpus_a, [("q1", "liquidity coverage ratio")], k=3)
    with Faults().active(monkeypatch) as counted:
        golden_module.write_golden(tmp_path / "clean.golden", changed)
    # open, write, fsync the temporary file; rename it; fsync the directory
    assert [call for call, _path in counted.calls] == ["open", "write", "fsync", "replace", "fsync"]
    for number in range(1, len(counted.calls) + 1):
        with Faults(fail_at=number).active(monkeypatch), pytest.raises(InputError) as caught:
            golden_module.write_golden(path, changed)
        message = one_line(str(caught.value))
        leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
        assert leftovers == [], leftovers
        if number == len(counted.calls):  # the directory fsync after the rename
            assert message == (f"{path}: written, but its directory could not be flushed to disk ({DISK_FULL}); "
                               "the new content may not survive a crash")
            assert golden_module.read_golden(path) == changed
            golden_module.write_golden(path, golden)
            continue
        assert message == f"{path}: cannot write: {DISK_FULL}; the file was not changed"
        assert path.read_bytes() == old


# the command line ------------------------------------------------------------------------
def run_cli(capsys, *arguments: object) -> tuple[int, str, str]:
    status = main([str(a) for a in arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_cli_index_on_a_full_disk_exits_2_with_one_line(tmp_path, monkeypatch, capsys, pristine, publish_calls):
    root = tmp_path / "index"
    shutil.copytree(pristine, root)
    before = (root / CURRENT).read_bytes()
    counting = tmp_path / "counting"  # the command's own calls (its bounded build streams the files)
    shutil.copytree(pristine, counting)
    with pytest.MonkeyPatch.context() as patch, Faults().active(patch) as faults:
        assert run_cli(capsys, "index", CORPUS_B, "--out", counting)[0] == 0
    data_file = next(n for n, (call, name) in enumerate(faults.calls, 1) if call == "write" and name.endswith("positions.bin"))
    with Faults(fail_at=data_file).active(monkeypatch):
        status, out, err = run_cli(capsys, "index", CORPUS_B, "--out", root)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("regrag: error: ") and DISK_FULL in err
    assert "positions.bin: cannot write" in err and "nothing was published (generation 1 is still current)" in err
    assert (root / CURRENT).read_bytes() == before


def test_cli_search_with_a_ledger_on_a_full_disk_exits_2_with_one_line(tmp_path, monkeypatch, capsys, pristine):
    ledger = tmp_path / "ledger.jsonl"
    assert run_cli(capsys, "search", "liquidity", "--index", pristine, "--ledger", ledger)[0] == 0
    before = ledger.read_bytes()
    with Faults(fail_at=2).active(monkeypatch):  # the write of the line
        status, out, err = run_cli(capsys, "search", "liquidity", "--index", pristine, "--ledger", ledger)
    assert (status, out) == (2, ""), "results must not be printed when the ledger could not record them"
    assert err == f"regrag: error: {ledger}: cannot write: {DISK_FULL}; the entry was not appended (the ledger is unchanged)\n"
    assert ledger.read_bytes() == before
    assert run_cli(capsys, "ledger", "verify", ledger)[:2] == (0, "ok: 1 entry, chain intact\n")


def test_cli_golden_record_on_a_full_disk_exits_2_with_one_line(tmp_path, monkeypatch, capsys, pristine):
    out_path = tmp_path / "out.golden"
    with Faults(fail_at=2).active(monkeypatch):
        status, out, err = run_cli(capsys, "golden", "record", "corpora/regulations/queries.jsonl", "--index", pristine,
                                   "--out", out_path, "--method", "bm25")
    assert (status, out) == (2, "")
    assert err == f"regrag: error: {out_path}: cannot write: {DISK_FULL}; the file was not changed\n"
    assert not out_path.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


CHILD_CLI = r"""
import errno, os, runpy, sys
real_open, real_write = os.open, os.write
paths, suffix = {}, sys.argv[1]
def fake_open(path, flags, mode=0o777, *, dir_fd=None):
    fd = real_open(path, flags, mode, dir_fd=dir_fd)
    paths[fd] = os.fsdecode(path)
    return fd
def fake_write(fd, data):
    if paths.get(fd, "").endswith(suffix):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return real_write(fd, data)
os.open, os.write = fake_open, fake_write
sys.argv = ["regrag", *sys.argv[2:]]
runpy.run_module("regrag", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("target", ["index", "ledger"])
def test_python_m_regrag_on_a_full_disk_prints_no_traceback(tmp_path, pristine, target):
    root = tmp_path / "index"
    shutil.copytree(pristine, root)
    if target == "index":
        arguments = ["frequency_codes.bin", "index", str(CORPUS_B), "--out", str(root)]
        named = "frequency_codes.bin: cannot write"
    else:
        arguments = ["ledger.jsonl", "search", "fee", "--index", str(root), "--ledger", str(tmp_path / "ledger.jsonl")]
        named = f"{tmp_path / 'ledger.jsonl'}: cannot write"
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", CHILD_CLI, *arguments], capture_output=True, text=True, env=env,
                          cwd=str(REPO), timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("regrag: error: ") and named in done.stderr and DISK_FULL in done.stderr


# a real, size-capped file system ------------------------------------------------------------
TMPFS_CHILD = r"""
import json, os, shutil, subprocess, sys
sys.path.insert(0, sys.argv[1])
mount_point, size = sys.argv[2], sys.argv[3]
result = {}
try:
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", mount_point],
                   check=True, capture_output=True)
except Exception as error:
    print(json.dumps({"skip": f"cannot mount a tmpfs in a user namespace: {error}"}))
    sys.exit(0)
from datetime import datetime, timezone
from regrag import Index
from regrag.audit.ledger import LedgerEntry, append_record, entry_hash, read_ledger, verify_ledger
from regrag.errors import InputError
from regrag.index.directory import IndexStore
from regrag.index.verify import verify_store

def fingerprint(index):
    return [index.index_id] + [[h.passage_id, h.score] for h in index.search("liquidity coverage ratio", k=5)]

root = os.path.join(mount_point, "index")
a, b = Index.from_path(sys.argv[4]), Index.from_path(sys.argv[5])
a.save(root)
result["a"] = fingerprint(a)
current = open(os.path.join(root, "CURRENT"), "rb").read()
try:
    b.save(root)
    result["publish"] = "succeeded"
except InputError as error:
    result["publish"] = str(error)
result["current_unchanged"] = open(os.path.join(root, "CURRENT"), "rb").read() == current
result["generations"] = sorted(os.listdir(os.path.join(root, "generations")))
result["opened"] = fingerprint(Index.open(root))
result["verify"] = verify_store(root).ok

# a ledger whose last page is exactly full, then a disk with no free page
ledger = os.path.join(mount_point, "ledger.jsonl")
now = datetime(2026, 1, 2, tzinfo=timezone.utc)
append_record(ledger, {"query": "first"}, now)
last = read_ledger(ledger)[-1]
def line_length(pad):
    record = {"pad": "x" * pad}
    stamp = "2026-01-02T00:00:00.000000Z"
    return len(LedgerEntry(2, stamp, last.hash, record, entry_hash(2, stamp, last.hash, record)).line()) + 1
pad = 4096 - os.path.getsize(ledger) - line_length(0)
append_record(ledger, {"pad": "x" * pad}, now)
result["ledger_size"] = os.path.getsize(ledger)
filler = os.open(os.path.join(mount_point, "filler"), os.O_WRONLY | os.O_CREAT, 0o644)
try:
    while True:
        os.write(filler, b"\0" * 4096)
except OSError as error:
    result["filler"] = error.errno
os.close(filler)
before = open(ledger, "rb").read()
try:
    append_record(ledger, {"query": "on a full disk"}, now)
    result["append"] = "succeeded"
except InputError as error:
    result["append"] = str(error)
result["ledger_unchanged"] = open(ledger, "rb").read() == before
result["ledger_verify"] = [verify_ledger(ledger).ok, verify_ledger(ledger).entries]
os.unlink(os.path.join(mount_point, "filler"))
result["append_after"] = append_record(ledger, {"query": "space again"}, now).sequence
# another generation of A fits: the failed publish left nothing behind
result["publish_after"] = a.save(root).number
# read-only: the same clear errors
subprocess.run(["mount", "-o", "remount,ro", mount_point], check=True, capture_output=True)
for name, action in (("ro_append", lambda: append_record(ledger, {"query": "read-only"}, now)),
                     ("ro_publish", lambda: a.save(root))):
    try:
        action()
        result[name] = "succeeded"
    except InputError as error:
        result[name] = str(error)
result["ro_open"] = fingerprint(Index.open(root, generation=1))
print(json.dumps(result))
"""


def test_a_real_full_tmpfs(tmp_path, corpus_a):
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare(1) to make a private mount namespace")
    probe = subprocess.run([unshare, "--user", "--map-root-user", "--mount", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"user namespaces are not available: {probe.stderr.decode(errors='replace').strip()}")
    from regrag.index import codec as storage

    # A's five Markdown regulations: with the PDF (one box per character in documents.jsonl) a generation of A
    # is about as large as one of B, and B would fit where this test needs it not to
    small_a = tmp_path / "a"
    shutil.copytree(CORPUS_A, small_a, ignore=lambda _d, names: [n for n in names if not n.endswith(".md")])
    pages = sum(-(-len(data) // 4096) for data in storage.serialise(Index.from_path(small_a).inverted, "test").values())
    size = (2 * pages + 20) * 4096  # two generations of A, CURRENT, the ledger; never generation B (~79 pages)
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    done = subprocess.run(
        [unshare, "--user", "--map-root-user", "--mount", sys.executable, "-c", TMPFS_CHILD, str(REPO), str(mount_point),
         str(size), str(small_a), str(CORPUS_B)],
        capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    if "skip" in result:
        pytest.skip(result["skip"])
    mount_in_child = str(mount_point)
    assert result["publish"].startswith(f"{mount_in_child}/index/generations/.tmp-000002-")
    assert f": cannot write: {DISK_FULL}; nothing was published (generation 1 is still current)" in result["publish"]
    assert result["current_unchanged"] and result["generations"] == ["000001"]
    assert result["opened"] == result["a"] and result["verify"]
    assert result["ledger_size"] == 4096 and result["filler"] == errno.ENOSPC
    assert result["append"] == (f"{mount_in_child}/ledger.jsonl: cannot write: {DISK_FULL}; "
                                "the entry was not appended (the ledger is unchanged)")
    assert result["ledger_unchanged"] and result["ledger_verify"] == [True, 2]
    assert result["append_after"] == 3
    assert result["publish_after"] == 2
    read_only = os.strerror(errno.EROFS)
    assert result["ro_append"] == f"{mount_in_child}/ledger.jsonl: cannot open the ledger ({read_only})"
    assert result["ro_publish"] == f"{mount_in_child}/index/LOCK: cannot write: {read_only}; nothing was published"
    assert result["ro_open"] == result["a"]
