"""Issue 12: document id length cap, gzip corpora, empty corpora, and where the errors='collect' hint is given."""

from __future__ import annotations

import gzip
import json

import pytest

from regrag import Index
from regrag.cli import main
from regrag.corpus.load import load_corpus
from regrag.corpus.model import Document, Section
from regrag.errors import InputError
from regrag.limits import LimitError, Limits

HINT = "(errors='collect', or --errors collect, loads the rest)"


def _lines(records) -> bytes:
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


# ---------------------------------------------------------------- document id length (item 1.8)

def test_default_id_cap_is_documented_value():
    assert Limits().document_id_bytes == 4096
    with pytest.raises(InputError, match="document_id_bytes must be a positive integer"):
        Limits(document_id_bytes=0)


def test_jsonl_id_over_the_cap_names_file_line_and_field(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_bytes(_lines([{"id": "ok", "text": "a"}, {"id": "x" * 5_000_000, "text": "b"}]))
    with pytest.raises(LimitError, match=r"docs.jsonl:2: field 'id': the document id has 5,000,000 bytes; "
                                         r"the limit is 4,096 \(regrag.limits.Limits.document_id_bytes\)"):
        load_corpus(path)
    collected = load_corpus(path, errors="collect")
    assert [d.id for d in collected.documents] == ["ok"] and collected.rejected[0][0].endswith("docs.jsonl:2")


def test_beir_id_cap_counts_utf8_bytes(tmp_path):
    (tmp_path / "corpus.jsonl").write_bytes(_lines([{"_id": "é" * 6, "text": "a"}]))  # 12 bytes, 6 characters
    with pytest.raises(LimitError, match=r"corpus.jsonl:1: field '_id': the document id has 12 bytes; the limit is 10"):
        load_corpus(tmp_path, limits=Limits(document_id_bytes=10))
    assert len(load_corpus(tmp_path, limits=Limits(document_id_bytes=12)).documents) == 1


def test_folder_file_path_over_the_cap(tmp_path):
    folder = tmp_path / "docs" / ("d" * 30)
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("# A\n\ntext\n")
    with pytest.raises(LimitError, match=r"a.md: the file's path: the document id has 35 bytes; the limit is 20"):
        load_corpus(tmp_path / "docs", limits=Limits(document_id_bytes=20))


def test_documents_built_by_a_caller_are_capped_at_indexing():
    long_id = Document("y" * 5000, "", "text", (Section("", 0, 4),), (), "api-source")
    with pytest.raises(LimitError, match=r"api-source: document 'y{40}…': field 'id': the document id has 5,000 bytes"):
        Index.from_documents([long_id])
    small = Index.from_documents([Document("a", "", "text", (Section("", 0, 4),), (), "a")])
    with pytest.raises(LimitError, match="document_id_bytes"):
        small.updated([long_id])
    assert Index.from_documents([long_id], limits=Limits(document_id_bytes=5000)).document_count == 1


# ---------------------------------------------------------------- gzip (item 6)

def test_beir_folder_with_gzipped_corpus(tmp_path):
    data = _lines([{"_id": f"d{i}", "title": "T", "text": f"text {i}"} for i in range(3)])
    (tmp_path / "corpus.jsonl.gz").write_bytes(gzip.compress(data, mtime=0))
    corpus = load_corpus(tmp_path)
    assert [d.id for d in corpus.documents] == ["d0", "d1", "d2"] and corpus.skipped == ()
    assert corpus.documents[0].source == "corpus.jsonl.gz"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "corpus.jsonl").write_bytes(data)
    assert [d.text for d in load_corpus(plain).documents] == [d.text for d in corpus.documents]


def test_jsonl_gz_file_keeps_line_numbers_in_errors(tmp_path):
    path = tmp_path / "docs.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"id": "a", "text": "x"}\n\n{"id": 3.5, "text": "y"}\n', mtime=0))
    with pytest.raises(InputError, match=r"docs.jsonl.gz:3: field 'id' must be a non-empty string"):
        load_corpus(path)


def test_gzip_bomb_hits_file_bytes_on_decompressed_data(tmp_path):
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n" * 20_000_000, mtime=0))  # 20 MB of blank lines, about 20 KB compressed
    assert path.stat().st_size < 100_000
    with pytest.raises(LimitError, match=r"bomb.jsonl.gz:\d+: more than 1,000,000 bytes once decompressed; "
                                         r"the limit is 1,000,000 \(regrag.limits.Limits.file_bytes\)"):
        load_corpus(path, limits=Limits(file_bytes=1_000_000))


def test_gzip_single_huge_line_hits_document_bytes(tmp_path):
    path = tmp_path / "line.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"id": "a", "text": "' + b"x" * 3_000_000 + b'"}\n{"id": "b", "text": "y"}\n', mtime=0))
    with pytest.raises(LimitError, match=r"line.jsonl.gz:1: the line has 3,000,023 bytes; the limit for one document"):
        load_corpus(path, limits=Limits(document_bytes=1_000_000))
    collected = load_corpus(path, limits=Limits(document_bytes=1_000_000), errors="collect")
    assert [d.id for d in collected.documents] == ["b"]


