"""The regulations of corpora/regulations that are PDF, DOCX and HTML files: the committed bytes are what
make_documents.py writes, they are extracted, indexed and queried, and every place a hit reports holds the
cited text (the HTML span unescaped, the DOCX element's text, the PDF characters drawn in the boxes)."""

from __future__ import annotations

import html
import importlib.util
import io
import json
import zipfile
from pathlib import Path

import pytest

from regrag.cli import main
from regrag.corpus.extract import pdf
from regrag.corpus.load import load_corpus
from regrag.engine import Index

REGULATIONS = Path(__file__).resolve().parents[3] / "corpora" / "regulations"
DOCUMENTS = REGULATIONS / "documents"
HAS_PDFMINER = pdf.available()
needs_pdfminer = pytest.mark.skipif(not HAS_PDFMINER, reason="needs pdfminer.six (regrag[pdf])")
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _script():
    spec = importlib.util.spec_from_file_location("make_documents", REGULATIONS / "make_documents.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKE = _script()
NAMES = (MAKE.HTML_NAME, MAKE.DOCX_NAME, MAKE.PDF_NAME)


def questions() -> list[dict]:
    """The labelled questions whose relevant passage is in an extracted document, with answer and passages."""
    read = [json.loads(line) for line in (REGULATIONS / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    answers = {a["_id"]: a["answer"] for a in map(json.loads, (REGULATIONS / "answers.jsonl").read_text(
        encoding="utf-8").splitlines())}
    qrels: dict[str, list[str]] = {}
    for line in (REGULATIONS / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        query_id, passage_id, _score = line.split("\t")
        qrels.setdefault(query_id, []).append(passage_id)
    return [dict(q, answer=answers[q["_id"]], relevant=qrels[q["_id"]]) for q in read
            if q["metadata"].get("format")]


@pytest.fixture(scope="module")
def index() -> Index:
    return Index.from_path(DOCUMENTS)


@pytest.fixture(scope="module")
def pdf_glyphs() -> dict[int, dict[tuple[float, ...], str]]:
    """Per page of the committed PDF, each drawn character's box (rounded as the extractor rounds) -> its text."""
    from pdfminer import high_level, layout

    pages: dict[int, dict[tuple[float, ...], str]] = {}

    def walk(number: int, element) -> None:
        if isinstance(element, layout.LTChar):
            pages[number][tuple(float(round(v, 2)) for v in element.bbox)] = element.get_text()
        elif isinstance(element, layout.LTContainer):
            for child in element:
                walk(number, child)

    for number, page in enumerate(high_level.extract_pages(str(DOCUMENTS / MAKE.PDF_NAME),
                                                           laparams=layout.LAParams()), start=1):
        pages[number] = {}
        walk(number, page)
    return pages


def docx_element_text(data: bytes, xpath: str) -> str:
    import xml.etree.ElementTree as ET

    element = ET.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml"))
    for step in xpath.strip("/").split("/")[1:]:
        name, _bracket, number = step.partition("[")
        element = element.findall(f"{{{W}}}{name.split(':')[1]}")[int(number.rstrip("]")) - 1]
    return element.text or ""


def check_place(document, span: tuple[int, int], locations: list[dict], glyphs) -> None:
    """The committed file holds ``document.text[span]`` at ``locations``."""
    cited = document.text[span[0]:span[1]]
    data = (DOCUMENTS / document.source).read_bytes()
    if document.origin.format == "html":
        (place,) = locations
        source = data.decode("utf-8")[place["source"][0]:place["source"][1]]
        assert " ".join(html.unescape(source).split()) == " ".join(cited.split()), (source, cited)
    elif document.origin.format == "docx":
        held = "".join(docx_element_text(data, p["part"])[p["source"][0]:p["source"][1]] for p in locations)
        assert held == cited
    else:
        drawn, previous = [], None
        boxes = [(p["part"], tuple(box)) for p in locations for box in p["boxes"]]
        for part, box in boxes:
            page = int(part.removeprefix("page "))
            if box[0] == box[2]:  # a space pdfminer inserted between words: zero width, no glyph
                drawn.append(" ")
            elif (page, box) != previous:  # a ligature's letters share the glyph's box
                drawn.append(pdf._letters(glyphs[page][box]))
            previous = (page, box)
        if len(locations) == 1:
            assert len(boxes) == len(cited) and "".join(drawn) == cited
        else:  # across pieces: the separators regrag put between them (a space, " | ", a line break) have no box
            assert len(boxes) < len(cited)
            assert "".join("".join(drawn).split()) == "".join(cited.replace(" | ", " ").split())


def test_the_committed_html_and_docx_are_what_the_script_writes():
    assert (DOCUMENTS / MAKE.HTML_NAME).read_bytes() == MAKE.HTML.encode("utf-8")
    assert (DOCUMENTS / MAKE.DOCX_NAME).read_bytes() == MAKE.docx_bytes() == MAKE.docx_bytes()


def test_the_committed_pdf_was_printed_by_chromium_with_its_dates_fixed():
    data = (DOCUMENTS / MAKE.PDF_NAME).read_bytes()
    assert data.startswith(b"%PDF-") and b"/Producer (Skia/PDF" in data and b"HeadlessChrome" in data
    dates = __import__("re").findall(rb"/(?:CreationDate|ModDate) \((D:[^)]*)\)", data)
    assert len(dates) == 4 and set(dates) == {MAKE.FIXED_DATE}  # chromium's Info and the update's copy
    assert data.count(b"%%EOF") == 2 and b"/issuer_short (VBSA)" in data  # the incremental update


@needs_pdfminer
def test_every_extracted_regulation_is_indexed_with_its_origin(index):
    issuers = {MAKE.HTML_NAME: "CBV", MAKE.DOCX_NAME: "VSMC", MAKE.PDF_NAME: "VBSA"}
    for name in NAMES:
        document = index.document(name)
        metadata = dict(document.metadata)
        assert metadata["issuer_short"] == issuers[name] and metadata["category"] == "regulation"
        assert document.origin.file_sha256 == __import__("hashlib").sha256((DOCUMENTS / name).read_bytes()).hexdigest()
        assert document.title.startswith("Regulation on ")
    pdf_text = index.document(MAKE.PDF_NAME).text
    assert "\ufb01" not in pdf_text and "Article 2. Definitions" in pdf_text  # the renderer drew "fi" as one glyph
    assert "Complaint about | Final response within\nPayment services | 15 business days\n" in pdf_text
    docx_text = index.document(MAKE.DOCX_NAME).text
    assert "over a period of at least three years," in docx_text and "one year" not in docx_text  # accepted view


@needs_pdfminer
def test_every_labelled_question_finds_its_passage_and_every_place_holds_the_cited_text(index, pdf_glyphs):
    checked = {"html": 0, "docx": 0, "pdf": 0}
    for question in questions():
        hits = index.search(question["text"], k=10)
        assert any(hit.passage_id in question["relevant"] for hit in hits), question["_id"]
        passage = next(p for p in index.inverted.passages if p.id == question["relevant"][0])
        assert question["answer"] in index.document(passage.document_id).text[passage.start:passage.end]
        for hit in hits:
            document = index.document(hit.document_id)
            original = hit.to_dict().get("original")
            assert (original is None) == (document.origin is None)
            for match in (original or {}).get("matches", ()):
                check_place(document, tuple(match["offsets"]), match["locations"], pdf_glyphs)
                checked[document.origin.format] += 1
    assert min(checked.values()) >= 10, checked


@needs_pdfminer
def test_answers_across_a_page_break_have_places_on_both_pages(index, pdf_glyphs):
    across = [q for q in questions() if q["metadata"]["answer_in"] == "page-break"]
    assert len(across) == 2
    document = index.document(MAKE.PDF_NAME)
    for question in across:
        start = document.text.index(question["answer"])
        places = document.origin.locate(start, start + len(question["answer"]))
        pages = [place.part for place in places]
        assert len(pages) == 2 and pages[0] != pages[1], (question["_id"], pages)
        glyph_check = [{"part": p.part, "source": [p.source_start, p.source_end], "boxes": [list(b) for b in p.boxes]}
                       for p in places]
        check_place(document, (start, start + len(question["answer"])), glyph_check, pdf_glyphs)


def test_without_pdfminer_the_folder_indexes_the_rest_and_says_the_pdf_was_not(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(pdf, "_pdfminer", lambda: None)
    corpus = load_corpus(DOCUMENTS)
    assert MAKE.PDF_NAME not in {d.id for d in corpus.documents} and len(corpus.documents) == 7
    assert dict(corpus.skipped)[MAKE.PDF_NAME].startswith("a PDF file: reading it needs pdfminer.six")
    assert main(["index", str(DOCUMENTS), "--out", str(tmp_path / "index")]) == 0
    assert f"{MAKE.PDF_NAME} (a PDF file: reading it needs pdfminer.six" in capsys.readouterr().err
