"""PDF extraction (optional extra regrag[pdf]): pages, reading order, hyphen joining, headings, boxes."""

from __future__ import annotations

import pytest

pytest.importorskip("pdfminer")

from make_pdf import SAMPLE_PAGES, pdf_bytes  # noqa: E402
from regrag.corpus.extract import pdf  # noqa: E402
from regrag.corpus.load import load_corpus  # noqa: E402
from regrag.engine import Index  # noqa: E402
from regrag.errors import InputError  # noqa: E402
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits  # noqa: E402

SAMPLE = pdf_bytes(SAMPLE_PAGES, title="Circular 12 on card fees")


def extracted(data: bytes = SAMPLE, limits: Limits = DEFAULT_LIMITS):
    return pdf.extract(data, "rule.pdf", "rule", limits)


def test_text_by_page_with_hyphens_joined_and_the_page_break_bridged():
    result = extracted()
    assert result.text == (
        "Card fees\n\nDisputes are answered within 24 hours. A late fee is charged on overdue balances after "
        "thirty days, and the regulation applies to every account holder.\n\nFee table\n\n"
        "Domestic transfer 2200 Replacement card 55000 continued on the next page: replacement cards are free "
        "once a year.")
    assert [s.title for s in result.sections] == ["Card fees", "Card fees › Fee table"]
    assert result.title == "Card fees" and dict(result.metadata) == {"title": "Circular 12 on card fees"}
    assert pdf.extractor_version().startswith("2 (pdfminer.six ")


def test_every_character_has_a_box_on_its_page():
    result = extracted()
    pages = {piece.part for piece in result.pieces}
    assert pages == {"page 1", "page 2"}
    for piece in result.pieces:
        assert len(piece.boxes) == piece.end - piece.start
        for x0, y0, x1, y1 in piece.boxes:
            assert 0 <= x0 <= x1 <= 612 and 0 <= y0 <= y1 <= 792


def test_a_match_across_the_page_break_has_a_box_on_each_page(tmp_path):
    (tmp_path / "rule.pdf").write_bytes(SAMPLE)
    index = Index.from_path(tmp_path)
    hits = index.search("replacement cards free once a year")
    original = hits[0].to_dict()["original"]
    assert original["file"]["format"] == "pdf"
    parts = {place["part"] for match in original["matches"] for place in match["locations"]}
    assert parts == {"page 1", "page 2"}
    # the word "Replacement" on page 1 is drawn at x=72, y=586 in 11-point Helvetica
    first = next(m for m in original["matches"] if m["term"] == "replac" or m["term"].startswith("replac"))
    (place,) = first["locations"]
    x0, y0, _x1, y1 = place["boxes"][0]
    assert place["part"] == "page 1" and x0 == 72.0 and y0 < 586 < y1


def test_extraction_is_deterministic_and_the_version_is_in_the_index_id(tmp_path, monkeypatch):
    (tmp_path / "rule.pdf").write_bytes(SAMPLE)
    assert load_corpus(tmp_path).documents == load_corpus(tmp_path).documents
    before = Index.from_path(tmp_path).index_id
    monkeypatch.setattr(pdf, "VERSION", pdf.VERSION + "-next")
    assert Index.from_path(tmp_path).index_id != before


