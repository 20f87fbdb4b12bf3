"""Fault tests for index directories (regrag/index/directory.py, codec.py).

What a crash, a damaged file, a second writer, a concurrent publish or a
clock going backwards does to an index directory, and what readers and
``verify_store`` see afterwards:

1. crash safety: a child process publishing generations in a loop is
   SIGKILLed at random moments and at chosen points inside ``publish``;
   the directory always opens as exactly one of the corpora written, passes
   the quick check, and the next publish cleans up;
2. corruption of every file class (data files, manifest, CURRENT), swapped
   generations, unsupported formats, and consistent forgeries that only the
   full check (re-indexing) catches;
3. the writer lock, across processes and across file descriptions;
4. readers keep their generation while others are published and pruned;
5. byte-identical generations for the same corpus, whatever the order;
6. point-in-time lookup (``as_of``) and monotonic publication stamps.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from array import array
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from regrag import Index
from regrag.audit.canonical import canonical_bytes, canonical_json
from regrag.errors import CorruptIndexError, InputError, LockedError
from regrag.index import codec as storage
from regrag.index.chunks import CHUNKS, chunk_table
from regrag.index.directory import CURRENT, LOCK, IndexStore, state_checksum
from regrag.index.verify import verify_store

REPO = Path(__file__).resolve().parents[2]
CORPUS_A = REPO / "corpora" / "regulations" / "documents"  # 5 documents, small
CORPUS_B = REPO / "corpora" / "vn-stock-news" / "documents"  # 30 documents, ~0.7 MB on disk
QUERIES = ("liquidity coverage ratio", "minimum reserve requirement", "khối ngoại bán ròng")
UTC = timezone.utc


# helpers ------------------------------------------------------------------
def fingerprint(index: Index) -> str:
    """Identity plus the full provenance of a few searches, as canonical JSON."""
    return canonical_json(
        {
            "corpus_root": index.corpus_root,
            "index_id": index.index_id,
            "results": {q: [hit.to_dict() for hit in index.search(q, k=5)] for q in QUERIES},
        }
    )


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def spawn(code: str, *args: str, stdin: int | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
        cwd=str(REPO),
    )


def wait_for(proc: subprocess.Popen, marker: bytes, timeout: float = 30.0) -> None:
    """Block until the child printed ``marker`` (fail with its stderr if it died)."""
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while marker not in seen:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"child did not print {marker!r} in {timeout} s (got {seen!r})")
            if selector.select(remaining):
                chunk = os.read(proc.stdout.fileno(), 4096)
                if not chunk:
                    proc.wait(5)
                    raise AssertionError(
                        f"child exited ({proc.returncode}) before {marker!r}: {proc.stderr.read().decode(errors='replace')}"
                    )
                seen += chunk
    finally:
        selector.close()


def kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    stderr = proc.stderr.read().decode(errors="replace")
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL, f"the child was not killed mid-run (exit {proc.returncode}): {stderr}"


def generation_names(root: Path) -> list[str]:
    directory = root / "generations"
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file below ``directory`` (``entities/names.json``: a path within it) -> its bytes."""
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def write_manifest(directory: Path, manifest: dict) -> bytes:
    """Write a manifest in the form storage.serialise uses; return its bytes."""
    data = (json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    (directory / storage.MANIFEST).write_bytes(data)
    return data


def write_current(root: Path, state: dict) -> None:
    """Write CURRENT as a forger would: canonical, with a recomputed checksum."""
    state["checksum"] = state_checksum(state)
    (root / CURRENT).write_bytes(canonical_bytes(state) + b"\n")


def rewrite_current(root: Path, number: int, **changes) -> None:
    """Edit the history entry of generation ``number`` in CURRENT, keeping it canonical."""
    state = json.loads((root / CURRENT).read_text("utf-8"))
    for entry in state["generations"]:
        if entry["generation"] == number:
            entry.update(changes)
    write_current(root, state)


def open_and_use(root: Path, generation: int | None = None) -> Index:
    """``Index.open``, its entity table, its metadata (a filter) and a read of every term's postings and
    every document (``metadata.json`` is verified when first needed, like the large files' chunks)."""
    index = Index.open(root, generation=generation)
    index.entity_catalog
    index.search("liquidity", k=1, filters={"issuer": "none"})
    for term in index.inverted.postings:
        index.inverted.postings[term]
    for key in index.inverted.documents:
        index.inverted.documents[key]
    return index


def forge(root: Path, number: int, name: str, data: bytes) -> None:
    """A consistent forgery: replace data file ``name`` and update its size and
    hash in the manifest, and the manifest's hash in CURRENT."""
    directory = IndexStore(root).generation_path(number)
    (directory / name).write_bytes(data)
    manifest = json.loads((directory / storage.MANIFEST).read_text("utf-8"))
    manifest["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if name in storage.CHUNKED_FILES:  # and its chunk digests (format 2: chunks.sha256)
        table = chunk_table((directory / chunked).read_bytes() for chunked in storage.CHUNKED_FILES)
        (directory / CHUNKS).write_bytes(table)
        manifest["files"][CHUNKS] = {"bytes": len(table), "sha256": hashlib.sha256(table).hexdigest()}
    manifest_bytes = write_manifest(directory, manifest)
    rewrite_current(root, number, manifest_sha256=hashlib.sha256(manifest_bytes).hexdigest())


# fixtures -----------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus_a() -> Index:
    return Index.from_path(CORPUS_A)


@pytest.fixture(scope="module")
def corpus_b() -> Index:
    return Index.from_path(CORPUS_B)


@pytest.fixture(scope="module")
def expected(corpus_a: Index, corpus_b: Index) -> dict[str, str]:
    """index_id -> fingerprint of the freshly built in-memory index."""
    prints = {corpus_a.index_id: fingerprint(corpus_a), corpus_b.index_id: fingerprint(corpus_b)}
    assert len(set(prints.values())) == 2
    return prints


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, corpus_a: Index) -> Path:
    """A one-generation index directory of corpus A, never modified."""
    root = tmp_path_factory.mktemp("pristine") / "index"
    corpus_a.save(root)
    return root


@pytest.fixture
def damaged_copy(tmp_path: Path, pristine: Path) -> Path:
    root = tmp_path / "index"
    shutil.copytree(pristine, root)
    return root


# 1. crash safety ------------------------------------------------------------
PUBLISHER = r"""
import os, sys, time
from regrag import Index
from regrag.index import codec as storage, directory as store
from regrag.io import system

target, keep, stage = sys.argv[1], int(sys.argv[2]) or None, sys.argv[5]
a = Index.from_path(sys.argv[3])
b = Index.from_path(sys.argv[4])
publishes = 0

def halt(name):
    # a chosen point inside publish: report it and wait for SIGKILL
    print("stage:" + name, flush=True)
    time.sleep(60)

if stage == "write":  # half of the files of the new generation written
    original_write = storage.write_files
    def write_files(directory, files):
        if publishes == 2:
            names = sorted(files)
            original_write(directory, {n: files[n] for n in names[: len(names) // 2]})
            halt(stage)
        original_write(directory, files)
    storage.write_files = write_files
elif stage in ("renamed", "committed"):  # 2nd fsync_directory: after the rename; 3rd: after CURRENT
    original_fsync = storage.fsync_directory
    calls = []
    def fsync_directory(directory):
        original_fsync(directory)
        if publishes == 2:
            calls.append(directory)
            if len(calls) == {"renamed": 2, "committed": 3}[stage]:
                halt(stage)
    storage.fsync_directory = fsync_directory
elif stage == "pending":  # CURRENT.tmp written and fsynced, not yet renamed over CURRENT
    class Pending(system.FileSystem):
        def replace(self, source, destination):
            if publishes == 2 and str(source).endswith("CURRENT.tmp"):
                halt(stage)
            super().replace(source, destination)
    system.active = Pending()
elif stage == "pruning":  # some files of a pruned generation removed
    class Pruning(system.FileSystem):
        def remove_tree(self, path):
            if publishes == 2:
                files = [n for n in sorted(os.listdir(path)) if os.path.isfile(os.path.join(path, n))]
                for name in files[:5]:  # (entities/ is a folder)
                    os.unlink(os.path.join(path, name))
                halt(stage)
            super().remove_tree(path)
    system.active = Pruning()

print("ready", flush=True)
while True:
    (a if publishes % 2 == 0 else b).save(target, keep=keep)
    publishes += 1
"""


def check_after_crash(root: Path, expected: dict[str, str]) -> tuple[Index | None, dict]:
    """The invariants after a crash; returns the index found and what was left behind."""
    names = generation_names(root)
    left = {
        "tmp": [n for n in names if n.startswith(".tmp-")],
        "pending": (root / "CURRENT.tmp").exists(),
        "orphans": [],
    }
    if not (root / CURRENT).exists():
        # killed before the first commit: nothing is visible to readers
        with pytest.raises(InputError, match="no such index directory|not an index directory"):
            Index.open(root)
        return None, left
    index = Index.open(root)
    assert index.index_id in expected, "the index after a crash is neither corpus A nor corpus B"
    assert fingerprint(index) == expected[index.index_id]
    current, history = IndexStore(root).history()
    assert index.generation.number == current
    retained = {g.number for g in history}
    left["orphans"] = [n for n in names if n.isdigit() and int(n) not in retained]
    report = verify_store(root, full=False)
    assert report.ok, report.problems
    assert set(report.checked) == retained
    return index, left


def check_recovery(root: Path, corpus: Index, expected: dict[str, str], seen: set[str]) -> None:
    """A publish after the crash succeeds and leaves nothing stray behind."""
    entry = corpus.save(root)
    assert all(int(n) < entry.number for n in seen if n.isdigit()), "a generation number was reused"
    names = generation_names(root)
    assert not [n for n in names if n.startswith(".tmp-")], names
    assert not (root / "CURRENT.tmp").exists()
    current, history = IndexStore(root).history()
    assert current == entry.number
    assert names == [f"{g.number:06d}" for g in history], "orphaned or missing generation directories"
    reopened = Index.open(root)
    assert reopened.index_id == corpus.index_id
    assert fingerprint(reopened) == expected[corpus.index_id]
    assert verify_store(root, full=False).ok


def test_sigkill_at_random_moments_never_leaves_a_broken_index(tmp_path, corpus_a, corpus_b, expected):
    rng = random.Random(20261130)
    plans = []  # (seconds, measured from): some before the child is ready, most while it publishes
    for trial in range(20):
        if trial < 3:
            plans.append((rng.uniform(0.0, 0.15), "spawn"))
        else:
            low, high = ((0.0, 0.01), (0.01, 0.05), (0.05, 0.15), (0.15, 0.3))[trial % 4]
            plans.append((rng.uniform(low, high), "ready"))
    counts = {"no CURRENT": 0, "tmp dir": 0, "CURRENT.tmp": 0, "orphan": 0, "mid-write": 0, "mid-write, CURRENT": 0}
    for trial, (delay, start) in enumerate(plans):
        root = tmp_path / f"trial-{trial:02d}"
        keep = trial % 3  # 0 = keep everything; 1, 2 = prune as the child publishes
        proc = spawn(PUBLISHER, root, keep, CORPUS_A, CORPUS_B, "none")
        try:
            if start == "ready":
                wait_for(proc, b"ready")
            time.sleep(delay)
        finally:
            kill(proc)
        seen = set(generation_names(root))
        index, left = check_after_crash(root, expected)
        counts["no CURRENT"] += index is None
        counts["tmp dir"] += bool(left["tmp"])
        counts["CURRENT.tmp"] += left["pending"]
        counts["orphan"] += bool(left["orphans"])
        counts["mid-write"] += bool(left["tmp"] or left["pending"])
        counts["mid-write, CURRENT"] += bool(left["tmp"] or left["pending"]) and index is not None
        check_recovery(root, corpus_b if index is not None and index.index_id == corpus_a.index_id else corpus_a,
                       expected, seen)
    print(f"\nrandom SIGKILL trials: {len(plans)}; left behind: {counts}")
    assert counts["no CURRENT"] < len(plans), "no kill landed after the first publish"


@pytest.mark.parametrize("stage", ["write", "renamed", "pending", "committed", "pruning"])
def test_sigkill_at_each_step_of_publish(tmp_path, corpus_a, corpus_b, expected, stage):
    """Kills at chosen points of the 3rd publish (corpus A; generations 1, 2
    hold A and B): before the commit the previous generation stays current,
    after it the new one, and the next publish cleans up."""
    root = tmp_path / "index"
    keep = 1 if stage == "pruning" else 0
    proc = spawn(PUBLISHER, root, keep, CORPUS_A, CORPUS_B, stage)
    try:
        wait_for(proc, f"stage:{stage}".encode())
    finally:
        kill(proc)
    seen = set(generation_names(root))
    index, left = check_after_crash(root, expected)
    committed = stage in ("committed", "pruning")
    assert index.generation.number == (3 if committed else 2)
    assert index.index_id == (corpus_a if committed else corpus_b).index_id
    assert bool(left["tmp"]) == (stage == "write")
    assert left["pending"] == (stage == "pending")
    if stage in ("renamed", "pending"):
        assert left["orphans"] == ["000003"], "the renamed generation is on disk but must not be current"
        manifest, _ = storage.read_manifest(root / "generations" / "000003")
        assert manifest["index_id"] == corpus_a.index_id
    if stage == "pruning":
        assert left["orphans"] and len(os.listdir(root / "generations" / left["orphans"][0])) < len(storage.DATA_FILES) + 1
    check_recovery(root, corpus_b, expected, seen)


# 2. corruption of every file class -------------------------------------------
def flip(position: str):
    def damage(path: Path) -> None:
        data = bytearray(path.read_bytes())
        at = {"first": 0, "middle": len(data) // 2, "last": len(data) - 1}[position]
        data[at] ^= 0x01  # a single bit
        path.write_bytes(bytes(data))
    return damage


def truncate(fraction: float):
    def damage(path: Path) -> None:
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * fraction)])
    return damage


