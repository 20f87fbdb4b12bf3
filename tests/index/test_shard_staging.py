"""Shard files staged by the tasks that build them (regrag.index.shard_staging;
docs/distributed.md, "Design"): the published generation is byte for byte the one
``publish_sharded`` writes from the same shards' bytes (S in {1, 2, 4}); the driver
refuses a staged file that is missing, of another size or digest, a link, unlisted or
not named by its manifests, with nothing published; a fault at any write of the
publish leaves the previous generation current; a retried attempt changes nothing;
the staging folder goes, and a task cannot write into a removed one."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from regrag import Index
from regrag.errors import InputError
from regrag.index.directory import IndexStore
from regrag.index.parameters import IndexParameters
from regrag.index.shard_staging import (
    STAGING_PREFIX, check_staged, commit_staged, file_digest, new_staging, remove_staging, stage_shard,
)
from regrag.index.sharded import build_sharded, publish_sharded
from regrag.text.analyzer import Analyzer
from tests.faulty_file_system import FaultyFileSystem
from tests.index.test_shards import corpus

ANALYZER = Analyzer("auto")
PARAMETERS = IndexParameters(title_weight=1.3)


@pytest.fixture(scope="module")
def built():
    documents = corpus(11, 60)
    return {shards: build_sharded(documents, ANALYZER, PARAMETERS, shards) for shards in (1, 2, 4)}


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but ``CURRENT`` (it holds the publication time) and the lock."""
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*"))
            if path.is_file() and path.name not in ("CURRENT", "LOCK")}


def staged_copy(root: Path, files: dict) -> tuple[Path, dict]:
    folder = new_staging(root)
    return folder, {shard: stage_shard(folder, shard, files[shard], "attempt-1") for shard in sorted(files)}


@pytest.mark.parametrize("shards", (1, 2, 4))
def test_the_staged_publication_is_the_in_memory_one_byte_for_byte(built, tmp_path, shards):
    files, statistics = built[shards]
    publish_sharded(tmp_path / "memory", files, statistics, ANALYZER, PARAMETERS)
    store = IndexStore(tmp_path / "staged")
    folder, staged = staged_copy(store.root, files)
    assert staged[0] == sorted((name, len(data), hashlib.sha256(data).hexdigest())
                               for name, data in files[0].items())
    result = commit_staged(store, folder, staged, statistics, ANALYZER, PARAMETERS)
    remove_staging(folder)
    expected = tree(tmp_path / "memory")
    assert len(expected) > 3 * shards and tree(tmp_path / "staged") == expected  # every shard file and the manifest
    assert result.generation.index_id == statistics.index_id == Index.open(tmp_path / "memory").index_id
    assert sorted(os.listdir(tmp_path / "staged" / "generations")) == ["000001"]  # no staging folder left


def test_a_retried_attempt_renames_the_same_bytes_over_the_first(built, tmp_path):
    files, _statistics = built[2]
    folder = new_staging(tmp_path)
    first = stage_shard(folder, 1, files[1], "7-100")
    before = tree(folder)
    assert stage_shard(folder, 1, files[1], "9-101") == first
    assert tree(folder) == before  # no temporary file of either attempt is left
    assert all(not name.rsplit("/", 1)[-1].startswith(".") for name in before)


def test_a_task_cannot_write_into_a_removed_staging_folder(built, tmp_path):
    files, _statistics = built[2]
    folder = new_staging(tmp_path)
    assert folder.parent == tmp_path / "generations" and folder.name.startswith(STAGING_PREFIX)
    stage_shard(folder, 0, files[0], "a")
    remove_staging(folder)
    assert os.listdir(tmp_path / "generations") == []
    with pytest.raises(InputError, match="the staging folder is not visible here: every executor must see"):
        stage_shard(folder, 1, files[1], "b")
    assert os.listdir(tmp_path / "generations") == []  # not made again


