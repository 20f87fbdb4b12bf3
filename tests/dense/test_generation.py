"""Dense vectors stored in the generation: listed and checksummed in its
manifest, checked by ``regrag verify`` (damage names the file), pruned with
their generation, carried across updates (rows of unchanged passages
reused), and the lexical index (files, index id, hits) unchanged."""

from __future__ import annotations

import json
import shutil

import pytest

from regrag import Index, InputError
from regrag.cli import main
from regrag.dense import generation
from regrag.dense.search import DenseSearcher
from regrag.dense.store import embed_index
from regrag.errors import CorruptIndexError
from regrag.index.verify import verify_store
from tests.dense.support import HashingEmbedder

DOCUMENTS = [
    {"id": "a", "title": "Alpha", "text": "alpha fee rate on deposits"},
    {"id": "b", "title": "Beta", "text": "beta rate for loans"},
    {"id": "c", "title": "Gamma", "text": "gamma fee rate and penalty"},
    {"id": "d", "title": "Delta", "text": "delta of the river"},
]


def write_corpus(path, documents):
    path.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")


@pytest.fixture()
def embedded(tmp_path):
    corpus, directory = tmp_path / "docs.jsonl", tmp_path / "index"
    write_corpus(corpus, DOCUMENTS)
    assert main(["index", str(corpus), "--out", str(directory), "--quiet"]) == 0
    index = Index.open(directory)
    publication = generation.publish_vectors(directory, index, embed_index(index, HashingEmbedder()))
    return corpus, directory, publication


def test_the_generation_lists_and_checksums_its_vectors(embedded):
    _corpus, directory, publication = embedded
    assert (publication.previous, publication.generation.number) == (1, 2)
    first, second = (directory / "generations" / name for name in ("000001", "000002"))
    manifest = json.loads((second / "manifest.json").read_text())
    assert sorted(manifest["attachments"]) == ["dense/manifest.json", "dense/text_sha256.bin", "dense/vectors.i8"]
    assert "attachments" not in json.loads((first / "manifest.json").read_text())
    # the lexical files, index id and answers are those of the generation without vectors
    for path in first.iterdir():
        if path.name != "manifest.json":
            assert (second / path.name).read_bytes() == path.read_bytes()
    assert publication.generation.index_id == Index.open(directory, generation=1).index_id
    lexical = [h.to_json() for h in Index.open(directory, generation=1).search("fee rate", k=3)]
    assert [h.to_json() for h in Index.open(directory).search("fee rate", k=3)] == lexical
    index = Index.open(directory)
    vectors = generation.load(directory, index)
    assert vectors.identity["package"] == "tests"
    hits = DenseSearcher(index, vectors, HashingEmbedder()).search("fee rate", k=2, method="dense")
    assert hits and all(hit.index_id == vectors.dense_index_id for hit in hits)
    assert verify_store(directory).ok
    with pytest.raises(InputError, match="generation 1 has no dense vectors"):
        generation.load(directory, Index.open(directory, generation=1))


@pytest.mark.parametrize("name", ["vectors.i8", "text_sha256.bin", "manifest.json"])
def test_verify_names_a_damaged_vector_file(embedded, name):
    _corpus, directory, _publication = embedded
    path = directory / "generations" / "000002" / "dense" / name
    data = bytearray(path.read_bytes())
    data[0] ^= 1
    path.write_bytes(bytes(data))
    report = verify_store(directory)
    assert [number for number, _message in report.problems] == [2]
    assert f"dense/{name}: SHA-256 does not match the manifest" in report.problems[0][1]
    with pytest.raises(CorruptIndexError, match=f"dense/{name}"):
        generation.load(directory, Index.open(directory))
    path.unlink()
    assert f"dense/{name}" in verify_store(directory, full=False).problems[0][1]


def test_a_forged_attachment_list_is_refused_on_open(embedded):
    _corpus, directory, _publication = embedded
    manifest_path = directory / "generations" / "000002" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["attachments"]["../escape"] = {"bytes": 1, "sha256": "0" * 64}
    manifest_path.write_text(json.dumps(manifest, sort_keys=True, indent=1) + "\n")
    with pytest.raises(CorruptIndexError):  # its SHA-256 no longer matches CURRENT, and the name is refused
        Index.open(directory)


def test_vectors_are_pruned_with_their_generation(embedded, tmp_path):
    corpus, directory, _publication = embedded
    write_corpus(corpus, DOCUMENTS + [{"id": "e", "title": "Epsilon", "text": "epsilon fee"}])
    assert main(["index", str(corpus), "--out", str(directory), "--update", "--keep", "1", "--quiet"]) == 0
    assert sorted(p.name for p in (directory / "generations").iterdir()) == ["000003"]