def delete(path: Path) -> None:
    path.unlink()


def append(path: Path) -> None:
    with open(path, "ab") as handle:
        handle.write(b"\x00")


DAMAGE = {
    "flip-first": flip("first"),
    "flip-middle": flip("middle"),
    "flip-last": flip("last"),
    "truncate-0": truncate(0.0),
    "truncate-half": truncate(0.5),
    "delete": delete,
    "append": append,
}
# both corpora have entity metadata, so their generations store an entity table (docs/entities.md)
ENTITY_FILES = ("entities/documents.json", "entities/names.json")
GENERATION_FILES = storage.DATA_FILES + (storage.MANIFEST,) + ENTITY_FILES


def test_every_file_class_is_covered(pristine):
    on_disk = sorted(snapshot(pristine / "generations" / "000001"))
    assert on_disk == sorted(GENERATION_FILES)
    assert all((pristine / "generations" / "000001" / n).stat().st_size > 1 for n in on_disk)


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("name", GENERATION_FILES)
def test_damaged_generation_file_is_detected(damaged_copy, name, damage):
    root = damaged_copy
    path = root / "generations" / "000001" / name
    DAMAGE[damage](path)
    with pytest.raises(CorruptIndexError) as error:
        open_and_use(root)  # format 2: a large file's damage is caught when its chunk is first used
    assert str(path) in str(error.value)
    with pytest.raises(CorruptIndexError, match=re.escape(name)):
        open_and_use(root, generation=1)
    report = verify_store(root, full=False)
    assert not report.ok
    assert [number for number, _message in report.problems] == [1]
    assert str(path) in report.problems[0][1]


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_current_is_detected(damaged_copy, damage):
    root = damaged_copy
    path = root / CURRENT
    DAMAGE[damage](path)
    expected_error = InputError if damage == "delete" else CorruptIndexError
    with pytest.raises(expected_error) as error:
        Index.open(root)
    assert str(path) in str(error.value) or (damage == "delete" and "no CURRENT file" in str(error.value))
    try:
        report = verify_store(root, full=False)
    except InputError as failure:  # CURRENT unreadable: nothing to verify against
        assert CURRENT in str(failure)
    else:
        assert not report.ok and all(CURRENT in message for _n, message in report.problems)