@pytest.mark.parametrize("damage", ["truncated", "not-gzip", "corrupt"])
def test_damaged_gzip_is_an_input_error(tmp_path, damage):
    data = gzip.compress(_lines([{"id": f"d{i}", "text": "t" * 50} for i in range(200)]), mtime=0)
    if damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "not-gzip":
        data = b'{"id": "a", "text": "plain text in a .gz name"}\n'
    else:
        data = data[:20] + bytes(b ^ 0xFF for b in data[20:40]) + data[40:]
    path = tmp_path / "docs.jsonl.gz"
    path.write_bytes(data)
    with pytest.raises(InputError, match=r"docs.jsonl.gz:\d+: not a readable gzip file"):
        load_corpus(path)


# ---------------------------------------------------------------- where the collect hint is given (item 7)

def test_hint_given_for_one_bad_line_or_file(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_bytes(b'{"id": "a", "text": "x"}\n{"id": \n')
    with pytest.raises(InputError) as caught:
        load_corpus(path)
    assert str(caught.value).endswith(f"; nothing was loaded {HINT}")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "good.md").write_text("fine\n")
    (folder / "bad.md").write_bytes(b"\xff\xfe\xfd")
    with pytest.raises(InputError) as caught:
        load_corpus(folder)
    assert str(caught.value).endswith(HINT)


@pytest.mark.parametrize("case", ["single-file", "utf16-jsonl", "too-large-jsonl", "not-a-corpus"])
def test_no_hint_where_collect_loads_nothing_more(tmp_path, case):
    if case == "single-file":
        path = tmp_path / "one.md"
        path.write_bytes(b"a\x00b")
    elif case == "utf16-jsonl":
        path = tmp_path / "docs.jsonl"
        path.write_bytes('{"id": "a", "text": "x"}\n'.encode("utf-16"))
    elif case == "too-large-jsonl":
        path = tmp_path / "docs.jsonl"
        path.write_bytes(_lines([{"id": "a", "text": "x" * 100}]))
    else:
        path = tmp_path / "data.xlsx"  # a CSV file is a corpus since issue 18
        path.write_text("a,b\n")
    limits = Limits(file_bytes=50) if case == "too-large-jsonl" else Limits()
    with pytest.raises(InputError) as caught:
        load_corpus(path, limits=limits)
    assert "errors='collect'" not in str(caught.value)
    assert "--errors collect" not in str(caught.value)


def test_eval_error_does_not_offer_an_option_eval_lacks(tmp_path, capsys):
    root = tmp_path / "beir"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_bytes(b'{"_id": "d1", "text": "x"}\n{"_id": \n')
    (root / "queries.jsonl").write_bytes(b'{"_id": "q1", "text": "x"}\n')
    (root / "qrels" / "test.tsv").write_text("q1\td1\t1\n")
    assert main(["eval", "--beir", str(root)]) == 2
    error = capsys.readouterr().err
    assert "corpus.jsonl:2: malformed JSON" in error and "nothing was loaded" in error
    assert "collect" not in error


# ---------------------------------------------------------------- empty corpora (item 6)

def test_index_refuses_a_folder_without_documents(tmp_path, capsys):
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "corpus.json").write_text("[]")
    out = tmp_path / "index"
    assert main(["index", str(folder), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "export: no document to index (1 file(s) skipped, e.g. corpus.json (not .md, .markdown, .txt, .html, .htm, .docx, .pdf or .csv)); " \
           "nothing was published (--allow-empty publishes an empty index)" in error
    assert not out.exists()
    assert main(["index", str(folder), "--out", str(out), "--allow-empty"]) == 0
    assert "0 documents" in capsys.readouterr().out


def test_update_with_an_empty_corpus_leaves_the_index_as_it_was(tmp_path, capsys):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\ntext\n")
    out = tmp_path / "index"
    assert main(["index", str(folder), "--out", str(out)]) == 0
    before = sorted((path.relative_to(out), path.read_bytes()) for path in out.rglob("*") if path.is_file())
    (folder / "a.md").unlink()
    capsys.readouterr()
    assert main(["index", str(folder), "--out", str(out), "--update"]) == 2
    assert "no document to index; nothing was published" in capsys.readouterr().err
    assert sorted((path.relative_to(out), path.read_bytes()) for path in out.rglob("*") if path.is_file()) == before


# ---------------------------------------------------------------- a hit's source is covered by the index id (item 3)

def test_renamed_jsonl_file_changes_the_index_id_and_update_publishes_it(tmp_path, capsys):
    """Before issue 12 the renamed file kept the index id while every hit reported the new name,
    so a ledger record replayed against "the generation with its index id" came out different."""
    first = tmp_path / "old-export.jsonl"
    first.write_bytes(_lines([{"id": "a", "text": "alpha text"}, {"id": "b", "text": "beta text"}]))
    out = tmp_path / "index"
    assert main(["index", str(first), "--out", str(out)]) == 0
    before = Index.open(out)
    renamed = tmp_path / "new-export.jsonl"
    first.rename(renamed)
    capsys.readouterr()
    assert main(["index", str(renamed), "--out", str(out), "--update"]) == 0
    assert "0 added, 2 replaced, 0 deleted" in capsys.readouterr().out
    after = Index.open(out)
    assert after.index_id != before.index_id and after.corpus_root != before.corpus_root
    assert [hit.source for hit in after.search("alpha")] == ["new-export.jsonl"]
    assert [hit.source for hit in before.search("alpha")] == ["old-export.jsonl"]


def test_folder_documents_keep_their_hashes(tmp_path):
    """The source of a folder file is its id: left out of the hashed form, so folder corpora keep their ids."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\ntext\n")
    document = load_corpus(folder).documents[0]
    assert document.source == document.id and "source" not in document.canonical()
