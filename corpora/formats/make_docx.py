"""Tiny DOCX files written in the tests (no binary committed): the parts Word needs, with fictional text."""

from __future__ import annotations

import io
import zipfile

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CONTENT_TYPES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                 '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                 '<Default Extension="xml" ContentType="application/xml"/>'
                 '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
                 'officedocument.wordprocessingml.document.main+xml"/></Types>')
STYLES = (f'<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="{W}">'
          '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>'
          '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>'
          '<w:style w:type="paragraph" w:styleId="FeeHeading"><w:name w:val="Fee heading"/>'
          '<w:basedOn w:val="Heading2"/></w:style></w:styles>')
CORE = ('<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/'
        'package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" '
        'xmlns:dcterms="http://purl.org/dc/terms/"><dc:title>Circular 9 on card fees</dc:title>'
        '<dc:creator>Fictional Authority</dc:creator><dcterms:created>2026-02-01T00:00:00Z</dcterms:created>'
        '</cp:coreProperties>')


def paragraph(*runs: str, style: str = "") -> str:
    properties = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{properties}{''.join(runs)}</w:p>"


def run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def table(rows: list[list[str]]) -> str:
    cells = "".join("<w:tr>" + "".join(f"<w:tc>{paragraph(run(cell))}</w:tc>" for cell in row) + "</w:tr>"
                    for row in rows)
    return f"<w:tbl>{cells}</w:tbl>"


def document_xml(body: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            f'<w:document xmlns:w="{W}"><w:body>{body}<w:sectPr/></w:body></w:document>')


def docx_bytes(body: str, *, styles: bool = True, core: bool = True, extra: dict[str, bytes] | None = None,
               document: bytes | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in (("[Content_Types].xml", CONTENT_TYPES.encode()),
                              ("word/document.xml", document if document is not None else document_xml(body).encode()),
                              *((("word/styles.xml", STYLES.encode()),) if styles else ()),
                              *((("docProps/core.xml", CORE.encode()),) if core else ()),
                              *sorted((extra or {}).items())):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # fixed: the same bytes every run
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content)
    return buffer.getvalue()


SAMPLE_BODY = (
    paragraph(run("Card fees"), style="Heading1")
    + paragraph(run("Disputes are answered within "), run("24 hours"), run("."))
    + paragraph(run("A late fee applies "), "<w:del><w:r><w:delText>never</w:delText></w:r></w:del>",
                "<w:ins><w:r><w:t>after 30 days</w:t></w:r></w:ins>", run("."))
    + paragraph(run("Fee table"), style="FeeHeading")
    + table([["Service", "Fee"], ["Domestic transfer", "2 &amp; 3"], ["Replacement card", "7"]])
    + paragraph(run("Phí chuyển khoản"), "<w:r><w:tab/></w:r>", run("được miễn."))
)