def _damages(folder: Path, staged: dict):
    """(what is done to the staged shard 1, the file the refusal names)."""
    name = max((size, name) for name, size, _digest in staged[1] if not name.endswith("segment.json"))[1]
    path = folder / "shards" / "000001" / name
    listing = dict((entry[0], entry) for entry in staged[1])

    def flipped():
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 1
        path.write_bytes(bytes(data))

    def linked():
        copy = path.with_name("copy")
        copy.write_bytes(path.read_bytes())
        path.unlink()
        path.symlink_to(copy)

    yield "missing", lambda: path.unlink(), staged, name
    yield "one byte changed", flipped, staged, name
    yield "a byte more", lambda: path.write_bytes(path.read_bytes() + b"x"), staged, name
    yield "a link to the same bytes", linked, staged, name
    yield "not reported", lambda: None, {**staged, 1: [e for e in staged[1] if e[0] != name]}, "reported other files"
    yield "reported twice the size", lambda: None, \
        {**staged, 1: [e if e[0] != name else (name, e[1] * 2, e[2]) for e in staged[1]]}, name
    yield "an unknown file", lambda: None, {**staged, 1: [*staged[1], ("extra.bin", 0, "0" * 64)]}, "extra.bin"
    yield "outside its folder", lambda: None, {**staged, 1: [*staged[1], ("../000000/shard.json",) + listing["shard.json"][1:]]}, \
        "is not the name of a shard file"
    yield "a shard missing", lambda: None, {0: staged[0]}, "expected the files of shards 0 to 1"


@pytest.mark.parametrize("damage", range(9))
def test_a_staged_file_that_is_not_what_its_task_reported_is_refused(built, tmp_path, damage):
    files, statistics = built[2]
    publish_sharded(tmp_path / "index", *built[1], ANALYZER, PARAMETERS)  # the previous generation
    store = IndexStore(tmp_path / "index")
    folder, staged = staged_copy(store.root, files)
    what, act, reported, named = list(_damages(folder, staged))[damage]
    act()
    with pytest.raises(InputError, match=named.replace(".", r"\.").replace("(", r"\(")):
        commit_staged(store, folder, reported, statistics, ANALYZER, PARAMETERS, base=1)
    remove_staging(folder)
    assert store.current_number() == 1, what
    assert sorted(os.listdir(store.root / "generations")) == ["000001"], what
    assert Index.open(store.root).index_id == statistics.index_id  # the same corpus: still readable


def test_check_staged_returns_the_small_files_the_manifest_needs(built, tmp_path):
    files, _statistics = built[4]
    folder, staged = staged_copy(tmp_path, files)
    records, segments = check_staged(folder, 4, staged)
    assert records == [files[shard]["shard.json"] for shard in range(4)]
    assert segments == {(shard, name): data for shard in range(4) for name, data in files[shard].items()
                        if name.endswith("/segment.json")}
    some = folder / "shards" / "000000" / "shard.json"
    assert file_digest(some, some.stat().st_size + 1) is None and file_digest(folder / "nothing", 0) is None


def test_a_stale_base_is_refused_before_a_staged_file_is_read(built, tmp_path):
    from regrag.index.publishing import StaleBaseError

    files, statistics = built[2]
    publish_sharded(tmp_path / "index", *built[1], ANALYZER, PARAMETERS)
    store = IndexStore(tmp_path / "index")
    folder, staged = staged_copy(store.root, files)
    with pytest.raises(StaleBaseError, match="generation 1 was published while this index was being computed"):
        commit_staged(store, folder, {}, statistics, ANALYZER, PARAMETERS, base=0)


def test_a_fault_at_any_write_of_the_publish_leaves_the_previous_generation(built, tmp_path):
    files, statistics = built[2]

    def attempt(root: Path, fail_at: int | None):
        publish_sharded(root, *built[1], ANALYZER, PARAMETERS)
        store = IndexStore(root)
        folder, staged = staged_copy(root, files)
        faulty = FaultyFileSystem(fail_at=fail_at)
        try:
            with faulty.active():
                commit_staged(store, folder, staged, statistics, ANALYZER, PARAMETERS, base=1)
        except InputError as error:
            assert "cannot write" in str(error) or "flushed" in str(error), error
        finally:
            remove_staging(folder)
        return store, faulty

    clean, _faulty = attempt(tmp_path / "clean", None)
    published = tree(clean.root)
    previous = {name: data for name, data in published.items() if not name.startswith("generations/000002/")}
    for fail_at in range(1, 400):
        store, faulty = attempt(tmp_path / f"run{fail_at}", fail_at)
        if faulty.failed is None:  # every write-side call of the publish has been failed once
            break
        found = tree(store.root)
        assert found == (previous if store.current_number() == 1 else published), faulty.failed
        assert sorted(os.listdir(store.root / "generations")) == \
            ["000001", "000002"][:store.current_number()], faulty.failed  # no .tmp- or staging folder left
    assert faulty.failed is None and fail_at > 20