@pytest.mark.parametrize(
    "changes",
    [{"published": "2026,11-30T00;10:36/262715["}, {"published": 5}, {"generation": "1"}],
    ids=["bad-stamp", "stamp-not-a-string", "generation-not-an-integer"],
)
def test_malformed_history_entry_in_current_is_detected(damaged_copy, changes):
    rewrite_current(damaged_copy, 1, **changes)
    if "generation" in changes:
        state = json.loads((damaged_copy / CURRENT).read_text("utf-8"))
        state["current"] = changes["generation"]
        write_current(damaged_copy, state)
    with pytest.raises(CorruptIndexError, match=re.escape(str(damaged_copy / CURRENT))):
        Index.open(damaged_copy, as_of="2099-01-01")


def test_an_edit_of_current_without_its_checksum_is_detected(damaged_copy):
    data = (damaged_copy / CURRENT).read_bytes()
    stamp = json.loads(data)["generations"][0]["published"]
    earlier = stamp[:-2] + ("0" if stamp[-2] != "0" else "1") + "Z"
    (damaged_copy / CURRENT).write_bytes(data.replace(stamp.encode(), earlier.encode()))
    with pytest.raises(CorruptIndexError, match="checksum does not match"):
        Index.open(damaged_copy)


def test_generation_swapped_in_from_another_index(tmp_path, corpus_a, corpus_b):
    x, y = tmp_path / "x", tmp_path / "y"
    corpus_b.save(x)
    corpus_a.save(y)
    target = y / "generations" / "000001"
    shutil.rmtree(target)
    shutil.copytree(x / "generations" / "000001", target)
    with pytest.raises(CorruptIndexError, match="altered or swapped") as error:
        Index.open(y)
    assert str(target / storage.MANIFEST) in str(error.value)
    report = verify_store(y, full=False)
    assert [n for n, _m in report.problems] == [1] and "swapped" in report.problems[0][1]


