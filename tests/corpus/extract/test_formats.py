"""A folder mixing Markdown, HTML, DOCX, PDF and CSV: indexed, asked, cited; every reported place holds the text."""

from __future__ import annotations

import html
import io
import json
import zipfile
from pathlib import Path

import pytest

import make_formats
from make_docx import W
from regrag.cli import main
from regrag.corpus.extract import pdf
from regrag.corpus.load import load_corpus
from regrag.engine import Index
from regrag.errors import InputError

QUERIES = Path(make_formats.__file__).with_name("queries.jsonl")
HAS_PDFMINER = pdf._pdfminer() is not None


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("formats")
    make_formats.write(out)
    if not HAS_PDFMINER:
        (out / "payment-services.pdf").unlink()
    return out


def labelled() -> list[dict]:
    return [json.loads(line) for line in QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]


def docx_element_text(data: bytes, xpath: str) -> str:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml"))
    element = root
    for step in xpath.strip("/").split("/")[1:]:
        name, _b, number = step.partition("[")
        element = element.findall(f"{{{W}}}{name.split(':')[1]}")[int(number.rstrip("]")) - 1]
    return element.text or ""


def check_place(folder: Path, document, span: tuple[int, int], locations: list[dict]) -> None:
    """The file at the reported places holds the cited text ``document.text[span]``."""
    cited = document.text[span[0]:span[1]]
    data = (folder / document.source).read_bytes()
    file_format = document.origin.format
    if file_format in ("html", "csv"):
        (place,) = locations
        source = data.decode("utf-8")[place["source"][0]:place["source"][1]]
        shown = " ".join(html.unescape(source).split()) if file_format == "html" else source.replace('""', '"')
        assert shown == " ".join(cited.split()) if file_format == "html" else shown == cited, (source, cited)
    elif file_format == "docx":
        held = "".join(docx_element_text(data, p["part"])[p["source"][0]:p["source"][1]] for p in locations)
        assert held == cited.replace("\t", "").replace("\n", "")
    else:
        boxes = [box for p in locations for box in p["boxes"]]
        assert len(boxes) == len(cited) and all(p["part"].startswith("page ") for p in locations)


def test_every_format_is_indexed_and_every_labelled_question_is_answered(folder):
    index = Index.from_path(folder)
    ids = sorted(index.content_hashes())
    expected = ["README-note.md", "card-fees-circular.html", "deposit-insurance.docx", "fee-schedule.csv"]
    assert ids == sorted(expected + (["payment-services.pdf"] if HAS_PDFMINER else []))
    checked = 0
    for question in labelled():
        if question["document"].endswith(".pdf") and not HAS_PDFMINER:
            continue
        (hit,) = index.search(question["query"], k=1)
        assert hit.document_id == question["document"], question
        document = index.document(hit.document_id)
        assert question["answer"] in document.text[hit.passage_span[0]:hit.passage_span[1]]
        for match in hit.to_dict()["original"]["matches"]:
            check_place(folder, document, tuple(match["offsets"]), match["locations"])
            checked += 1
    assert checked >= 20


@pytest.mark.skipif(not HAS_PDFMINER, reason="needs pdfminer.six (regrag[pdf])")
def test_an_answer_across_the_pdf_page_break_is_located_on_both_pages(folder):
    index = Index.from_path(folder)
    (hit,) = index.search("payer acted fraudulently provider refunds nothing", k=1)
    parts = {place["part"] for match in hit.to_dict()["original"]["matches"] for place in match["locations"]}
    assert parts == {"page 1", "page 2"}


def test_a_stored_index_gives_the_same_hits_and_proofs_verify(folder, tmp_path, capsys):
    built = Index.from_path(folder)
    built.save(tmp_path / "index")
    stored = Index.open(tmp_path / "index")
    assert stored.index_id == built.index_id
    for question in labelled():
        assert [h.to_json() for h in stored.search(question["query"])] == \
               [h.to_json() for h in built.search(question["query"])]
    assert main(["verify", str(tmp_path / "index")]) == 0
    capsys.readouterr()
    assert main(["prove", str(tmp_path / "index"), "deposit-insurance.docx"]) == 0
    (tmp_path / "proof.json").write_text(capsys.readouterr().out)
    assert main(["verify-proof", str(tmp_path / "proof.json"), "--root", built.corpus_root]) == 0


def test_markdown_documents_keep_their_identity(folder):
    note = load_corpus(folder).documents[0]
    assert note.id == "README-note.md" and note.origin is None and "origin" not in note.canonical()


def test_cite_prints_where_the_passage_is(folder, capsys):
    assert main(["cite", "fee-schedule.csv#1", "--corpus", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "csv file" in out and "sha256 " in out and "characters " in out
    assert main(["cite", "deposit-insurance.docx#3", "--corpus", str(folder), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["original"]["file"]["extractor"] == "regrag.docx"
    assert all(place["part"].startswith("/w:document/w:body[1]/") for place in record["original"]["places"])
    assert main(["cite", "README-note.md#1", "--corpus", str(folder)]) == 0
    assert "not an extracted document" in capsys.readouterr().out
    assert main(["cite", "nothing#1", "--corpus", str(folder)]) == 2


def test_search_output_says_where_each_hit_is_in_the_file(folder, capsys):
    assert main(["search", "coverage limit small enterprise", "--corpus", str(folder), "-k", "1"]) == 0
    out = capsys.readouterr().out
    assert "in deposit-insurance.docx (docx, sha256 " in out and "/w:document/w:body[1]/w:tbl[1]/" in out


def test_the_sample_files_are_the_same_bytes_every_run(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    make_formats.write(first)
    make_formats.write(second)
    for path in sorted(first.iterdir()):
        assert path.read_bytes() == (second / path.name).read_bytes()
    # Without pdfminer.six the PDF is listed as not indexed (tested below) and the rest compared.
    loaded = load_corpus(first), load_corpus(second)
    assert loaded[0].documents == loaded[1].documents
    assert len(loaded[0].documents) >= 4


def test_without_pdfminer_a_folder_lists_its_pdf_as_not_indexed_and_a_pdf_path_is_an_error(tmp_path, monkeypatch,
                                                                                            capsys):
    monkeypatch.setattr(pdf, "_pdfminer", lambda: None)
    (tmp_path / "rule.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / "a.md").write_text("# A\n\ntext\n")
    corpus = load_corpus(tmp_path)
    assert [d.id for d in corpus.documents] == ["a.md"]
    assert corpus.skipped == (("rule.pdf", "a PDF file: reading it needs pdfminer.six (python3 -m pip install "
                                           "'regrag[pdf]')"),)
    with pytest.raises(InputError, match=r"rule.pdf: reading PDF files needs pdfminer.six: python3 -m pip install"):
        load_corpus(tmp_path / "rule.pdf")
    assert main(["index", str(tmp_path), "--out", str(tmp_path / "index")]) == 0
    assert "rule.pdf (a PDF file: reading it needs pdfminer.six" in capsys.readouterr().err
