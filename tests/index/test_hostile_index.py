"""Hostile index directories: every class of damage or forgery, through the
public entry points only (``Index.open``, ``IndexStore.load``,
``verify_store``, the CLI), so the tests hold whatever the loader does inside.

Each case must end in ``CorruptIndexError`` whose message starts with the
exact file at fault, from ``Index.open`` and from ``verify_store``: never a
result, never another exception, never a hang. Cases a reader cannot tell
from an intact index (a rollback to an older ``CURRENT``, a value forged
consistently in the manifest and ``CURRENT``) are tested for what they are:
harmless, or caught only by the full ``verify``. Complements
``test_store_faults.py`` (the first corruption matrix, crashes, locks).

Also here: the index size caps (``Limits.index_passages`` and
``index_postings``) where an index is built and where it is written.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
from array import array
from pathlib import Path
from typing import Any, Callable

import pytest

from regrag import Index
from regrag.audit.canonical import canonical_bytes, canonical_json
from regrag.cli import main
from regrag.corpus.extract.pdf import available as pdf_available
from regrag.corpus.model import Document, Section
from regrag.errors import CorruptIndexError, InputError
from regrag.index import build, codec as storage
from regrag.index.parameters import IndexParameters
from regrag.index.document_access import documents_with_metadata
from regrag.index.directory import CURRENT, state_checksum
from regrag.index.verify import verify_store
from regrag.limits import LimitError, Limits

REPO = Path(__file__).resolve().parents[2]
CORPUS_A = REPO / "corpora" / "regulations" / "documents"
CORPUS_B = REPO / "corpora" / "vn-stock-news" / "documents"
QUERIES = ("liquidity coverage ratio", "minimum reserve requirement", "khối ngoại bán ròng")
GENERATION_FILES = storage.DATA_FILES + (storage.MANIFEST,)
ITEM = {".i32": 4, ".f64": 8}


# helpers ---------------------------------------------------------------------------------
def fingerprint(index: Index) -> str:
    return canonical_json({"id": index.index_id, "root": index.corpus_root,
                           "results": {q: [h.to_dict() for h in index.search(q, k=5)] for q in QUERIES}})


def gen(root: Path, number: int = 1) -> Path:
    return root / "generations" / f"{number:06d}"


def guarded(action: Callable[[], Any], fifos: tuple[Path, ...] = (), seconds: float = 30.0) -> Any:
    """Run ``action``; fail (rather than hang the suite) if it blocks, for
    example on a FIFO, which is then opened for writing to free the thread."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = action()
        except BaseException as error:  # handed to the test below
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for fifo in fifos:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        thread.join(5)
        pytest.fail(f"blocked for {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def open_and_use(root: Path, generation: int | None = None) -> Index:
    """``Index.open``, then a use of every byte a query could read: every
    term's postings, every document, the metadata. Format 2 opens lazily
    (docs/index-format.md, "What opening checks"): damage to a large file is
    caught when the chunk holding it is first used, before any result."""
    index = Index.open(root, generation=generation)
    inverted = index.inverted
    for term in inverted.postings:
        inverted.postings[term]
    for key in inverted.documents:
        inverted.documents[key]
    documents_with_metadata(inverted)
    return index


def expect_corrupt(root: Path, path: Path, generation: int | None = None, fifos: tuple[Path, ...] = ()) -> str:
    """``Index.open`` (or, at the latest, the first use of the damaged bytes)
    and ``verify_store`` both refuse, naming ``path`` first."""
    with pytest.raises(CorruptIndexError) as caught:
        guarded(lambda: open_and_use(root, generation=generation), fifos)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert "\n" not in message
    if path.name == CURRENT and path.parent == root:
        with pytest.raises(CorruptIndexError, match=re.escape(f"{path}: ")):
            guarded(lambda: verify_store(root, generation=generation, full=False), fifos)
    else:
        report = guarded(lambda: verify_store(root, generation=generation, full=False), fifos)
        problems = [message for number, message in report.problems if generation is None or number == generation]
        assert problems and problems[0].startswith(f"{path}: "), report.problems
    return message


def write_manifest_text(directory: Path, text: str | bytes) -> bytes:
    data = text.encode("utf-8") if isinstance(text, str) else text
    (directory / storage.MANIFEST).write_bytes(data)
    return data


def manifest_bytes(manifest: dict) -> bytes:
    """A manifest in the form storage.serialise writes (NaN allowed, for forgeries)."""
    return (json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def write_current(root: Path, state: dict) -> None:
    state["checksum"] = state_checksum(state)
    (root / CURRENT).write_bytes(canonical_bytes(state) + b"\n")


def rehash_manifest(root: Path, number: int, data: bytes) -> None:
    """Point CURRENT's entry for ``number`` at manifest bytes ``data`` (a forger's step)."""
    state = json.loads((root / CURRENT).read_text("utf-8"))
    for entry in state["generations"]:
        if entry["generation"] == number:
            entry["manifest_sha256"] = hashlib.sha256(data).hexdigest()
    write_current(root, state)


def sparse(path: Path, size: int) -> None:
    """Replace ``path`` by a file of ``size`` bytes that takes no space."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    with open(path, "wb") as handle:
        handle.truncate(size)


def replace_by(path: Path, kind: str, target: Path | None = None) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":
        assert target is not None
        path.symlink_to(target)


# fixtures ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus_a() -> Index:
    return Index.from_path(CORPUS_A)


@pytest.fixture(scope="module")
def corpus_b() -> Index:
    return Index.from_path(CORPUS_B)


@pytest.fixture(scope="module")
def corpus_a_other_parameters(corpus_a: Index) -> Index:
    """The same corpus, so the same passage and posting counts: same-size files, other bytes."""
    return Index.from_documents(list(corpus_a.inverted.documents.values()),
                                parameters=IndexParameters(k1=1.2, b=0.5, title_weight=2.0))


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, corpus_a: Index) -> Path:
    root = tmp_path_factory.mktemp("pristine") / "index"
    corpus_a.save(root)
    return root


@pytest.fixture(scope="module")
def pristine_two(tmp_path_factory, corpus_a: Index, corpus_b: Index) -> Path:
    """Generation 1 holds corpus A, generation 2 corpus B."""
    root = tmp_path_factory.mktemp("pristine_two") / "index"
    corpus_a.save(root)
    corpus_b.save(root)
    return root


@pytest.fixture(scope="module")
def other_index(tmp_path_factory, corpus_b: Index) -> Path:
    root = tmp_path_factory.mktemp("other") / "index"
    corpus_b.save(root)
    return root


@pytest.fixture
def root(tmp_path: Path, pristine: Path) -> Path:
    copy = tmp_path / "index"
    shutil.copytree(pristine, copy)
    return copy


@pytest.fixture
def root_two(tmp_path: Path, pristine_two: Path) -> Path:
    copy = tmp_path / "index2"
    shutil.copytree(pristine_two, copy)
    return copy


# 1. truncation ---------------------------------------------------------------------------------
def test_current_cut_at_every_byte(root):
    path = root / CURRENT
    data = path.read_bytes()
    for cut in range(len(data)):  # cut == len - 1 drops only the newline: not canonical any more
        path.write_bytes(data[:cut])
        expect_corrupt(root, path)
    print(f"\nCURRENT cut at {len(data)} offsets")


def test_manifest_cut_at_every_byte(root):
    path = gen(root) / storage.MANIFEST
    data = path.read_bytes()
    for cut in range(len(data)):
        path.write_bytes(data[:cut])
        with pytest.raises(CorruptIndexError) as caught:
            Index.open(root)
        assert str(caught.value).startswith(f"{path}: ")
    expect_corrupt(root, path)  # and verify, for the last one
    print(f"\nmanifest cut at {len(data)} offsets")


def data_file_cuts(name: str, size: int) -> list[int]:
    """Cut points not in test_store_faults (which cuts to 0 and to half):
    one byte kept, one byte lost, one whole item lost, and a seeded random one."""
    item = ITEM.get(name[-4:], 1)
    rng = random.Random(f"cut:{name}")
    return sorted({1, size - 1, size - item, rng.randrange(1, size - 1)} - {0, size // 2})


def test_data_files_cut_at_more_offsets(root, pristine):
    cases = 0
    for name in storage.DATA_FILES:
        path = gen(root) / name
        data = (gen(pristine) / name).read_bytes()
        for cut in data_file_cuts(name, len(data)):
            path.write_bytes(data[:cut])
            expect_corrupt(root, path)
            cases += 1
        path.write_bytes(data)
    print(f"\ndata files cut: {cases} cases")
    assert cases >= 3 * len(storage.DATA_FILES)


# 2. flipped bytes --------------------------------------------------------------------------------
def test_current_with_a_bit_flipped_at_every_byte(root):
    path = root / CURRENT
    data = path.read_bytes()
    for position in range(len(data)):
        changed = bytearray(data)
        changed[position] ^= 0x01
        path.write_bytes(bytes(changed))
        expect_corrupt(root, path)
    print(f"\nCURRENT flipped at {len(data)} offsets")


def test_manifest_with_a_bit_flipped_at_every_byte(root):
    path = gen(root) / storage.MANIFEST
    data = path.read_bytes()
    for position in range(len(data)):
        changed = bytearray(data)
        changed[position] ^= 0x01
        path.write_bytes(bytes(changed))
        with pytest.raises(CorruptIndexError) as caught:
            Index.open(root)
        assert str(caught.value).startswith(f"{path}: ")
    print(f"\nmanifest flipped at {len(data)} offsets")


FLIPS_PER_FILE = 16


def test_data_files_with_random_bytes_changed(root, pristine):
    rng = random.Random(20261130)
    for name in storage.DATA_FILES:
        path = gen(root) / name
        data = (gen(pristine) / name).read_bytes()
        for _ in range(FLIPS_PER_FILE):
            changed = bytearray(data)
            changed[rng.randrange(len(data))] ^= rng.randrange(1, 256)
            path.write_bytes(bytes(changed))
            expect_corrupt(root, path)
        path.write_bytes(data)
    print(f"\ndata files changed at {FLIPS_PER_FILE * len(storage.DATA_FILES)} random bytes")


# 3. files swapped in from elsewhere --------------------------------------------------------------
@pytest.mark.parametrize("name", storage.DATA_FILES)
def test_data_file_from_another_index(root, other_index, name):
    shutil.copyfile(gen(other_index) / name, gen(root) / name)
    expect_corrupt(root, gen(root) / name)


def test_same_size_files_from_another_index_of_the_same_corpus(tmp_path, root, corpus_a_other_parameters):
    other = tmp_path / "other-parameters"
    corpus_a_other_parameters.save(other)
    swapped = 0
    for name in storage.DATA_FILES:
        mine, theirs = (gen(root) / name).read_bytes(), (gen(other) / name).read_bytes()
        if len(mine) != len(theirs) or mine == theirs:
            continue
        shutil.copyfile(gen(other) / name, gen(root) / name)
        expect_corrupt(root, gen(root) / name)
        (gen(root) / name).write_bytes(mine)
        swapped += 1
    print(f"\nsame-size files swapped: {swapped}")
    assert swapped >= 4  # format 2: documents, positions, codes, norms... of the same sizes
    shutil.copyfile(gen(other) / storage.MANIFEST, gen(root) / storage.MANIFEST)  # and its manifest
    assert "altered or swapped" in expect_corrupt(root, gen(root) / storage.MANIFEST)


def test_manifest_copied_from_another_generation(root_two):
    target = gen(root_two, 1) / storage.MANIFEST
    shutil.copyfile(gen(root_two, 2) / storage.MANIFEST, target)
    assert "altered or swapped" in expect_corrupt(root_two, target, generation=1)
    assert Index.open(root_two).generation.number == 2  # the intact generation still opens


def test_manifest_copied_from_another_generation_with_current_rehashed(root_two):
    """A forger also points CURRENT at the copied manifest: then the data
    files are named, because they are not the ones that manifest lists."""
    target = gen(root_two, 1) / storage.MANIFEST
    shutil.copyfile(gen(root_two, 2) / storage.MANIFEST, target)
    rehash_manifest(root_two, 1, target.read_bytes())
    with pytest.raises(CorruptIndexError) as caught:
        Index.open(root_two, generation=1)
    message = str(caught.value)
    named = Path(message.split(": ", 1)[0])
    assert named.parent == gen(root_two, 1) and named.name in storage.DATA_FILES, message
    listed = json.loads(target.read_text("utf-8"))["files"][named.name]
    assert hashlib.sha256(named.read_bytes()).hexdigest() != listed["sha256"]
    report = verify_store(root_two, generation=1, full=False)
    assert report.problems[0][1].startswith(f"{named}: ")


def test_current_copied_from_another_index(root, other_index):
    shutil.copyfile(other_index / CURRENT, root / CURRENT)
    assert "altered or swapped" in expect_corrupt(root, gen(root) / storage.MANIFEST)


def test_rollback_to_an_older_current_is_a_consistent_older_state(tmp_path, corpus_a, corpus_b):
    """Accepted, not detectable from the directory alone: an older CURRENT
    (kept by an attacker) names an older generation that is intact. The
    reader gets that generation's true results, labelled with its number and
    index id; a ledger entry or any record of the newer id shows the rollback."""
    root = tmp_path / "index"
    corpus_a.save(root)
    old_current = (root / CURRENT).read_bytes()
    corpus_b.save(root)
    (root / CURRENT).write_bytes(old_current)
    index = Index.open(root)
    assert index.generation.number == 1 and index.index_id == corpus_a.index_id
    assert fingerprint(index) == fingerprint(corpus_a)
    assert verify_store(root).ok
    assert corpus_b.save(root).number == 3, "a generation number is never reused after a rollback"


# 4. symbolic links ------------------------------------------------------------------------------
def test_data_file_linked_to_another_generations_file(root_two):
    for name in storage.DATA_FILES:
        link = gen(root_two, 1) / name
        original = link.read_bytes()
        replace_by(link, "symlink", gen(root_two, 2) / name)
        expect_corrupt(root_two, link, generation=1)
        link.unlink()
        link.write_bytes(original)


def test_data_file_linked_to_an_identical_file_is_harmless(tmp_path, corpus_a):
    root = tmp_path / "index"
    corpus_a.save(root)
    corpus_a.save(root)  # generation 2: the same bytes
    for name in storage.DATA_FILES:
        replace_by(gen(root, 1) / name, "symlink", gen(root, 2) / name)
    index = Index.open(root, generation=1)
    assert fingerprint(index) == fingerprint(corpus_a) and verify_store(root).ok


@pytest.mark.parametrize("name", GENERATION_FILES)
@pytest.mark.parametrize("kind", ["dangling", "loop", "to-a-directory", "to-dev-zero"])
def test_file_replaced_by_a_bad_symbolic_link(root, name, kind):
    path = gen(root) / name
    target = {"dangling": root / "nowhere", "loop": path, "to-a-directory": root / "generations",
              "to-dev-zero": Path("/dev/zero")}[kind]
    if kind == "to-dev-zero" and not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    replace_by(path, "symlink", target)
    message = expect_corrupt(root, path)
    assert {"dangling": "missing", "loop": "cannot read", "to-a-directory": "is a directory",
            "to-dev-zero": "not a regular file"}[kind] in message


@pytest.mark.parametrize("kind", ["loop", "to-a-directory", "to-dev-zero"])
def test_current_replaced_by_a_bad_symbolic_link(root, kind):
    target = {"loop": root / CURRENT, "to-a-directory": root / "generations", "to-dev-zero": Path("/dev/zero")}[kind]
    if kind == "to-dev-zero" and not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    replace_by(root / CURRENT, "symlink", target)
    message = expect_corrupt(root, root / CURRENT)
    assert {"loop": "cannot read", "to-a-directory": "is a directory", "to-dev-zero": "not a regular file"}[kind] in message


def test_current_as_a_dangling_symbolic_link_is_no_index(root):
    """Like a missing CURRENT (below): bad input, not damage."""
    replace_by(root / CURRENT, "symlink", root / "nowhere")
    with pytest.raises(InputError, match=re.escape(f"{root}: not an index directory")):
        Index.open(root)


def test_current_linked_to_another_indexs_current(root, other_index):
    replace_by(root / CURRENT, "symlink", other_index / CURRENT)
    assert "altered or swapped" in expect_corrupt(root, gen(root) / storage.MANIFEST)


def test_generation_directory_linked_to_another_indexs_generation(root, other_index):
    replace_by(gen(root), "symlink", gen(other_index))
    assert "altered or swapped" in expect_corrupt(root, gen(root) / storage.MANIFEST)


# 5. something other than a file ------------------------------------------------------------------
@pytest.mark.parametrize("name", GENERATION_FILES + (CURRENT,))
@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_file_replaced_by_a_directory_or_a_fifo(root, name, kind):
    path = root / CURRENT if name == CURRENT else gen(root) / name
    replace_by(path, kind)
    message = expect_corrupt(root, path, fifos=(path,))
    assert ("is a directory" if kind == "directory" else "not a regular file") in message


def test_generation_directory_replaced_by_a_file(root):
    replace_by(gen(root), "none")
    gen(root).write_bytes(b"not a directory")
    assert "cannot read" in expect_corrupt(root, gen(root) / storage.MANIFEST)


@pytest.mark.parametrize("missing", ["generation", "generations"])
def test_generation_directory_missing(root, missing):
    shutil.rmtree(gen(root) if missing == "generation" else root / "generations")
    assert "missing" in expect_corrupt(root, gen(root) / storage.MANIFEST)


@pytest.mark.parametrize(("name", "size"), [(CURRENT, 65 * 2**20), (storage.MANIFEST, 2**21),
                                            ("positions.bin", 10 * 2**30), (storage.DOCUMENTS, 10 * 2**30)])
def test_huge_sparse_files_are_refused_without_being_read(root, name, size):
    path = root / CURRENT if name == CURRENT else gen(root) / name
    sparse(path, size)
    message = expect_corrupt(root, path)
    assert re.search(r"larger than|size \d+ bytes, the manifest says", message), message


def test_extra_files_are_ignored(root, pristine, corpus_a):
    """Accepted: nothing reads them, so they cannot change a result."""
    (gen(root) / "evil.py").write_text("raise SystemExit('never run')\n")
    (root / "README").write_text("notes\n")
    (root / "generations" / "notes").mkdir()
    assert fingerprint(Index.open(root)) == fingerprint(corpus_a) and verify_store(root).ok


# 6. forged manifests (CURRENT's hash updated, so only the content can give them away) -----------------
def _set(key: str, value: Any) -> Callable[[dict], None]:
    def edit(manifest: dict) -> None:
        manifest[key] = value
    return edit


def _set_in(outer: str, key: str, value: Any) -> Callable[[dict], None]:
    def edit(manifest: dict) -> None:
        manifest[outer][key] = value
    return edit


def _add(key: str, delta: int) -> Callable[[dict], None]:
    def edit(manifest: dict) -> None:
        manifest[key] += delta
    return edit


def _delete(key: str) -> Callable[[dict], None]:
    def edit(manifest: dict) -> None:
        del manifest[key]
    return edit


def _file_entry(name: str, key: str, value: Any) -> Callable[[dict], None]:
    def edit(manifest: dict) -> None:
        if value is _DELETE:
            del manifest["files"][name][key]
        else:
            manifest["files"][name][key] = value
    return edit


_DELETE = object()
MANIFEST = storage.MANIFEST

# (id, edit of the parsed manifest or raw replacement bytes, the file named)
FORGED_MANIFESTS: list[tuple[str, Any, str]] = [
    ("empty", b"", MANIFEST),
    ("array", b"[]\n", MANIFEST),
    ("number", b"5\n", MANIFEST),
    ("string", b'"x"\n', MANIFEST),
    ("invalid-utf8", b'{"format": "\xff"}\n', MANIFEST),
    ("deeply-nested", b"[" * 100_000 + b"]" * 100_000, MANIFEST),
    ("posting_count-huge", _set("posting_count", 10**30), MANIFEST),
    ("posting_count-2**31", _set("posting_count", 2**31), MANIFEST),
    ("posting_count-negative", _set("posting_count", -1), MANIFEST),
    ("posting_count-float", _set("posting_count", 1.5), MANIFEST),
    ("posting_count-string", _set("posting_count", "12"), MANIFEST),
    ("posting_count-bool", _set("posting_count", True), MANIFEST),
    ("posting_count-null", _set("posting_count", None), MANIFEST),
    ("posting_count-plus-one", _add("posting_count", 1), MANIFEST),
    ("passage_count-negative", _set("passage_count", -1), MANIFEST),
    ("passage_count-2**31", _set("passage_count", 2**31), MANIFEST),
    ("passage_count-float", _set("passage_count", 63.0), MANIFEST),
    ("passage_count-plus-one", _add("passage_count", 1), MANIFEST),
    ("term_count-plus-one", _add("term_count", 1), MANIFEST),
    ("term_count-string", _set("term_count", "x"), MANIFEST),
    ("document_count-negative", _set("document_count", -1), MANIFEST),
    ("document_count-plus-one", _add("document_count", 1), MANIFEST),
    ("average_length-zero", _set("average_length", 0.0), MANIFEST),
    ("average_length-negative", _set("average_length", -1.0), MANIFEST),
    ("average_length-string", _set("average_length", "1.0"), MANIFEST),
    ("average_length-int", _set("average_length", 1), MANIFEST),
    ("average_length-nan", _set("average_length", float("nan")), MANIFEST),
    ("average_length-infinity", _set("average_length", float("inf")), MANIFEST),
    ("extra-key", _set("evil", 1), MANIFEST),
    ("missing-key", _delete("engine_version"), MANIFEST),
    ("files-list", _set("files", []), MANIFEST),
    ("files-extra-name", _set_in("files", "evil.bin", {"bytes": 0, "sha256": "0" * 64}), MANIFEST),
    ("files-missing-name", lambda m: m["files"].pop("term_blocks.i32"), MANIFEST),
    ("file-bytes-negative", _file_entry("positions.bin", "bytes", -1), MANIFEST),
    ("file-bytes-string", _file_entry("positions.bin", "bytes", "12"), MANIFEST),
    ("file-bytes-bool", _file_entry("positions.bin", "bytes", True), MANIFEST),
    ("file-bytes-float", _file_entry("positions.bin", "bytes", 12.0), MANIFEST),
    ("file-sha256-number", _file_entry("positions.bin", "sha256", 123), MANIFEST),
    ("file-sha256-not-hex", _file_entry("positions.bin", "sha256", "XYZ"), MANIFEST),
    ("file-entry-extra-key", _file_entry("positions.bin", "evil", 1), MANIFEST),
    ("file-entry-missing-sha256", _file_entry("positions.bin", "sha256", _DELETE), MANIFEST),
    ("file-bytes-huge", _file_entry("positions.bin", "bytes", 10**30), "positions.bin"),
    ("file-sha256-other", _file_entry("term_blocks.i32", "sha256", "0" * 64), "term_blocks.i32"),
    ("analyzer-list", _set("analyzer", []), MANIFEST),
    ("analyzer-name-number", _set_in("analyzer", "name", 5), MANIFEST),
    ("analyzer-unknown", _set_in("analyzer", "name", "klingon"), MANIFEST),
    ("analyzer-other-unicode", _set_in("analyzer", "unicode", "1.0.0"), MANIFEST),
    ("parameters-string", _set_in("parameters", "k1", "1.5"), MANIFEST),
    ("parameters-negative", _set_in("parameters", "k1", -1.0), MANIFEST),
    ("parameters-b-out-of-range", _set_in("parameters", "b", 2.0), MANIFEST),
    ("parameters-tiny-passages", _set_in("parameters", "max_passage_chars", 10), MANIFEST),
    ("parameters-empty", _set("parameters", {}), MANIFEST),
    ("parameters-extra", _set_in("parameters", "evil", 1), MANIFEST),
    ("parameters-list", _set("parameters", [1.5, 0.75]), MANIFEST),
    ("index_format-other", _set("index_format", "2"), MANIFEST),
    ("index_format-number", _set("index_format", 1), MANIFEST),
    ("format-other", _set("format", "regrag-index/4"), MANIFEST),
    ("format-missing", _delete("format"), MANIFEST),
    ("index_id-not-hex", _set("index_id", "xyz"), MANIFEST),
    ("index_id-number", _set("index_id", 5), MANIFEST),
    ("index_id-other", _set("index_id", "a" * 64), MANIFEST),
    ("corpus_root-uppercase", lambda m: m.update(corpus_root=m["corpus_root"].upper()), MANIFEST),
    ("engine_version-number", _set("engine_version", 5), MANIFEST),
]


@pytest.mark.parametrize(("edit", "named"), [case[1:] for case in FORGED_MANIFESTS], ids=[c[0] for c in FORGED_MANIFESTS])
@pytest.mark.parametrize("rehash", [True, False], ids=["current-rehashed", "current-kept"])
def test_forged_manifest_is_refused(root, edit, named, rehash):
    directory = gen(root)
    if isinstance(edit, bytes):
        data = write_manifest_text(directory, edit)
    else:
        manifest = json.loads((directory / MANIFEST).read_text("utf-8"))
        edit(manifest)
        data = write_manifest_text(directory, manifest_bytes(manifest))
    if rehash:
        rehash_manifest(root, 1, data)
        expect_corrupt(root, directory / named)
    else:  # the manifest no longer matches CURRENT (or does not even parse)
        expect_corrupt(root, directory / MANIFEST)


def test_analyzer_of_another_unicode_version_says_reindex(root):
    directory = gen(root)
    manifest = json.loads((directory / MANIFEST).read_text("utf-8"))
    manifest["analyzer"]["unicode"] = "1.0.0"
    rehash_manifest(root, 1, write_manifest_text(directory, manifest_bytes(manifest)))
    assert "re-index the corpus with this version" in expect_corrupt(root, directory / MANIFEST)


# Values that are well-formed and consistent with the data files: the quick
# check (on open) cannot tell them from the truth; the full verify, which
# rebuilds the generation from its documents, names the file that differs.
CONSISTENT_FORGERIES = [
    ("average_length", lambda m, s: m.update(average_length=m["average_length"] * 1.5), MANIFEST),
    ("parameters", lambda m, s: m["parameters"].update(k1=1.2), "length_norms.f64"),
    ("index_id", lambda m, s: (m.update(index_id="b" * 64), s["generations"][0].update(index_id="b" * 64)), MANIFEST),
    ("corpus_root", lambda m, s: (m.update(corpus_root="c" * 64), s["generations"][0].update(corpus_root="c" * 64)),
     MANIFEST),
]


@pytest.mark.parametrize(("edit", "named"), [c[1:] for c in CONSISTENT_FORGERIES], ids=[c[0] for c in CONSISTENT_FORGERIES])
def test_consistent_manifest_forgery_is_caught_by_the_full_verify(root, edit, named):
    directory = gen(root)
    manifest = json.loads((directory / MANIFEST).read_text("utf-8"))
    state = json.loads((root / CURRENT).read_text("utf-8"))
    edit(manifest, state)
    data = write_manifest_text(directory, manifest_bytes(manifest))
    state["generations"][0]["manifest_sha256"] = hashlib.sha256(data).hexdigest()
    write_current(root, state)
    Index.open(root)  # the quick check passes: this is what the full verify is for
    assert verify_store(root, full=False).ok
    report = verify_store(root, full=True)
    assert not report.ok and report.problems[0][1].startswith(f"{directory / named}: differs from a fresh index")


def test_engine_version_is_informational(root, corpus_a):
    """Accepted: the engine version is recorded, not checked (the analyzer
    identity and the format are); changing it changes no result."""
    directory = gen(root)
    manifest = json.loads((directory / MANIFEST).read_text("utf-8"))
    manifest["engine_version"] = "0.0.0-forged"
    rehash_manifest(root, 1, write_manifest_text(directory, manifest_bytes(manifest)))
    assert fingerprint(Index.open(root)) == fingerprint(corpus_a) and verify_store(root).ok


# 7. forged CURRENT --------------------------------------------------------------------------------
def _state(edit: Callable[[dict], None], checksum: bool = True) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        state = json.loads((root / CURRENT).read_text("utf-8"))
        edit(state)
        if checksum:
            write_current(root, state)
        else:
            (root / CURRENT).write_bytes(json.dumps(state).encode() + b"\n")
    return damage


def _raw(data: bytes) -> Callable[[Path], None]:
    def damage(root: Path) -> None:
        (root / CURRENT).write_bytes(data)
    return damage


def _entry(key: str, value: Any) -> Callable[[dict], None]:
    def edit(state: dict) -> None:
        state["generations"][0][key] = value
        if key == "generation":
            state["current"] = value
    return edit


def _non_canonical(root: Path) -> None:
    state = json.loads((root / CURRENT).read_text("utf-8"))
    (root / CURRENT).write_bytes(json.dumps(state, sort_keys=True).encode() + b"\n")  # ", " and ": " separators


def _nan_current(root: Path) -> None:
    text = (root / CURRENT).read_text("utf-8")
    (root / CURRENT).write_text(re.sub(r'"current":\d+', '"current":NaN', text), encoding="utf-8")


FORGED_CURRENTS: list[tuple[str, Callable[[Path], None]]] = [
    ("current-not-in-history", _state(lambda s: s.update(current=7))),
    ("current-dotdot", _state(lambda s: s.update(current="../000001"))),
    ("current-negative", _state(lambda s: s.update(current=-1))),
    ("current-zero", _state(lambda s: s.update(current=0))),
    ("current-float", _state(lambda s: s.update(current=1.0))),
    ("current-bool", _state(lambda s: s.update(current=True))),
    ("current-null", _state(lambda s: s.update(current=None))),
    ("current-nan", _nan_current),
    ("generation-dotdot", _state(_entry("generation", "../../x"))),
    ("generation-huge", _state(_entry("generation", 10**100))),
    ("generation-2**31", _state(_entry("generation", 2**31))),
    ("generation-5000-digits", _raw(b'{"checksum":"0","current":1,"format":"regrag-store/1","generations":[{"generation":'
                                    + b"9" * 5000 + b"}]}\n")),
    ("generations-empty", _state(lambda s: s.update(generations=[]))),
    ("generations-not-a-list", _state(lambda s: s.update(generations={"1": 1}))),
    ("generations-repeated", _state(lambda s: s["generations"].append(dict(s["generations"][0])))),
    ("manifest-hash-uppercase", _state(_entry("manifest_sha256", "A" * 64))),
    ("manifest-hash-short", _state(_entry("manifest_sha256", "a" * 63))),
    ("index-id-not-hex", _state(_entry("index_id", "z" * 64))),
    ("extra-key", _state(lambda s: s.update(evil=1))),
    ("entry-extra-key", _state(_entry("evil", 1))),
    ("format-other", _state(lambda s: s.update(format="regrag-store/2"))),
    ("checksum-not-updated", _state(lambda s: s.update(current=1), checksum=False)),
    ("not-canonical", _non_canonical),
    ("no-final-newline", lambda root: (root / CURRENT).write_bytes((root / CURRENT).read_bytes()[:-1])),
    ("array", _raw(b"[]\n")),
    ("invalid-utf8", _raw(b'{"format":"\xff"}\n')),
    ("deeply-nested", _raw(b"[" * 100_000 + b"]" * 100_000)),
    ("empty", _raw(b"")),
]


@pytest.mark.parametrize("damage", [c[1] for c in FORGED_CURRENTS], ids=[c[0] for c in FORGED_CURRENTS])
def test_forged_current_is_refused(root, damage):
    damage(root)
    expect_corrupt(root, root / CURRENT)


def test_current_naming_a_generation_whose_directory_does_not_exist(root):
    state = json.loads((root / CURRENT).read_text("utf-8"))
    entry = dict(state["generations"][0], generation=7, published="2099-01-01T00:00:00.000000Z")  # stamps increase
    state["generations"].append(entry)
    state["current"] = 7
    write_current(root, state)
    assert "missing" in expect_corrupt(root, gen(root, 7) / MANIFEST)
    assert Index.open(root, generation=1).generation.number == 1  # the intact one still opens


def test_missing_current_is_not_an_index_directory(root):
    """Accepted as bad input rather than damage: a directory whose first
    publish crashed before its commit looks exactly like this."""
    (root / CURRENT).unlink()
    with pytest.raises(InputError, match=re.escape(f"{root}: not an index directory")) as caught:
        Index.open(root)
    assert not isinstance(caught.value, CorruptIndexError)


# 8. the command line -----------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["fifo-postings", "forged-posting_count", "dangling-terms"])
def test_cli_on_a_hostile_index(root, capsys, case):
    directory = gen(root)
    if case == "fifo-postings":
        named = directory / "positions.bin"
        replace_by(named, "fifo")
    elif case == "forged-posting_count":
        named = directory / MANIFEST
        manifest = json.loads(named.read_text("utf-8"))
        manifest["posting_count"] = 10**30
        rehash_manifest(root, 1, write_manifest_text(directory, manifest_bytes(manifest)))
    else:
        named = directory / storage.TERMS
        replace_by(named, "symlink", root / "nowhere")
    status = guarded(lambda: main(["search", "fee", "--index", str(root)]), (named,))
    captured = capsys.readouterr()
    assert (status, captured.out) == (2, "")
    assert captured.err.startswith(f"regrag: error: {named}: ") and captured.err.count("\n") == 1
    status = guarded(lambda: main(["verify", str(root), "--quick"]), (named,))
    captured = capsys.readouterr()
    assert status == 1 and captured.out.startswith(f"generation 1: DAMAGED: {named}: ")


# 9. a reader whose mapped files are changed under it --------------------------------------------------
READER = r"""
import os, sys
from regrag import Index
root, memory_map = sys.argv[1], sys.argv[2] == "1"
index = Index.open(root, memory_map=memory_map)
for name in ("positions.bin", "frequency_codes.bin"):
    os.truncate(os.path.join(root, "generations", "000001", name), 0)
print(len(index.search("liquidity coverage ratio", k=5)), flush=True)
"""


def run_reader(root: Path, memory_map: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", READER, str(root), "1" if memory_map else "0"], capture_output=True,
                          text=True, env=env, timeout=120)


def test_a_reader_without_memory_mapping_survives_its_files_being_truncated(root):
    done = run_reader(root, memory_map=False)
    assert (done.returncode, done.stdout) == (0, "5\n"), done.stderr


def test_a_memory_mapped_reader_dies_with_sigbus_as_documented(root):
    """docs/index-format.md, "Memory mapping": what mapping trusts is that a
    published generation is never modified; truncating a mapped column under
    a running reader kills it with SIGBUS (memory_map=False avoids that)."""
    done = run_reader(root, memory_map=True)
    assert (done.returncode, done.stdout) == (-signal.SIGBUS, ""), f"exit {done.returncode}: {done.stderr[-300:]}"


# 10. index size caps ---------------------------------------------------------------------------------
def small_documents() -> list[Document]:
    texts = ["annual fee waived", "margin rate 3.5%", "annual margin"]
    return [Document(f"d{i}", "", text, (Section("", 0, len(text)),), (), f"d{i}.md") for i, text in enumerate(texts)]


def test_passage_and_posting_caps_at_build_are_inclusive():
    documents = small_documents()
    built = Index.from_documents(documents)
    passages = built.passage_count
    postings = sum(len(entry.passages) for entry in built.inverted.postings.values())
    Index.from_documents(documents, limits=Limits(index_passages=passages, index_postings=postings))  # exactly at the caps
    with pytest.raises(LimitError) as caught:
        Index.from_documents(documents, limits=Limits(index_passages=passages - 1))
    assert str(caught.value) == (f"the index would hold {passages} passages; the limit is {passages - 1} "
                                 "(regrag.limits.Limits.index_passages; the index format stores them as 32-bit integers)")
    with pytest.raises(LimitError, match=rf"would hold {postings} postings; the limit is {postings - 1} "
                                         r"\(regrag\.limits\.Limits\.index_postings"):
        Index.from_documents(documents, limits=Limits(index_postings=postings - 1))
    assert isinstance(caught.value, InputError)


def test_a_build_past_the_caps_is_refused_before_any_posting_is_assembled(monkeypatch):
    """The cap is checked from the analysed counts, before postings are built
    (the memory peak, and where int32 positions would overflow)."""
    real_array = build.array

    def no_int_arrays(typecode: str, *args: Any) -> array:
        assert typecode != "i", "postings were assembled before the cap was checked"
        return real_array(typecode, *args)

    monkeypatch.setattr(build, "array", no_int_arrays)
    with pytest.raises(LimitError, match="index_postings"):
        Index.from_documents(small_documents(), limits=Limits(index_postings=1))


def test_an_update_past_the_caps_is_refused():
    documents = small_documents()
    built = Index.from_documents(documents[:2])
    limits = Limits(index_passages=built.passage_count)
    with pytest.raises(LimitError, match="index_passages"):
        built.updated(upserts=[documents[2]], limits=limits)
    assert built.updated(deletions=["d0"], limits=limits).passage_count == built.passage_count - 1


def test_serialise_refuses_counts_beyond_the_limits_and_beyond_int32(corpus_a):
    inverted = corpus_a.inverted
    with pytest.raises(LimitError, match="index_passages"):
        storage.serialise(inverted, "test", limits=Limits(index_passages=inverted.passage_count - 1))
    postings = sum(len(e.passages) for e in inverted.postings.values())
    storage.serialise(inverted, "test", limits=Limits(index_postings=postings))
    with pytest.raises(LimitError, match="index_postings"):
        storage.serialise(inverted, "test", limits=Limits(index_postings=postings - 1))


def test_the_int32_boundary():
    """array("i") cannot hold 2**31 (so the cap is 2**31 - 1), and a larger
    configured limit does not lift the format's bound."""
    with pytest.raises(OverflowError):
        array("i", [2**31])
    array("i", [2**31 - 1])
    build.check_index_size(2**31 - 1, 2**31 - 1)
    for passages, postings in ((2**31, 0), (0, 2**31)):
        with pytest.raises(LimitError, match="the limit is 2,147,483,647"):
            build.check_index_size(passages, postings, Limits(index_passages=2**40, index_postings=2**40))


def test_cli_index_past_a_cap_exits_2_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(build, "DEFAULT_LIMITS", Limits(index_passages=10))
    status = main(["index", str(CORPUS_A), "--out", str(tmp_path / "index")])
    captured = capsys.readouterr()
    assert (status, captured.out) == (2, "")
    passages = 89 if pdf_available() else 79  # corpora/regulations: its PDF needs pdfminer.six
    assert captured.err == (f"regrag: error: the index would hold {passages} passages; the limit is 10 (regrag.limits.Limits."
                            "index_passages; the index format stores them as 32-bit integers)\n")
    assert not (tmp_path / "index").exists()


def test_index_files_are_opened_without_blocking_and_must_be_regular(tmp_path):
    # the loader's own open (after the store's checks): a FIFO swapped in
    # between a check and the open neither hangs the reader nor is read
    from regrag.index.codec import _open_index_file

    fifo = tmp_path / "positions.bin"
    os.mkfifo(fifo)
    with pytest.raises(CorruptIndexError, match=r"positions\.bin: not a regular file"):
        _open_index_file(fifo)
    regular = tmp_path / "terms.json"
    regular.write_bytes(b"[]\n")
    with _open_index_file(regular) as handle:
        assert handle.read() == b"[]\n"