def test_data_file_swapped_in_from_another_index(tmp_path, corpus_a, corpus_b):
    x, y = tmp_path / "x", tmp_path / "y"
    corpus_b.save(x)
    corpus_a.save(y)
    shutil.copyfile(x / "generations" / "000001" / storage.TERMS, y / "generations" / "000001" / storage.TERMS)
    with pytest.raises(CorruptIndexError, match=re.escape(str(y / "generations" / "000001" / storage.TERMS))):
        Index.open(y)


@pytest.mark.parametrize("rehash", [False, True], ids=["manifest-only", "current-updated"])
def test_manifest_of_another_format_version_is_unsupported(damaged_copy, rehash):
    root = damaged_copy
    directory = root / "generations" / "000001"
    manifest = json.loads((directory / storage.MANIFEST).read_text("utf-8"))
    manifest["format"] = "regrag-index/999"
    data = write_manifest(directory, manifest)
    if rehash:
        rewrite_current(root, 1, manifest_sha256=hashlib.sha256(data).hexdigest())
    with pytest.raises(CorruptIndexError, match=r"'regrag-index/999' is not supported") as error:
        Index.open(root)
    assert str(directory / storage.MANIFEST) in str(error.value)
    report = verify_store(root, full=False)
    assert "regrag-index/999" in report.problems[0][1] and "not supported" in report.problems[0][1]