def test_an_update_carries_the_vectors_and_embeds_only_changed_passages(embedded, monkeypatch):
    corpus, directory, _publication = embedded
    embedder = HashingEmbedder()
    monkeypatch.setattr("regrag.adapters.choose.embedder_for", lambda identity: embedder)
    changed = [dict(d) for d in DOCUMENTS]
    changed[1]["text"] = "beta rate for loans, revised"
    changed.append({"id": "e", "title": "Epsilon", "text": "epsilon fee"})
    write_corpus(corpus, changed)
    assert main(["index", str(corpus), "--out", str(directory), "--update", "--quiet"]) == 0
    assert len(embedder.embedded) == 2  # b (changed) and e (new); a, c, d reused
    index = Index.open(directory)
    assert index.generation.number == 3
    carried = generation.load(directory, index)
    fresh_index = Index.from_documents(index.document(d) for d in sorted(index.content_hashes()))
    assert carried.data == embed_index(fresh_index, HashingEmbedder()).data
    assert verify_store(directory).ok
    # a segmented generation (an update of the one before) carries them too, checked by verify
    manifest = json.loads((directory / "generations" / "000003" / "manifest.json").read_text())
    assert manifest["format"].startswith("regrag-segments/") and "dense/vectors.i8" in manifest["attachments"]


def test_an_update_without_the_embedder_warns_and_publishes_no_vectors(embedded, capsys):
    corpus, directory, _publication = embedded
    write_corpus(corpus, DOCUMENTS + [{"id": "e", "title": "Epsilon", "text": "epsilon fee"}])
    assert main(["index", str(corpus), "--out", str(directory), "--update", "--quiet"]) == 0
    assert "carries no dense vectors" in capsys.readouterr().err
    with pytest.raises(InputError, match="no dense vectors"):
        generation.load(directory, Index.open(directory))
    assert generation.previous(directory).passage_count == len(DOCUMENTS)  # still in generation 2


def test_a_copied_directory_keeps_its_vectors(embedded, tmp_path):
    _corpus, directory, _publication = embedded
    copy = tmp_path / "copy"
    shutil.copytree(directory, copy)
    assert generation.load(copy, Index.open(copy)) == generation.load(directory, Index.open(directory))


def test_embed_on_an_up_to_date_generation_publishes_nothing(embedded, monkeypatch, capsys):
    _corpus, directory, _publication = embedded
    monkeypatch.setattr("regrag.adapters.choose.make_embedder", lambda name, flag="--embedder": HashingEmbedder())
    before = sorted(p.name for p in (directory / "generations").iterdir())
    capsys.readouterr()
    assert main(["embed", str(directory)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and "already carries the dense vectors" in out[0] and "nothing was published" in out[0]
    assert sorted(p.name for p in (directory / "generations").iterdir()) == before
    # another embedder's vectors are not "up to date": a generation is published
    monkeypatch.setattr("regrag.adapters.choose.make_embedder", lambda name, flag="--embedder": HashingEmbedder("2"))
    assert main(["embed", str(directory)]) == 0
    assert Index.open(directory).generation.number == 3


def test_a_rebuild_carries_the_vectors_reusing_rows_by_text(embedded, monkeypatch, capsys):
    corpus, directory, _publication = embedded
    embedder = HashingEmbedder()
    monkeypatch.setattr("regrag.adapters.choose.embedder_for", lambda identity: embedder)
    changed = [dict(d) for d in DOCUMENTS] + [{"id": "e", "title": "Epsilon", "text": "epsilon fee"}]
    write_corpus(corpus, changed)
    assert main(["index", str(corpus), "--out", str(directory)]) == 0  # a full rebuild, not --update
    assert embedder.embedded == ["Epsilon epsilon fee"]  # title and text of e; a, b, c, d reused by the SHA-256 of their text
    captured = capsys.readouterr()
    assert "generation 4 is generation 3 with dense vectors attached (4 rows reused, 1 embedded)" in captured.err
    assert captured.out.startswith("generation 4 ")
    index = Index.open(directory)
    assert index.generation.number == 4 and verify_store(directory).ok
    assert generation.load(directory, index).data == embed_index(index, HashingEmbedder()).data


def test_a_rebuild_with_keep_1_embeds_again_and_without_the_embedder_warns(embedded, monkeypatch, capsys):
    corpus, directory, _publication = embedded
    assert main(["index", str(corpus), "--out", str(directory), "--quiet"]) == 0  # the embedder is "test": missing
    assert "were not carried over" in capsys.readouterr().err
    assert Index.open(directory).generation.number == 3
    with pytest.raises(InputError, match="no dense vectors"):
        generation.load(directory, Index.open(directory))
    embedder = HashingEmbedder()
    monkeypatch.setattr("regrag.adapters.choose.embedder_for", lambda identity: embedder)
    # generation 3 has none: a rebuild over it carries nothing (run regrag embed), even with the embedder here
    assert main(["index", str(corpus), "--out", str(directory), "--quiet", "--keep", "1"]) == 0
    assert embedder.embedded == [] and Index.open(directory).generation.number == 4
