"""Write the three regulations of corpora/regulations that are not Markdown: one HTML, one DOCX, one PDF.

    python3 corpora/regulations/make_documents.py            # (re)write them in corpora/regulations/documents/
    python3 corpora/regulations/make_documents.py --check    # write them to a temporary folder and compare

All the text is fictional, written for regrag (see README.md, "Everything here is fictional").

- ``cbv-banknote-processing-and-recycling.html``: written as it is below (UTF-8, LF).
- ``vsmc-investment-fund-costs-and-disclosure.docx``: written by the standard-library writer below
  (fixed ZIP dates and member order), with a table, a tracked change (a deletion and an insertion) and
  the corpus's metadata as custom document properties (docProps/custom.xml).
- ``vbsa-complaint-handling-and-redress.pdf``: ``COMPLAINTS_HTML`` printed by Debian's chromium
  (``chromium --headless --print-to-pdf``, A5 pages, DejaVu Serif), so it is a PDF a real renderer
  made: text in subset CID fonts, a table drawn cell by cell, and an article that runs across a page break.

Reproducibility: the HTML and DOCX bytes are the same on every run. Chromium writes the time of printing
into the PDF's ``/CreationDate`` and ``/ModDate``; both are overwritten with ``D:20251201000000+00'00'``
(same length, so the cross-reference offsets stay valid), and an incremental update appended after
chromium's bytes gives the PDF the corpus's metadata (issuer, issuer_short, doc_number, ...) as custom
entries of its document information dictionary (chromium writes only the title). Two prints by the same chromium build are then
byte for byte equal (checked with chromium 156.0.8078.114 on Debian 12); another chromium build, or other
font files, may lay the pages out or subset the fonts differently, so the PDF is committed as data: tests
and CI read the committed bytes and never print it again. ``--check`` says which files differ.
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
HTML_NAME = "cbv-banknote-processing-and-recycling.html"
DOCX_NAME = "vsmc-investment-fund-costs-and-disclosure.docx"
PDF_NAME = "vbsa-complaint-handling-and-redress.pdf"
FIXED_DATE = b"D:20251201000000+00'00'"

HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Regulation on banknote processing and recycling</title>
<meta name="issuer" content="Central Bank of Veloria">
<meta name="issuer_short" content="CBV">
<meta name="issuer_aliases" content="central bank | Veloria Central Bank | Velorian central bank | monetary authority">
<meta name="doc_number" content="CBV-REG-2025-04">
<meta name="effective_date" content="2025-09-01">
<meta name="category" content="regulation">
<meta name="language" content="en">
<!-- Fictional: written for the regrag project (corpora/regulations/README.md). -->
<style>table { border-collapse: collapse; } td, th { border: 1px solid #888; padding: 2px 8px; }</style>
</head>
<body>
<nav><a href="/">Central Bank of Veloria</a> &rsaquo; <a href="/regulations">Regulations</a></nav>
<main>
<h1>Regulation on banknote processing and recycling</h1>
<h2>Article 1. Scope</h2>
<p>This Regulation applies to credit institutions, payment institutions and cash-in-transit companies that
process Velorian crown banknotes and put them back into circulation through cash machines or over the
counter. It does not apply to coins.</p>
<h2>Article 2. Definitions</h2>
<p>&ldquo;Recycling&rdquo; means putting banknotes received from the public back into circulation without
first returning them to the Central Bank of Veloria (the &ldquo;Bank&rdquo;). A &ldquo;fitness check&rdquo;
is a check that a banknote is genuine and fit for circulation. A &ldquo;suspect banknote&rdquo; is a
banknote that fails the authenticity part of a fitness check.</p>
<h2>Article 3. Machines and test intervals</h2>
<p>Banknotes may be recycled only after a fitness check on a machine of a type that the Bank has tested and
listed on its website. Each machine in use shall have its detection tested at the following intervals.</p>
<table>
<tr><th>Machine</th><th>Checks performed</th><th>Test interval</th></tr>
<tr><td>Customer-operated cash recycling machine</td><td>authenticity and fitness</td><td>every 6 months</td></tr>
<tr><td>Staff-operated sorting machine</td><td>authenticity and fitness</td><td>every 12 months</td></tr>
<tr><td>Staff-operated counting machine</td><td>authenticity only</td><td>every 24 months</td></tr>
</table>
<h2>Article 4. Suspect banknotes</h2>
<p>An institution that detects a suspect banknote shall withhold it, give the customer a receipt that
describes it, and hand it over to the Bank within 20 business days of its detection. A suspect banknote
shall never be recycled or returned to the customer.</p>
<h2>Article 5. Unfit banknotes</h2>
<p>Banknotes that pass the authenticity check but fail the fitness check shall not be recycled. They shall be
lodged with the Bank sorted by denomination, in bundles of 100 banknotes held by a paper band.</p>
<h2>Article 6. Fees for cash services</h2>
<p>The Bank charges institutions the following fees for its cash services.</p>
<table>
<tr><th>Service</th><th>Fee</th></tr>
<tr><td>Lodging sorted unfit banknotes</td><td>no fee</td></tr>
<tr><td>Lodging unsorted banknotes</td><td>VLR 2.00 per bundle of 100</td></tr>
<tr><td>Exchanging damaged banknotes for an institution</td><td>VLR 15 per claim</td></tr>
<tr><td>Testing a machine type for the Bank&rsquo;s list</td><td>VLR 4,000 per machine type</td></tr>
</table>
<h2>Article 7. Reporting</h2>
<p>An institution that recycles banknotes shall report to the Bank the number of banknotes it processed and
recycled, by denomination and by machine, within 30 calendar days after 30 June and after 31 December of each
year.</p>
<h2>Article 8. Entry into force</h2>
<p>This Regulation enters into force on 1&nbsp;September 2025.</p>
</main>
<footer>&copy; Central Bank of Veloria (fictional). Page last reviewed 2025.</footer>
</body>
</html>
"""