@pytest.mark.parametrize("case, data, message", [
    ("encrypted", pdf_bytes(SAMPLE_PAGES, encrypted=True), "encrypted: regrag reads only PDFs that open without"),
    ("truncated", SAMPLE[: len(SAMPLE) // 2], "not a readable PDF"),
    ("garbage", b"%PDF-1.4\n" + bytes(range(256)) * 40, "not a readable PDF"),
    ("no text", pdf_bytes([[]]), "no text could be extracted from its 1 page"),
])
def test_bad_pdfs_are_one_clear_error(case, data, message):
    with pytest.raises(InputError, match=r"^rule.pdf: .*" + message):
        extracted(data)


def test_page_cap_and_mislabelled_files(tmp_path):
    with pytest.raises(LimitError, match="more than 1 pages"):
        extracted(limits=Limits(pdf_pages=1))
    (tmp_path / "a.pdf").write_bytes(b"<html>not a pdf</html>")
    (tmp_path / "b.pdf").write_bytes(SAMPLE)
    corpus = load_corpus(tmp_path, errors="collect")
    assert [d.id for d in corpus.documents] == ["b.pdf"]
    assert "a.pdf: not a PDF file (it does not start with %PDF-)" in corpus.rejected[0][1]


def test_the_outline_gives_the_headings_when_the_pdf_has_one():
    outlined = pdf_bytes(SAMPLE_PAGES, outline=[(1, "Card fees", 0), (2, "Domestic transfer 2200 Replacement card 55000", 0)])
    result = extracted(outlined)
    # "Fee table" is large type but not in the outline; the fee lines are in it, at level 2
    assert [s.title for s in result.sections] == [
        "Card fees", "Card fees › Domestic transfer 2200 Replacement card 55000"]
    unmatched = pdf_bytes(SAMPLE_PAGES, outline=[(1, "Nothing like any box", 0)])
    assert [s.title for s in extracted(unmatched).sections] == ["Card fees", "Card fees › Fee table"]


@pytest.mark.skipif(__import__("shutil").which("chromium") is None, reason="needs chromium (a real PDF renderer)")
def test_a_pdf_printed_by_a_real_renderer_keeps_vietnamese_and_its_heading(tmp_path):
    import subprocess

    page = tmp_path / "vi.html"
    page.write_text('<html><head><meta charset="utf-8"></head><body style="font-family: sans-serif">'
                    "<h1>Thông tư về phí thẻ</h1><p>Ngân hàng phải trả lời khiếu nại trong vòng 24 giờ. "
                    "Phí thay thế thẻ là 55.000 đồng.</p></body></html>", encoding="utf-8")
    printed = tmp_path / "vi.pdf"
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                    f"--print-to-pdf={printed}", str(page)], capture_output=True, timeout=120, check=False)
    if not printed.exists():
        pytest.skip("chromium did not print (no display libraries?)")
    result = extracted(printed.read_bytes())
    assert result.title == "Thông tư về phí thẻ"
    assert "Ngân hàng phải trả lời khiếu nại trong vòng 24 giờ. Phí thay thế thẻ là 55.000 đồng." in result.text
    for piece in result.pieces:
        assert piece.part == "page 1" and len(piece.boxes) == piece.end - piece.start


def test_cells_side_by_side_at_one_height_are_a_table_row_joined_by_bars():
    rows = [(11, 72, 690, "Service"), (11, 300, 690, "Fee"), (11, 72, 666, "Card replacement"), (11, 300, 666, "V$ 12"),
            (11, 72, 642, "Foreign cash withdrawal"), (11, 300, 642, "2.5 %")]
    result = extracted(pdf_bytes([[(18, 72, 730, "Fees"), *rows, (11, 72, 600, "Fees are charged once.")]]))
    assert result.text == ("Fees\n\nService | Fee\nCard replacement | V$ 12\nForeign cash withdrawal | 2.5 %\n\n"
                           "Fees are charged once.")
    # every cell keeps its own boxes; the " | " and line breaks come from no place
    boxes = {piece.start: piece.boxes for piece in result.pieces}
    cell = result.text.index("V$ 12")
    assert boxes[cell][0][0] == 300.0 and len(boxes[cell]) == len("V$ 12")
    assert not any(piece.start <= result.text.index(" | ") < piece.end for piece in result.pieces)


def test_a_line_beside_a_paragraph_is_no_row_and_ligatures_become_letters():
    # a two-line box is never a cell; "\ufb01" (fi) is drawn as one glyph and extracted as two letters
    page = [(11, 72, 700, "A paragraph of two lines that"), (11, 72, 687, "continues here."), (11, 400, 700, "Note")]
    assert "|" not in extracted(pdf_bytes([page])).text
    assert pdf._letters("\ufb01nal o\ufb00er") == "final offer"
