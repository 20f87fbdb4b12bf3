"""DOCX extraction: document order, tables, heading styles, tracked changes, XML paths; hostile archives."""

from __future__ import annotations

import io
import zipfile

import pytest

from make_docx import SAMPLE_BODY, W, docx_bytes, document_xml, paragraph, run
from regrag.corpus.extract import docx
from regrag.corpus.load import load_corpus
from regrag.engine import Index
from regrag.errors import InputError
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits


def extracted(data: bytes, limits: Limits = DEFAULT_LIMITS):
    return docx.extract(data, "rule.docx", "rule", limits)


def element_text(data: bytes, xpath: str) -> str:
    """The text of the element an XPath like /w:document/w:body[1]/w:p[2]/w:r[1]/w:t[1] names (ElementTree)."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml"))
    steps = xpath.strip("/").split("/")[1:]
    element = root
    for step in steps:
        name, _bracket, number = step.partition("[")
        prefix, local = name.split(":")
        assert prefix == "w"
        element = element.findall(f"{{{W}}}{local}")[int(number.rstrip("]")) - 1]
    return element.text or ""


def test_document_order_tables_and_the_accepted_view_of_tracked_changes():
    result = extracted(docx_bytes(SAMPLE_BODY))
    assert result.text == ("Card fees\n\nDisputes are answered within 24 hours.\n\nA late fee applies after 30 days."
                           "\n\nFee table\n\nService | Fee\nDomestic transfer | 2 & 3\nReplacement card | 7"
                           "\n\nPhí chuyển khoản\tđược miễn.")
    assert "never" not in result.text


def test_headings_by_style_and_core_properties_as_metadata():
    result = extracted(docx_bytes(SAMPLE_BODY))
    assert result.title == "Card fees"
    assert [s.title for s in result.sections] == ["Card fees", "Card fees › Fee table"]  # FeeHeading is based on Heading 2
    assert dict(result.metadata) == {"author": "Fictional Authority", "created": "2026-02-01T00:00:00Z",
                                     "title": "Circular 9 on card fees"}
    bare = extracted(docx_bytes(paragraph(run("Body only")), styles=False, core=False))
    assert bare.title == "rule" and bare.metadata == ()


def test_every_piece_names_the_element_that_holds_its_text():
    data = docx_bytes(SAMPLE_BODY)
    result = extracted(data)
    checked = 0
    for piece in result.pieces:
        if piece.part.endswith("/w:tab[1]"):
            continue
        assert element_text(data, piece.part)[piece.source_start:piece.source_end] == result.text[piece.start:piece.end]
        checked += 1
    assert checked >= 12
    assert result.pieces[1].part == "/w:document/w:body[1]/w:p[2]/w:r[1]/w:t[1]"


def test_hits_carry_xml_paths_that_hold_the_matched_text(tmp_path):
    data = docx_bytes(SAMPLE_BODY)
    (tmp_path / "rule.docx").write_bytes(data)
    hits = Index.from_path(tmp_path).search("replacement card fee")
    original = hits[0].to_dict()["original"]
    assert original["file"]["format"] == "docx" and original["file"]["extractor"] == "regrag.docx"
    for match in original["matches"]:
        for place in match["locations"]:
            text = element_text(data, place["part"])[place["source"][0]:place["source"][1]]
            assert text.lower().startswith(match["term"][:3]), (match, text)


def test_same_bytes_same_document_and_the_version_changes_the_index_id(tmp_path, monkeypatch):
    (tmp_path / "rule.docx").write_bytes(docx_bytes(SAMPLE_BODY))
    assert docx_bytes(SAMPLE_BODY) == docx_bytes(SAMPLE_BODY)
    assert load_corpus(tmp_path).documents == load_corpus(tmp_path).documents
    before = Index.from_path(tmp_path).index_id
    monkeypatch.setattr(docx, "VERSION", docx.VERSION + "-next")
    assert Index.from_path(tmp_path).index_id != before


def test_entity_declarations_are_refused_never_expanded():
    bomb = ('<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa">'
            '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
            f'<w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>')
    with pytest.raises(InputError, match=r"rule.docx:word/document.xml:1: a document type declaration"):
        extracted(docx_bytes("", document=bomb.encode()))
    external = ('<?xml version="1.0"?><!DOCTYPE d SYSTEM "http://example.invalid/x.dtd">'
                f'<w:document xmlns:w="{W}"/>')
    with pytest.raises(InputError, match="document type declaration"):
        extracted(docx_bytes("", document=external.encode()))


def test_zip_bombs_and_huge_members_are_refused_before_inflating():
    zeros = docx_bytes("", document=document_xml(paragraph(run("x" * 3_000_000))).encode())
    with pytest.raises(LimitError, match=r"rule.docx:word/document.xml: compressed [0-9,]+ to 1 .*archive_ratio"):
        extracted(zeros)
    with pytest.raises(LimitError, match=r"word/document.xml: [0-9,]+ bytes once uncompressed; the limit is 1,000"):
        extracted(docx_bytes(SAMPLE_BODY), Limits(archive_member_bytes=1000))
    with pytest.raises(LimitError, match=r"archive_total_bytes"):
        extracted(docx_bytes(SAMPLE_BODY), Limits(archive_total_bytes=1500))
    many = docx_bytes(SAMPLE_BODY, extra={f"media/{n}.bin": b"" for n in range(20)})
    with pytest.raises(LimitError, match=r"the archive has 24 members; the limit is 10"):
        extracted(many, Limits(archive_members=10))


def test_broken_and_mislabelled_files_name_the_file():
    with pytest.raises(InputError, match=r"not a Word document \(the archive has no word/document.xml\)"):
        extracted(docx_bytes("", extra={}, document=None)[:0] or _zip_without_document())
    with pytest.raises(InputError, match=r"rule.docx:word/document.xml:1: malformed XML"):
        extracted(docx_bytes("", document=b"<w:document><w:body>"))
    data = docx_bytes(SAMPLE_BODY)
    with pytest.raises(InputError, match=r"rule.docx: not a readable DOCX file"):
        extracted(data[: len(data) // 2])
    with pytest.raises(LimitError, match=r"nested more than 20 deep"):
        extracted(docx_bytes("<w:sdt>" * 30 + "</w:sdt>" * 30), Limits(markup_depth=20))


def _zip_without_document() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/other.xml", "<x/>")
    return buffer.getvalue()


def test_an_encrypted_member_is_refused():
    data = bytearray(docx_bytes(paragraph(run("secret")), styles=False, core=False))
    for signature, flag_offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # set the "encrypted" flag bit
        at = data.find(signature)
        while at >= 0:
            data[at + flag_offset] |= 0x1
            at = data.find(signature, at + 4)
    with pytest.raises(InputError, match=r"encrypted; regrag reads only unencrypted documents"):
        extracted(bytes(data))


def test_files_claiming_to_be_docx_in_a_folder(tmp_path):
    (tmp_path / "a.docx").write_bytes(b"<html><p>not a docx</p></html>")
    (tmp_path / "b.docx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100)
    (tmp_path / "c.docx").write_bytes(docx_bytes(SAMPLE_BODY))
    corpus = load_corpus(tmp_path, errors="collect")
    assert [d.id for d in corpus.documents] == ["c.docx"]
    messages = [message for _where, message in corpus.rejected]
    assert "a.docx: not a DOCX file (not a ZIP archive)" in messages[0]
    assert "b.docx: named .docx but the file is an OLE compound file (an encrypted Office file" in messages[1]
    with pytest.raises(InputError, match=r"a.docx: not a DOCX file.*nothing was loaded"):
        load_corpus(tmp_path)