COMPLAINTS_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Regulation on complaint handling and customer redress</title>
<style>
@page { size: A5; margin: 16mm 14mm; }
body { font-family: "DejaVu Serif"; font-size: 10pt; line-height: 1.35; }
h1 { font-size: 16pt; } h2 { font-size: 12pt; margin: 12pt 0 4pt 0; }
p { margin: 0 0 6pt 0; text-align: left; }
table { border-collapse: collapse; margin: 4pt 0 8pt 0; }
td, th { border: 0.5pt solid #444; padding: 3pt 14pt 3pt 4pt; text-align: left; }
</style></head>
<body>
<h1>Regulation on complaint handling and customer redress</h1>
<p>Veloria Banking Supervision Authority.</p>
<p>Regulation VBSA-REG-2025-12.</p>
<p>Effective 1 February 2026. Fictional: written for the regrag project.</p>
<h2>Article 1. Scope</h2>
<p>This Regulation applies to credit institutions and payment institutions authorised by the Veloria Banking
Supervision Authority (the "Authority") when they handle complaints from consumers and micro-enterprises.</p>
<h2>Article 2. Definitions</h2>
<p>A "complaint" is any statement of dissatisfaction addressed to an institution about a service it provided.
A "final response" is the institution's written answer that accepts the complaint, rejects it with reasons,
or offers redress.</p>
<h2>Article 3. Complaint handling function</h2>
<p>An institution shall have a complaint handling function that is independent of the business lines whose
services are complained about. The head of the function reports to the management body at least once a year
on the complaints received, their causes and the redress paid.</p>
<h2>Article 4. Acknowledgement</h2>
<p>An institution shall acknowledge a complaint in writing within 2 business days of its receipt and shall
name the person who handles it. A complaint may be made in writing, by telephone, in a branch or through the
institution's website or application, and the institution shall accept it in any of these ways without charge.
The acknowledgement shall state the final response deadline that applies under Article 5 and the address to
which the complainant may send further documents. A complaint made by telephone or in a branch shall be
recorded in writing by the institution on the day it is made and a copy of the record shall be sent to the
complainant with the acknowledgement.</p>
<h2>Article 5. Final response deadlines</h2>
<p>An institution shall send its final response within the following time after the receipt of the
complaint.</p>
<table>
<tr><th>Complaint about</th><th>Final response within</th></tr>
<tr><td>Payment services</td><td>15 business days</td></tr>
<tr><td>Deposit account</td><td>20 business days</td></tr>
<tr><td>Consumer credit</td><td>8 weeks</td></tr>
<tr><td>Any other service</td><td>30 calendar days</td></tr>
</table>
<h2>Article 6. Redress</h2>
<p>Where an institution upholds a complaint, it shall pay redress that puts the complainant in the position
the complainant would have been in had the failure not occurred, including any fees and charges paid because
of the failure and interest at 5% a year on the amount lost from the date of the loss. The institution
shall pay the redress within 10 business days of the complainant's acceptance of the offer, without
setting it off against any other amount the complainant owes the institution unless the complainant
agrees in writing.</p>
<h2>Article 7. Referral to the Financial Ombudsman</h2>
<p>Every final response shall tell the complainant that the complaint may be referred to the Financial
Ombudsman of Veloria within 6 months of the date of the final response. The Ombudsman may award redress of
up to VLR 150,000 per complaint, which binds the institution if the complainant accepts it.</p>
<h2>Article 8. Complaint data</h2>
<p>An institution shall report to the Authority the number of complaints received, upheld and referred to the
Ombudsman, by product, within 30 calendar days after 30 June and after 31 December of each year.</p>
<h2>Article 9. Entry into force</h2>
<p>This Regulation enters into force on 1 February 2026.</p>
</body></html>
"""

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r>'


def _paragraph(*runs: str, style: str = "") -> str:
    properties = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f"<w:p>{properties}{''.join(runs)}</w:p>"


def _table(rows: list[list[str]]) -> str:
    borders = "".join(f'<w:{side} w:val="single" w:sz="4" w:space="0" w:color="auto"/>'
                      for side in ("top", "left", "bottom", "right", "insideH", "insideV"))
    body = "".join("<w:tr>" + "".join(f"<w:tc>{_paragraph(_run(cell))}</w:tc>" for cell in row) + "</w:tr>"
                   for row in rows)
    return f'<w:tbl><w:tblPr><w:tblBorders>{borders}</w:tblBorders></w:tblPr>{body}</w:tbl>'


def _change(kind: str, number: int, text: str) -> str:
    """A tracked deletion (``del``) or insertion (``ins``) by a fixed author at a fixed date."""
    tag = "w:delText" if kind == "del" else "w:t"
    return (f'<w:{kind} w:id="{number}" w:author="Drafting unit" w:date="2025-06-02T09:00:00Z">'
            f'<w:r><{tag} xml:space="preserve">{escape(text)}</{tag}></w:r></w:{kind}>')


def _docx_body() -> str:
    h2 = "Heading2"
    return "".join((
        _paragraph(_run("Regulation on investment fund costs and disclosure"), style="Heading1"),
        _paragraph(_run("Veloria Securities and Markets Commission. Regulation VSMC-REG-2025-09, effective "
                        "1 November 2025. Fictional: written for the regrag project.")),
        _paragraph(_run("Article 1. Scope"), style=h2),
        _paragraph(_run("This Regulation applies to fund management companies authorised by the Veloria "
                        "Securities and Markets Commission (the \"Commission\") for the funds they offer to retail "
                        "investors in Veloria.")),
        _paragraph(_run("Article 2. Definitions"), style=h2),
        _paragraph(_run("\"Ongoing charges\" are all the annual costs taken from a fund's assets, other than "
                        "transaction costs and performance fees, expressed as a percentage of the fund's average "
                        "net assets. A \"key information document\" is the two-page summary of a fund's "
                        "objectives, risks and costs that this Regulation requires.")),
        _paragraph(_run("Article 3. Key information document"), style=h2),
        _paragraph(_run("A fund management company shall give an investor the key information document free of "
                        "charge before the investor subscribes, review it at least once every 12 months, and "
                        "update it within 35 business days of any material change.")),
        _paragraph(_run("Article 4. Maximum charges"), style=h2),
        _paragraph(_run("The charges a fund may take from investors or from its assets shall not exceed the "
                        "following rates.")),
        _table([["Fund category", "Entry charge", "Exit charge", "Ongoing charges"],
                ["Money market fund", "none", "none", "0.50% a year"],
                ["Bond fund", "2%", "1%", "1.20% a year"],
                ["Equity fund", "4%", "1%", "2.00% a year"],
                ["Fund of funds", "3%", "1%", "2.50% a year, including the underlying funds"]]),
        _paragraph(_run("Article 5. Performance fees"), style=h2),
        _paragraph(_run("A fund may charge a performance fee only on returns above its benchmark over "),
                   _change("del", 1, "one year"), _change("ins", 2, "a period of at least three years"),
                   _run(", and the fee shall not exceed 20% of those returns.")),
        _paragraph(_run("Article 6. Statement of costs"), style=h2),
        _paragraph(_run("A fund management company shall send every investor a statement of the costs the "
                        "investor bore in the past calendar year, in Velorian crowns, within 60 calendar days "
                        "after the end of that year.")),
        _paragraph(_run("Article 7. Entry into force"), style=h2),
        _paragraph(_run("This Regulation enters into force on 1 November 2025.")),
    ))


_DOCX_PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'wordprocessingml.document.main+xml"/>'
        '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'wordprocessingml.styles+xml"/>'
        '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.'
        'core-properties+xml"/>'
        '<Override PartName="/docProps/custom.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'custom-properties+xml"/></Types>'),
    "_rels/.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'officeDocument" Target="word/document.xml"/>'
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/'
        'core-properties" Target="docProps/core.xml"/>'
        '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'custom-properties" Target="docProps/custom.xml"/></Relationships>'),
    "word/_rels/document.xml.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'styles" Target="styles.xml"/></Relationships>'),
    "word/styles.xml": (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="{W}">'
        '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
        '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/>'
        '<w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style>'
        '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/>'
        '<w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:rPr><w:b/><w:sz w:val="26"/></w:rPr></w:style>'
        '</w:styles>'),
    "docProps/core.xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        '<dc:title>Regulation on investment fund costs and disclosure</dc:title>'
        '<dc:subject>VSMC-REG-2025-09</dc:subject>'
        '<dc:creator>Veloria Securities and Markets Commission</dc:creator>'
        '<cp:category>regulation</cp:category>'
        '<dcterms:created xsi:type="dcterms:W3CDTF">2025-06-02T09:00:00Z</dcterms:created>'
        '</cp:coreProperties>'),
}


DOCX_METADATA = (("issuer", "Veloria Securities and Markets Commission"), ("issuer_short", "VSMC"),
                 ("issuer_aliases",
                  "securities regulator | Securities and Markets Commission | markets regulator | Securities Commission"),
                 ("doc_number", "VSMC-REG-2025-09"), ("effective_date", "2025-11-01"), ("category", "regulation"),
                 ("language", "en"))
PDF_METADATA = (("issuer", "Veloria Banking Supervision Authority"), ("issuer_short", "VBSA"),
                ("issuer_aliases",
                 "banking regulator | Banking Supervision Authority | bank supervisor | Velorian banking supervisor"),
                ("doc_number", "VBSA-REG-2025-12"), ("effective_date", "2026-02-01"), ("category", "regulation"),
                ("language", "en"))


def _custom_xml() -> str:
    """docProps/custom.xml: the corpus's metadata keys as custom document properties."""
    properties = "".join(
        f'<property fmtid="{{D5CDD505-2E9C-101B-9397-08002B2CF9AE}}" pid="{pid}" name="{name}">'
        f"<vt:lpwstr>{escape(value)}</vt:lpwstr></property>" for pid, (name, value) in enumerate(DOCX_METADATA, 2))
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" '
            'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">'
            f"{properties}</Properties>")