def test_current_of_another_store_format_is_rejected(damaged_copy):
    state = json.loads((damaged_copy / CURRENT).read_text("utf-8"))
    state["format"] = "regrag-store/999"
    write_current(damaged_copy, state)
    with pytest.raises(CorruptIndexError, match=r"CURRENT: format 'regrag-store/999'"):
        Index.open(damaged_copy)


def test_consistent_forgery_passes_quick_check_but_not_full(damaged_copy, corpus_a):
    root = damaged_copy
    name = "length_norms.f64"
    path = root / "generations" / "000001" / name
    impacts = array("d")
    impacts.frombytes(path.read_bytes())
    if sys.byteorder == "big":
        impacts.byteswap()
    impacts[len(impacts) // 2] += 0.5  # one float edited
    if sys.byteorder == "big":
        impacts.byteswap()
    forge(root, 1, name, impacts.tobytes())

    quick = verify_store(root, full=False)
    assert quick.ok, "a consistent forgery cannot be caught by hashes alone"
    forged = Index.open(root)  # opens: every hash matches
    assert forged.index_id == corpus_a.index_id
    full = verify_store(root, full=True)
    assert not full.ok
    assert full.problems[0][0] == 1
    assert str(path) in full.problems[0][1] and "differs from a fresh index" in full.problems[0][1]


def _drop_last_posting(data: bytes) -> bytes:
    return data[:-1]


def _zero_first_frequency(data: bytes) -> bytes:
    """posting_starts.i32 with the first term given no posting."""
    return data[:4] + (0).to_bytes(4, "little") + data[8:]


def _out_of_range_posting(data: bytes) -> bytes:
    """positions.bin with the first term's first gap (whatever its width) at least 255: past every passage."""
    return b"\xff" + data[1:]


@pytest.mark.parametrize(
    ("name", "edit", "message"),
    [
        ("positions.bin", _drop_last_posting, r"position_blocks\.i64: does not describe positions\.bin"),
        ("frequency_codes.bin", _drop_last_posting, r"manifest\.json: posting_count is \d+, the data files hold \d+"),
        ("posting_starts.i32", _zero_first_frequency, r"posting_starts\.i32: does not add up"),
        ("term_blocks.i32", lambda data: data[:4], r"term_blocks\.i32|term_count"),
    ],
    ids=["short-positions", "short-codes", "zero-frequency", "other-terms"],
)
def test_consistent_forgery_of_mismatched_files_fails_structural_checks(damaged_copy, name, edit, message):
    root = damaged_copy
    path = root / "generations" / "000001" / name
    forge(root, 1, name, edit(path.read_bytes()))  # every hash consistent, the files do not fit together
    with pytest.raises(CorruptIndexError, match=message):
        open_and_use(root)  # on open, or where the term is first read
    report = verify_store(root, full=False)
    assert [n for n, _m in report.problems] == [1] and re.search(message, report.problems[0][1])


@pytest.mark.parametrize("memory_map", [True, False])
def test_consistent_forgery_of_an_out_of_range_posting_is_caught_before_use(damaged_copy, memory_map):
    # Positions are checked per term when a query first reads the term (so
    # opening a memory-mapped index does not read every posting), and for
    # every term by verify.
    root = damaged_copy
    path = root / "generations" / "000001" / "positions.bin"
    forge(root, 1, "positions.bin", _out_of_range_posting(path.read_bytes()))
    index = Index.open(root, memory_map=memory_map)
    first_term = next(iter(index.inverted.postings))
    with pytest.raises(CorruptIndexError, match=r"positions\.bin: passage position out of range"):
        index.inverted.postings[first_term]
    report = verify_store(root, full=False)
    assert [n for n, _m in report.problems] == [1]
    assert re.search(r"positions\.bin: passage position out of range", report.problems[0][1])


def test_consistent_forgery_of_a_document_is_caught_by_full_check(damaged_copy, corpus_a):
    root = damaged_copy
    path = root / "generations" / "000001" / storage.DOCUMENTS
    lines = path.read_bytes().split(b"\n")
    record = json.loads(lines[0])
    record["text"] = "X" + record["text"][1:]  # same length: passages and spans still fit
    lines[0] = canonical_bytes(record)
    forge(root, 1, storage.DOCUMENTS, b"\n".join(lines))
    assert verify_store(root, full=False).ok  # the stored content hash is not recomputed on open
    assert Index.open(root).document(record["id"]).text.startswith("X")
    full = verify_store(root, full=True)
    assert not full.ok
    assert str(path) in full.problems[0][1]


# 3. two writers -------------------------------------------------------------
LOCK_HOLDER = r"""
import sys
from regrag.index.directory import IndexStore
with IndexStore(sys.argv[1]).writer_lock():
    print("locked", flush=True)
    sys.stdin.readline()
print("released", flush=True)
"""


def test_second_writer_process_gets_locked_error(tmp_path, corpus_a, corpus_b):
    root = tmp_path / "index"
    corpus_a.save(root)
    before = (root / CURRENT).read_bytes()
    holder = spawn(LOCK_HOLDER, root, stdin=subprocess.PIPE)
    try:
        wait_for(holder, b"locked")
        with pytest.raises(LockedError) as error:
            corpus_b.save(root)
        assert isinstance(error.value, InputError)
        assert str(root / LOCK) in str(error.value)
        assert "another process is writing" in str(error.value)
        # the refused writer changed nothing, and readers do not need the lock
        assert (root / CURRENT).read_bytes() == before
        assert generation_names(root) == ["000001"]
        assert Index.open(root).index_id == corpus_a.index_id
        holder.stdin.write(b"\n")
        holder.stdin.close()
        wait_for(holder, b"released")
    finally:
        if holder.poll() is None:
            holder.wait(10)
        holder.stdout.close()
        holder.stderr.close()
    assert holder.returncode == 0
    entry = corpus_b.save(root)
    assert entry.number == 2 and Index.open(root).index_id == corpus_b.index_id


def test_writer_lock_conflicts_within_one_process(tmp_path, corpus_a):
    root = tmp_path / "index"
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with IndexStore(root).writer_lock():
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(10)
        with pytest.raises(LockedError, match="another process is writing"):
            corpus_a.save(root)
        with pytest.raises(LockedError):
            with IndexStore(root).writer_lock():
                pass
        assert not (root / CURRENT).exists()
    finally:
        release.set()
        thread.join(10)
    assert corpus_a.save(root).number == 1


# 4. readers during publish ------------------------------------------------------
def test_open_reader_survives_publish_and_pruning(tmp_path, corpus_a, corpus_b, expected):
    root = tmp_path / "index"
    corpus_a.save(root)
    reader = Index.open(root)
    before = fingerprint(reader)
    corpus_b.save(root)
    assert fingerprint(reader) == before
    assert Index.open(root, generation=1).index_id == corpus_a.index_id
    corpus_b.save(root, keep=1)  # generation 3; generations 1 and 2 are removed
    assert generation_names(root) == ["000003"]
    assert fingerprint(reader) == before == expected[corpus_a.index_id]
    assert reader.generation.number == 1
    with pytest.raises(InputError, match=r"generation 1 is not retained \(kept: 3\)"):
        Index.open(root, generation=1)
    with pytest.raises(InputError, match="not retained"):
        verify_store(root, generation=1)
    assert Index.open(root).index_id == corpus_b.index_id
    with pytest.raises(InputError, match="positive integer"):
        corpus_b.save(root, keep=0)


def test_reader_racing_a_pruning_publish(tmp_path, corpus_a, corpus_b, monkeypatch):
    root = tmp_path / "index"
    corpus_a.save(root)
    original = IndexStore.generation_for

    def racing(self, generation=None, as_of=None):
        entry = original(self, generation, as_of)  # the reader has read CURRENT ...
        monkeypatch.setattr(IndexStore, "generation_for", original)
        corpus_b.save(root, keep=1)  # ... a writer publishes and prunes before it reads the files
        return entry

    monkeypatch.setattr(IndexStore, "generation_for", racing)
    index = Index.open(root)
    assert index.index_id in (corpus_a.index_id, corpus_b.index_id)


# 5. byte-identical re-indexing -----------------------------------------------------
def test_same_corpus_gives_byte_identical_generations(tmp_path, corpus_b):
    documents = list(corpus_b.inverted.documents.values())
    forward, backward, loaded = tmp_path / "forward", tmp_path / "backward", tmp_path / "loaded"
    Index.from_documents(documents).save(forward)
    Index.from_documents(list(reversed(documents))).save(backward)
    corpus_b.save(loaded)
    time.sleep(0.002)  # a later publish of the same corpus
    Index.from_documents(documents[::2] + documents[1::2]).save(forward)

    reference = snapshot(forward / "generations" / "000001")
    assert sorted(reference) == sorted(GENERATION_FILES)
    for other in (backward / "generations" / "000001", loaded / "generations" / "000001",
                  forward / "generations" / "000002"):
        copy = snapshot(other)
        assert sorted(copy) == sorted(reference)
        for name in reference:
            assert copy[name] == reference[name], f"{other / name} differs"

    published = [g.published for g in IndexStore(forward).history()[1]]
    assert published[0] != published[1]
    manifest_text = reference[storage.MANIFEST].decode("utf-8")
    manifest = json.loads(manifest_text)
    assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", manifest_text)
    assert not any(p in manifest_text for p in published)
    assert not {k for k in manifest if re.search("time|date|published|created|host|user|path", k)}
    # the two CURRENT files differ only in the publication stamps
    for entry in IndexStore(backward).history()[1] + IndexStore(loaded).history()[1]:
        assert entry.manifest_sha256 == IndexStore(forward).history()[1][0].manifest_sha256


# 6. point in time ---------------------------------------------------------------
T1 = datetime(2026, 1, 1, 10, 0, tzinfo=UTC)
T2 = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
T3 = datetime(2026, 1, 3, 8, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def three_generations(tmp_path_factory, corpus_a, corpus_b) -> tuple[Path, tuple[str, str, str]]:
    root = tmp_path_factory.mktemp("as_of") / "index"
    third = corpus_a.updated(deletions=[sorted(corpus_a.inverted.documents)[0]])
    ids = (corpus_a.index_id, corpus_b.index_id, third.index_id)
    assert len(set(ids)) == 3
    store = IndexStore(root)
    for index, moment in zip((corpus_a, corpus_b, third), (T1, T2, T3)):
        store.publish(index.inverted, "test", now=moment)
    return root, ids


@pytest.mark.parametrize(
    ("as_of", "number"),
    [
        (T1, 1),
        ("2026-01-01T10:00:00Z", 1),
        ("2026-01-01T10:00:00.000000Z", 1),
        ("2026-01-02T11:59:59.999999Z", 1),
        ("2026-01-02T12:00:00Z", 2),
        ("2026-01-02T12:00:00.5Z", 2),
        (T2, 2),
        (T2 - timedelta(microseconds=1), 1),
        ("2026-01-02T19:00:00+07:00", 2),
        ("2026-01-02T18:59:59+07:00", 1),
        ("2026-01-02T07:00:00-05:00", 2),
        (datetime(2026, 1, 2, 12, 0, tzinfo=timezone(timedelta(hours=7))), 1),  # 05:00 UTC
        ("2026-01-01", 1),  # end of that day
        ("2026-01-02", 2),
        ("2026-01-03", 3),
        (" 2026-01-03T08:00:00Z ", 3),
        ("2099-01-01T00:00:00Z", 3),
    ],
)
def test_as_of_picks_the_generation_current_at_that_time(three_generations, as_of, number):
    root, ids = three_generations
    index = Index.open(root, as_of=as_of)
    assert index.generation.number == number
    assert index.index_id == ids[number - 1]


@pytest.mark.parametrize(
    ("as_of", "message"),
    [
        ("2026-01-01T09:59:59.999999Z", "no generation was published by 2026-01-01T09:59:59.999999Z"),
        (T1 - timedelta(microseconds=1), "no generation was published by"),
        ("2025-12-31", "no generation was published by 2025-12-31T23:59:59.999999Z"),
        ("2026-01-02T12:00:00", "give a time zone"),
        (datetime(2026, 1, 2, 12, 0), "time zone"),  # naive datetime
        ("yesterday", "expected an ISO 8601 time"),
        ("2026-13-01", "expected an ISO 8601 time"),
    ],
)
def test_as_of_rejects_times_before_the_first_and_naive_times(three_generations, as_of, message):
    root, _ids = three_generations
    with pytest.raises(InputError, match=re.escape(message)):
        Index.open(root, as_of=as_of)


def test_as_of_and_generation_together_are_refused(three_generations):
    root, _ids = three_generations
    with pytest.raises(InputError, match="not both"):
        Index.open(root, generation=1, as_of=T3)
    assert Index.open(root).generation.number == 3


def test_clock_going_backwards_keeps_stamps_increasing(tmp_path, corpus_a, corpus_b):
    root = tmp_path / "index"
    store = IndexStore(root)
    moments = [T3, T1, T1, T2, T3 + timedelta(days=1)]
    entries = [store.publish((corpus_a if i % 2 else corpus_b).inverted, "test", now=m, allow_clock_skew=True)
               for i, m in enumerate(moments)]  # steps back of days: refused without allow_clock_skew
    stamps = [e.published for e in entries]
    assert stamps == [
        "2026-01-03T08:00:00.000000Z",
        "2026-01-03T08:00:00.000001Z",  # T1 is earlier: one microsecond after the previous
        "2026-01-03T08:00:00.000002Z",
        "2026-01-03T08:00:00.000003Z",
        "2026-01-04T08:00:00.000000Z",
    ]
    assert [g.published for g in store.history()[1]] == stamps
    assert stamps == sorted(set(stamps))
    assert Index.open(root, as_of=T3).generation.number == 1
    assert Index.open(root, as_of="2026-01-03T08:00:00.000002Z").generation.number == 3
    assert Index.open(root, as_of="2026-01-03").generation.number == 4
    with pytest.raises(InputError, match="no generation was published"):
        Index.open(root, as_of=T2)
    # a naive `now` is refused and the current generation is unchanged
    with pytest.raises(InputError, match="time zone"):
        store.publish(corpus_a.inverted, "test", now=datetime(2026, 2, 1))
    assert store.history()[0] == 5


def test_a_naive_publish_time_is_refused_before_anything_is_written(tmp_path, corpus_a):
    from datetime import datetime

    root = tmp_path / "index"
    corpus_a.save(root)
    before = sorted(p.name for p in (root / "generations").iterdir())
    with pytest.raises(InputError, match="time zone"):
        IndexStore(root).publish(corpus_a.inverted, "test", now=datetime(2026, 1, 3))
    assert sorted(p.name for p in (root / "generations").iterdir()) == before
