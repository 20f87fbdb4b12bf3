"""The rules of publishing (issue 12): a stale writer cannot revert a newer
generation, an update cannot silently delete most of the corpus, pruning
says what it pruned and can spare what a ledger needs, verify does not call a
generation pruned meanwhile damaged, clocks and caps are checked before
anything is written, Ctrl-C leaves no debris, and a no-op update publishes
nothing."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from regrag import Index
from regrag.audit.canonical import canonical_bytes
from regrag.cli import main
from regrag.errors import CorruptIndexError, InputError
from regrag.index import build, publishing, codec as storage
from regrag.index import directory as store_module
from regrag.index.directory import CURRENT, IndexStore, state_checksum
from regrag.index.verify import verify_store
from regrag.limits import LimitError, Limits

UTC = timezone.utc


def write_corpus(path: Path, count: int, version: str) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(count):
            handle.write(json.dumps({"id": f"d{i:03d}", "title": f"title {i}",
                                     "text": f"document {i} version {version} word{i % 7} apple"}) + "\n")
    return path


@pytest.fixture
def corpora(tmp_path: Path) -> tuple[Path, Path]:
    return write_corpus(tmp_path / "v1.jsonl", 40, "one"), write_corpus(tmp_path / "v2.jsonl", 40, "two")


def run(capsys, *arguments: str) -> tuple[int, str, str]:
    status = main(list(arguments))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def names(root: Path) -> list[str]:
    return sorted(os.listdir(root / "generations"))


def documents(path: Path) -> list:
    from regrag.corpus.load import load_corpus

    return list(load_corpus(str(path)).documents)


def write_state(root: Path, state: dict) -> None:
    state = {k: v for k, v in state.items() if k != "checksum"}
    state["checksum"] = state_checksum(state)
    (root / CURRENT).write_bytes(canonical_bytes(state) + b"\n")


# 1. a stale writer ------------------------------------------------------------------
def test_an_update_computed_from_an_older_generation_is_refused(tmp_path, corpora):
    """Writer A computes an update from generation 1; writer B publishes
    generation 2 meanwhile (the SIGSTOP race, made deterministic); A's
    publish must not make its older corpus current again."""
    v1, v2 = corpora
    root = tmp_path / "index"
    Index.from_documents(documents(v1)).save(root)
    a = Index.open(root)
    upserts, deletions = a.changes_to(documents(v1)[:-1])
    stale = a.updated(upserts, deletions)
    b = Index.from_documents(documents(v2))
    assert b.save(root).number == 2
    with pytest.raises(publishing.StaleBaseError) as caught:
        stale.save(root, base=a.generation.number)
    assert str(caught.value) == (
        f"{root}: generation 2 was published while this index was being computed from generation 1; "
        "nothing was published (generation 2 stays current): run the command again")
    assert Index.open(root).index_id == b.index_id and names(root) == ["000001", "000002"]
    assert stale.save(root, base=2).number == 3  # computed from the current one: published


def test_cli_update_refuses_when_another_writer_published_meanwhile(tmp_path, capsys, corpora, monkeypatch):
    v1, v2 = corpora
    root = tmp_path / "index"
    assert run(capsys, "index", str(v1), "--out", str(root))[0] == 0
    newer = Index.from_documents(documents(v2))
    original = Index.updated

    def updated_then_paused(self, *args, **kwargs):  # writer B publishes while A is "stopped" here
        result = original(self, *args, **kwargs)
        newer.save(root)
        return result

    monkeypatch.setattr(Index, "updated", updated_then_paused)
    write_corpus(tmp_path / "v1b.jsonl", 39, "one")
    status, out, err = run(capsys, "index", str(tmp_path / "v1b.jsonl"), "--out", str(root), "--update")
    assert status == 2 and out == ""
    assert "generation 2 was published while this index was being computed from generation 1" in err
    assert Index.open(root).index_id == newer.index_id and Index.open(root).generation.number == 2


@pytest.mark.parametrize("mode", ["rebuild", "update"])
def test_cli_refuses_to_publish_over_a_generation_published_while_it_read_the_corpus(tmp_path, capsys, corpora,
                                                                                    monkeypatch, mode):
    """The SIGSTOP trial of the issue: A is stopped while reading its corpus
    (before it opens the index for --update), B publishes, A resumes."""
    import regrag.cli.index as cli

    v1, v2 = corpora
    root = tmp_path / "index"
    assert run(capsys, "index", str(v1), "--out", str(root))[0] == 0
    newer = Index.from_documents(documents(v2))
    original = cli._load_corpus

    def load_then_paused(arguments, path):
        corpus = original(arguments, path)
        newer.save(root)
        return corpus

    monkeypatch.setattr(cli, "_load_corpus", load_then_paused)
    write_corpus(tmp_path / "v1b.jsonl", 39, "one")
    status, _out, err = run(capsys, "index", str(tmp_path / "v1b.jsonl"), "--out", str(root),
                            *(["--update"] if mode == "update" else []))
    assert status == 2 and "generation 2 was published while this index was being computed from generation 1" in err
    assert Index.open(root).index_id == newer.index_id


def test_first_build_refuses_when_another_writer_created_the_directory_meanwhile(tmp_path, corpora):
    v1, v2 = corpora
    root = tmp_path / "index"
    Index.from_documents(documents(v2)).save(root)
    with pytest.raises(publishing.StaleBaseError, match="computed from no generation"):
        Index.from_documents(documents(v1)).save(root, base=0)


# 2. mass deletion, pruning, ledgers --------------------------------------------------
def test_an_update_deleting_most_documents_is_refused_unless_allowed(tmp_path, capsys, corpora):
    v1, _v2 = corpora
    root = tmp_path / "index"
    run(capsys, "index", str(v1), "--out", str(root))
    half = tmp_path / "half.jsonl"
    half.write_bytes(b"".join(v1.read_bytes().splitlines(keepends=True)[:10]))  # a half-written file
    status, out, err = run(capsys, "index", str(half), "--out", str(root), "--update", "--keep", "1")
    assert status == 2 and out == ""
    assert err == (f"regrag: error: {root}: this update would delete 30 of the 40 documents of generation 1 "
                   "(more than 50%); nothing was published. An empty or half-written corpus file looks like this: "
                   "check the corpus, or pass --allow-deletions if the deletions are intended\n")
    assert names(root) == ["000001"]
    status, out, _err = run(capsys, "index", str(half), "--out", str(root), "--update", "--keep", "1",
                            "--allow-deletions")
    assert status == 0 and "30 deleted" in out and "pruned       generation 1 (--keep 1)" in out
    # exactly half is allowed
    write_corpus(tmp_path / "five.jsonl", 5, "one")
    assert run(capsys, "index", str(tmp_path / "five.jsonl"), "--out", str(root), "--update")[0] == 0


def test_keep_says_what_it_pruned_and_spares_generations_a_ledger_needs(tmp_path, capsys, corpora):
    v1, v2 = corpora
    root, ledger = tmp_path / "index", tmp_path / "ledger.jsonl"
    run(capsys, "index", str(v1), "--out", str(root))
    assert run(capsys, "search", "apple", "--index", str(root), "--ledger", str(ledger))[0] == 0
    run(capsys, "index", str(v2), "--out", str(root))
    status, out, _err = run(capsys, "index", str(v1), "--out", str(root), "--keep", "1", "--ledger", str(ledger))
    assert status == 0
    assert "pruned       generation 2 (--keep 1)" in out
    assert f"protected    generation 1 (records of {ledger} need them)" in out
    assert [g.number for g in IndexStore(root).history()[1]] == [1, 3] and names(root) == ["000001", "000003"]
    status, out, _err = run(capsys, "ledger", "replay", str(ledger), "--index", str(root))
    assert status == 0 and "1 of 1 records replayed identically" in out
    # without the ledger, --keep prunes it and says so
    status, out, _err = run(capsys, "index", str(v2), "--out", str(root), "--keep", "1")
    assert status == 0 and "pruned       generations 1, 3 (--keep 1)" in out
    status, out, err = run(capsys, "index", str(v1), "--out", str(root), "--keep", "1", "--ledger", str(ledger))
    assert status == 0 and "refers to generation 1, no longer retained: ledger replay cannot re-run those records" in err
    assert run(capsys, "index", str(v1), "--out", str(root), "--ledger", str(ledger))[0] == 2  # --ledger needs --keep


# 4. verify while a writer prunes -----------------------------------------------------
@pytest.mark.parametrize("when", ["before-loading", "during-re-index"])
def test_verify_reports_a_generation_pruned_during_the_check_as_pruned(tmp_path, capsys, corpora, monkeypatch, when):
    v1, v2 = corpora
    root = tmp_path / "index"
    Index.from_documents(documents(v1)).save(root)
    Index.from_documents(documents(v2)).save(root)
    pruner = Index.from_documents(documents(v1)[:5])
    done: list[int] = []
    keep = [1]

    def prune() -> None:
        if not done:
            done.append(1)
            pruner.save(root, keep=keep[0])  # prunes while verify is on the first generation

    if when == "before-loading":
        original = IndexStore._load_generation
        monkeypatch.setattr(IndexStore, "_load_generation", lambda self, entry: (prune(), original(self, entry))[1])
    else:
        original_build = build.build_index
        monkeypatch.setattr(build, "build_index", lambda *a, **k: (prune(), original_build(*a, **k))[1])
    report = verify_store(root, full=True)
    # both listed generations were pruned: the check went on with the next snapshot (generation 3)
    assert report.ok and report.problems == () and report.pruned == (1, 2) and report.checked == (3,)
    done.clear()
    keep[0] = 2
    Index.from_documents(documents(v2)).save(root)  # generations 3 and 4 retained; the pruner publishes 5, prunes 3
    status, out, err = run(capsys, "verify", str(root))
    assert status == 0, err
    assert out == ("generation 4: ok (sizes, hashes and a full re-index of the stored documents)\n"
                   "generation 3: pruned by a writer during the check (no longer retained; not checked)\n")


def test_verify_still_reports_damage_of_a_retained_generation(tmp_path, corpora):
    v1, _v2 = corpora
    root = tmp_path / "index"
    Index.from_documents(documents(v1)).save(root)
    path = root / "generations" / "000001" / "lengths.f64"
    data = bytearray(path.read_bytes())
    data[0] ^= 1
    path.write_bytes(bytes(data))
    report = verify_store(root, full=False)
    assert not report.ok and report.pruned == () and report.problems[0][0] == 1


# 7. clocks and caps --------------------------------------------------------------------
def test_a_stamp_at_the_end_of_time_gives_a_clear_error_and_no_debris(tmp_path, corpora):
    v1, v2 = corpora
    root = tmp_path / "index"
    store = IndexStore(root)
    store.publish(Index.from_documents(documents(v1)).inverted, "t", now=datetime(2026, 1, 1, tzinfo=UTC))
    store.publish(Index.from_documents(documents(v2)).inverted, "t",
                  now=datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC))
    for allow in (False, True):
        with pytest.raises(publishing.ClockError) as caught:
            store.publish(Index.from_documents(documents(v1)).inverted, "t", allow_clock_skew=allow)
        assert "generation 2 was published at 9999-12-31T23:59:59.999999Z" in str(caught.value)
        assert ("the latest time a stamp can hold" in str(caught.value)) == allow
        assert names(root) == ["000001", "000002"] and store.history()[0] == 2


def test_a_clock_far_behind_the_newest_stamp_is_refused_unless_allowed(tmp_path, capsys, corpora):
    v1, v2 = corpora
    root = tmp_path / "index"
    store = IndexStore(root)
    store.publish(Index.from_documents(documents(v1)).inverted, "t", now=datetime(2026, 1, 1, tzinfo=UTC))
    store.publish(Index.from_documents(documents(v2)).inverted, "t", now=datetime(2100, 1, 1, tzinfo=UTC))  # a glitch
    status, _out, err = run(capsys, "index", str(v1), "--out", str(root))
    assert status == 2 and "generation 2 was published at 2100-01-01T00:00:00.000000Z, later than this clock" in err
    assert names(root) == ["000001", "000002"]
    status, out, _err = run(capsys, "index", str(v1), "--out", str(root), "--allow-clock-skew")
    assert status == 0 and "published    2100-01-01T00:00:00.000001Z" in out
    # a step back within the tolerance is absorbed silently, as before
    small = tmp_path / "small"
    IndexStore(small).publish(Index.from_documents(documents(v1)).inverted, "t", now=datetime(2026, 1, 1, 12, tzinfo=UTC))
    entry = IndexStore(small).publish(Index.from_documents(documents(v2)).inverted, "t",
                                      now=datetime(2026, 1, 1, 11, 30, tzinfo=UTC))
    assert entry.published == "2026-01-01T12:00:00.000001Z"


@pytest.mark.parametrize("edit", ["stamps-equal", "stamps-decrease", "current-not-newest"])
def test_loader_checks_what_the_writer_guarantees(tmp_path, corpora, edit):
    v1, v2 = corpora
    root = tmp_path / "index"
    Index.from_documents(documents(v1)).save(root)
    Index.from_documents(documents(v2)).save(root)
    state = json.loads((root / CURRENT).read_text("utf-8"))
    first, second = state["generations"]
    if edit == "stamps-equal":
        second["published"] = first["published"]
    elif edit == "stamps-decrease":
        first["published"], second["published"] = second["published"], first["published"]
    else:
        state["current"] = 1
    write_state(root, state)
    message = {"current-not-newest": "current generation 1 is not the newest listed (2)"}.get(
        edit, "damaged (publication times do not increase with the generation numbers)")
    with pytest.raises(CorruptIndexError, match=re.escape(f"{root / CURRENT}: {message}")):
        Index.open(root, generation=1)


def test_a_current_larger_than_readers_accept_is_never_written(tmp_path, corpora, monkeypatch):
    v1, _v2 = corpora
    root = tmp_path / "index"
    index = Index.from_documents(documents(v1))
    index.save(root)
    index.save(root)
    size = (root / CURRENT).stat().st_size
    monkeypatch.setattr(store_module, "MAX_CURRENT_BYTES", size + 100)  # room for two entries, not three
    with pytest.raises(InputError, match=re.escape(f"{root / CURRENT}: would be ")) as caught:
        index.save(root)
    assert "more than the" in str(caught.value) and "Retain fewer generations (--keep N)" in str(caught.value)
    assert names(root) == ["000001", "000002"] and Index.open(root).generation.number == 2
    assert index.save(root, keep=2).number == 3  # the recovery works: readers accept the result
    assert Index.open(root).generation.number == 3


def test_a_generation_number_beyond_the_readers_cap_is_never_published(tmp_path, corpora):
    v1, _v2 = corpora
    root = tmp_path / "index"
    index = Index.from_documents(documents(v1))
    index.save(root)
    last = store_module.MAX_GENERATION
    state = json.loads((root / CURRENT).read_text("utf-8"))
    state["generations"][0]["generation"] = state["current"] = last
    write_state(root, state)
    os.rename(root / "generations" / "000001", root / "generations" / f"{last:06d}")
    with pytest.raises(InputError, match=f"generation {last + 1} would exceed {last:,}"):
        index.save(root)
    assert Index.open(root).generation.number == last and names(root) == [f"{last:06d}"]


def test_publish_honours_the_callers_limits(tmp_path, corpora):
    v1, _v2 = corpora
    root = tmp_path / "index"
    index = Index.from_documents(documents(v1))
    with pytest.raises(LimitError, match="the limit is 10"):
        index.save(root, limits=Limits(index_passages=10))
    assert not (root / CURRENT).exists()
    assert index.save(root, limits=Limits(index_passages=40)).number == 1


# 8. Ctrl-C ---------------------------------------------------------------------------------
def test_ctrl_c_while_writing_leaves_the_previous_generation_and_no_debris(tmp_path, capsys, corpora, monkeypatch):
    v1, v2 = corpora
    root = tmp_path / "index"
    Index.from_documents(documents(v1)).save(root)
    original = storage.write_files

    def interrupted(directory, files):
        original(directory, dict(sorted(files.items())[:3]))
        raise KeyboardInterrupt

    monkeypatch.setattr(storage, "write_files", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Index.from_documents(documents(v2)).save(root)
    assert names(root) == ["000001"] and not (root / "CURRENT.tmp").exists()
    status, out, err = run(capsys, "index", str(v2), "--out", str(root))
    assert (status, out, err) == (130, "", "regrag: interrupted; generation 1 is current\n")
    assert names(root) == ["000001"] and verify_store(root, full=False).ok


def test_ctrl_c_just_before_the_commit_point_removes_everything_it_wrote(tmp_path, corpora, monkeypatch):
    """CURRENT.tmp written, not yet renamed; the new CURRENT (with --keep 1)
    is shorter than the old one, which must not be taken for a commit."""
    from regrag.io import writes as atomic

    v1, v2 = corpora
    root = tmp_path / "index"
    for _ in range(3):
        Index.from_documents(documents(v1)).save(root)
    original = atomic.rename

    def rename(source, destination):
        if str(destination).endswith(CURRENT):
            raise KeyboardInterrupt
        original(source, destination)

    monkeypatch.setattr(atomic, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        Index.from_documents(documents(v2)).save(root, keep=1)
    assert names(root) == ["000001", "000002", "000003"] and not (root / "CURRENT.tmp").exists()
    assert Index.open(root).generation.number == 3


def test_ctrl_c_just_after_the_commit_point_keeps_the_published_generation(tmp_path, corpora, monkeypatch):
    from regrag.io import writes as atomic

    v1, v2 = corpora
    root = tmp_path / "index"
    Index.from_documents(documents(v1)).save(root)
    original = atomic.rename

    def rename(source, destination):
        original(source, destination)
        if str(destination).endswith(CURRENT):
            raise KeyboardInterrupt

    monkeypatch.setattr(atomic, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        Index.from_documents(documents(v2)).save(root)
    monkeypatch.setattr(atomic, "rename", original)
    assert Index.open(root).generation.number == 2 and verify_store(root, full=False).ok


# a no-op update ------------------------------------------------------------------------------
def test_an_update_without_changes_publishes_nothing(tmp_path, capsys, corpora):
    v1, _v2 = corpora
    root = tmp_path / "index"
    run(capsys, "index", str(v1), "--out", str(root))
    before = (root / CURRENT).read_bytes()
    status, out, _err = run(capsys, "index", str(v1), "--out", str(root), "--update", "--keep", "1")
    assert (status, out) == (0, "no changes; generation 1 stays current (nothing was published or pruned)\n")
    assert (root / CURRENT).read_bytes() == before and names(root) == ["000001"]


def test_the_tolerance_and_share_are_what_the_docs_say():
    assert publishing.CLOCK_SKEW_TOLERANCE == timedelta(hours=1) and publishing.MAX_DELETED_SHARE == 0.5


def test_verify_exits_2_when_a_writer_prunes_everything_it_tries_to_check(tmp_path, capsys, corpora, monkeypatch):
    v1, _v2 = corpora
    root = tmp_path / "index"
    Index.from_documents(documents(v1)).save(root)
    pruner = Index.from_documents(documents(v1)[:5])
    original = IndexStore._load_generation

    def always_pruned(self, entry):
        pruner.save(root, keep=1)
        return original(self, entry)

    monkeypatch.setattr(IndexStore, "_load_generation", always_pruned)
    status, out, err = run(capsys, "verify", str(root), "--quick")
    assert status == 2 and "DAMAGED" not in out
    assert out.count("pruned by a writer during the check") == 3  # generations 1, 2, 3: three snapshots
    assert err == (f"regrag: error: {root}: nothing was checked: every generation to check was pruned by a writer "
                   "during the check; run verify again\n")