def docx_bytes() -> bytes:
    """The DOCX file: fixed member order and dates, so the same bytes on every run."""
    parts = dict(_DOCX_PARTS)
    parts["docProps/custom.xml"] = _custom_xml()
    parts["word/document.xml"] = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                                  f'<w:document xmlns:w="{W}"><w:body>{_docx_body()}<w:sectPr/></w:body>'
                                  '</w:document>')
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in ("[Content_Types].xml", "_rels/.rels", "word/document.xml", "word/_rels/document.xml.rels",
                     "word/styles.xml", "docProps/core.xml", "docProps/custom.xml"):
            info = zipfile.ZipInfo(name, date_time=(2025, 6, 2, 9, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o644 << 16
            archive.writestr(info, parts[name].encode("utf-8"))
    return buffer.getvalue()


def pdf_bytes(work: Path) -> bytes:
    """``COMPLAINTS_HTML`` printed by chromium, with its two dates made fixed."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("make_documents.py: the PDF needs chromium (apt-get install chromium fonts-noto-cjk)")
    page, printed = work / "complaints.html", work / "complaints.pdf"
    page.write_text(COMPLAINTS_HTML, encoding="utf-8")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                    f"--user-data-dir={work / 'profile'}", f"--print-to-pdf={printed}", page.as_uri()],
                   capture_output=True, timeout=300, check=False)
    if not printed.exists():
        raise SystemExit("make_documents.py: chromium did not print the PDF")
    data = printed.read_bytes()
    data, count = re.subn(rb"/(CreationDate|ModDate) \(D:\d{14}[+-]\d\d'\d\d'\)",
                          lambda m: b"/" + m.group(1) + b" (" + FIXED_DATE + b")", data)
    if count != 2:
        raise SystemExit(f"make_documents.py: expected a CreationDate and a ModDate in the PDF, found {count}")
    return with_metadata(data, PDF_METADATA)


def _pdf_string(text: str) -> bytes:
    return b"(" + text.encode("ascii").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def with_metadata(data: bytes, entries: tuple[tuple[str, str], ...]) -> bytes:
    """``data`` with an incremental update (PDF 1.7, 7.5.6) whose new document information dictionary is
    the old one plus ``entries`` (custom keys): the bytes chromium wrote are kept unchanged before it."""
    info_ref = re.search(rb"/Info (\d+) 0 R", data[data.rindex(b"trailer"):])
    root_ref = re.search(rb"/Root (\d+) 0 R", data[data.rindex(b"trailer"):])
    size = int(re.search(rb"/Size (\d+)", data[data.rindex(b"trailer"):]).group(1))
    previous = int(data[data.rindex(b"startxref") + 9:].split()[0])
    old_info = re.search(rb"\n" + info_ref.group(1) + rb" 0 obj\s*<<(.*?)>>\s*endobj", data, re.S).group(1)
    added = b"".join(b"/" + key.encode("ascii") + b" " + _pdf_string(value) + b"\n" for key, value in entries)
    body = data if data.endswith(b"\n") else data + b"\n"
    offset = len(body)
    obj = b"%d 0 obj\n<<%s\n%s>>\nendobj\n" % (size, old_info.strip(), added)
    xref_at = offset + len(obj)
    update = (obj + b"xref\n%d 1\n%010d 00000 n \ntrailer\n<</Size %d\n/Root %s 0 R\n/Info %d 0 R\n/Prev %d>>\n"
              b"startxref\n%d\n%%%%EOF\n" % (size, offset, size + 1, root_ref.group(1), size, previous, xref_at))
    return body + update


def documents(work: Path) -> dict[str, bytes]:
    return {HTML_NAME: HTML.encode("utf-8"), DOCX_NAME: docx_bytes(), PDF_NAME: pdf_bytes(work)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    parser.add_argument("--out", type=Path, default=HERE / "documents", help="where to write (default documents/)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        made = documents(Path(work))
    differ = 0
    for name, data in made.items():
        path = args.out / name
        if args.check:
            same = path.exists() and path.read_bytes() == data
            differ += not same
            print(f"{name}: {'same' if same else 'DIFFERS'}")
        else:
            path.write_bytes(data)
            print(f"{name}: {len(data):,} bytes written")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
