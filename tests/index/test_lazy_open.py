"""Format regrag-index/3 opens lazily: no posting and no document is read
until a query needs it, each 64 KiB chunk of the large files is verified the
first time it is used, and damage to a chunk is caught before any result is
computed from it (docs/index-format.md, "What opening checks")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regrag import Index
from regrag.corpus.model import Document, Section
from regrag.errors import CorruptIndexError
from regrag.index import chunks, codec, frequency_codes
from regrag.index.stored_documents import DOCUMENT_IDS, METADATA
from regrag.index.verify import verify_store

WORDS = "annual fee margin loan rate waiver lãi suất ngân hàng 年费 利率 card travel insurance claim".split()


def _documents(count: int) -> list[Document]:
    documents = []
    for number in range(count):
        words = [WORDS[(number * 7 + i * 3) % len(WORDS)] for i in range(120 + number % 50)]
        text = " ".join(words) + "."
        metadata = (("ticker", f"T{number % 9}X"),) if number % 3 == 0 else ()
        documents.append(Document(f"doc{number:04d}", f"Title {number}", text, (Section("", 0, len(text)),),
                                  metadata, "corpus.jsonl"))
    return documents


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> tuple[Path, Index]:
    root = tmp_path_factory.mktemp("lazy") / "index"
    built = Index.from_documents(_documents(600))  # documents.jsonl spans several chunks
    built.save(root)
    return root, built


def _generation(root: Path) -> Path:
    return root / "generations" / "000001"


def _large_files(index: Index) -> list[chunks.CheckedBytes]:
    inverted = index.inverted
    return [inverted.passages.stored._data, *inverted.postings._checked]


def test_opening_reads_no_document_and_no_posting(saved):
    root, _built = saved
    assert (_generation(root) / codec.DOCUMENTS).stat().st_size > 3 * chunks.CHUNK_BYTES
    opened = Index.open(root)
    assert all(checked._unchecked.count(0) == 0 for checked in _large_files(opened))  # no chunk verified or used
    assert len(opened.inverted.passages.stored._cache) == 0  # no document parsed
    opened.search("annual fee", k=3)
    stored = opened.inverted.passages.stored
    assert 0 < len(stored._cache) < len(stored.ids)  # only the documents of the hits (and entity checks)
    documents = opened.inverted.passages.stored._data
    assert 0 < documents._unchecked.count(0) < len(documents._unchecked)


def test_results_equal_the_built_index(saved):
    root, built = saved
    for memory_map in (True, False):
        opened = Index.open(root, memory_map=memory_map)
        for query in ("annual fee", "lãi suất ngân hàng", "年费", "T3X card", "claim waiver travel"):
            for method in ("bm25", "tfidf", "hybrid"):
                assert [h.to_json() for h in opened.search(query, k=7, method=method)] == \
                       [h.to_json() for h in built.search(query, k=7, method=method)]
        assert opened.search("fee", filters={"ticker": "T3X"}) == built.search("fee", filters={"ticker": "T3X"})
        assert opened.ranking("loan", k=20) == built.ranking("loan", k=20)
        assert opened.position_of("doc0042#1") == built.position_of("doc0042#1")
        assert opened.content_hashes() == built.content_hashes()
        assert dict(opened.inverted.documents) == dict(built.inverted.documents)


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("name", list(codec.CHUNKED_FILES))
def test_a_flipped_byte_in_a_large_file_is_caught_before_any_result(tmp_path, saved, name):
    root = tmp_path / "index"
    import shutil

    shutil.copytree(saved[0], root)
    path = _generation(root) / name
    _flip(path, path.stat().st_size // 2)
    opened = Index.open(root)  # lazy: the damaged chunk is not read yet
    with pytest.raises(CorruptIndexError, match="do not match their SHA-256 in chunks.sha256"):
        for term in opened.inverted.postings:
            opened.inverted.postings[term]
        for key in opened.inverted.documents:
            opened.inverted.documents[key]
    report = verify_store(root, full=False)
    assert not report.ok and report.problems[0][1].startswith(f"{path}: ")


def test_a_damaged_document_fails_the_search_that_needs_it(tmp_path, saved):
    root = tmp_path / "index"
    import shutil

    shutil.copytree(saved[0], root)
    built = saved[1]
    top = built.search("annual fee", k=1, method="bm25")[0]
    stored = Index.open(root).inverted.passages.stored
    number = stored.number(top.document_id)
    _flip(_generation(root) / codec.DOCUMENTS, stored._offsets[number] + 20)
    with pytest.raises(CorruptIndexError, match="documents.jsonl"):
        Index.open(root).search("annual fee", k=1, method="bm25")


def test_small_files_are_verified_whole_at_open(tmp_path, saved):
    import shutil

    for name in (DOCUMENT_IDS, frequency_codes.VALUES, chunks.CHUNKS, "length_norms.f64"):
        root = tmp_path / name
        shutil.copytree(saved[0], root)
        _flip(_generation(root) / name, 1)
        with pytest.raises(CorruptIndexError, match=f"{name}: SHA-256 does not match the manifest"):
            Index.open(root)


def test_metadata_is_verified_whole_when_first_needed(tmp_path, saved):
    """``metadata.json`` (filters and entity names only; 719 MB at 10 million
    documents) is read and verified on first use, not on open; ``memory_map=False``
    still verifies it on open."""
    import shutil

    root = tmp_path / "index"
    shutil.copytree(saved[0], root)
    _flip(_generation(root) / METADATA, 1)
    opened = Index.open(root)
    assert opened.search("annual fee", k=1, method="bm25")  # no metadata needed (the entity table is stored)
    with pytest.raises(CorruptIndexError, match=f"{METADATA}: SHA-256 does not match the manifest"):
        Index.open(root).search("annual fee", k=1, filters={"issuer": "x"}, entities=False)
    with pytest.raises(CorruptIndexError, match=f"{METADATA}: SHA-256 does not match the manifest"):
        Index.open(root, memory_map=False)


@pytest.mark.parametrize("older", ["regrag-index/1", "regrag-index/2", "regrag-segments/1"])
def test_an_older_format_generation_is_refused_with_re_index(tmp_path, saved, older):
    """Formats 1 and 2 (4-byte positions) and the segmented format over them
    are refused on open and reported OUTDATED by verify."""
    import shutil

    root = tmp_path / "index"
    shutil.copytree(saved[0], root)
    manifest_path = _generation(root) / codec.MANIFEST
    manifest = json.loads(manifest_path.read_text("utf-8"))
    manifest["format"] = older
    manifest_path.write_text(json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False) + "\n", "utf-8")
    with pytest.raises(CorruptIndexError, match=f"'{older}' is older than this regrag reads .*re-index"):
        Index.open(root)
    report = verify_store(root, full=False)
    assert not report.ok and report.problems == () and "re-index" in report.outdated[0][1]


def test_a_forged_whole_file_hash_of_a_large_file_is_caught_by_verify(tmp_path, saved):
    """The manifest's SHA-256 of a large file, forged with CURRENT re-sealed:
    opening never uses it (every chunk is checked against chunks.sha256, so
    the results are the true ones), ``verify --quick`` reads whole files."""
    import hashlib
    import shutil

    from regrag.index.checks import state_checksum
    from regrag.audit.canonical import canonical_bytes

    root = tmp_path / "index"
    shutil.copytree(saved[0], root)
    manifest_path = _generation(root) / codec.MANIFEST
    manifest = json.loads(manifest_path.read_text("utf-8"))
    manifest["files"]["positions.bin"]["sha256"] = "0" * 64
    data = (json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    manifest_path.write_bytes(data)
    state = json.loads((root / "CURRENT").read_text("utf-8"))
    state["generations"][0]["manifest_sha256"] = hashlib.sha256(data).hexdigest()
    state["checksum"] = state_checksum(state)
    (root / "CURRENT").write_bytes(canonical_bytes(state) + b"\n")
    opened = Index.open(root)
    assert opened.search("annual fee") == saved[1].search("annual fee")
    report = verify_store(root, full=False)
    assert not report.ok and report.problems[0][1].startswith(f"{_generation(root) / 'positions.bin'}: SHA-256 does not match")
