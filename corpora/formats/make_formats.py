"""Write the mixed-format sample corpus: one regulation each as HTML, DOCX and PDF, a CSV fee
schedule and a Markdown note, all fictional (the Central Bank of Veloria, as in corpora/regulations).

    python3 corpora/formats/make_formats.py OUT_DIR

The files are written by code (make_docx.py, make_pdf.py: standard library only), byte for byte
the same on every run, so no binary is committed; queries.jsonl holds labelled questions whose
answers are in tables and across a PDF page break (tests/corpus/extract/test_formats.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_docx import docx_bytes, paragraph, run, table  # noqa: E402
from make_pdf import pdf_bytes  # noqa: E402

HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>CBV Circular 2026/07 &ndash; Card fees and disputes</title>
<meta name="issuer" content="Central Bank of Veloria">
<meta name="doc_number" content="CBV-CIR-2026-07">
<meta name="effective_date" content="2026-03-01">
<script>window.analytics = "<p>tracking</p>";</script>
</head><body>
<nav><a href="/">Home</a> &middot; <a href="/circulars">Circulars</a></nav>
<main>
<h1>Circular on card fees and disputes</h1>
<h2>Article 1. Disputed card payments</h2>
<p>An issuer shall acknowledge a disputed card payment within 24&nbsp;hours and
shall decide on the dispute within fifteen business days of its receipt.</p>
<h2>Article 2. Maximum fees</h2>
<p>The fees an issuer may charge are capped as follows.</p>
<table>
<tr><th>Service</th><th>Maximum fee</th></tr>
<tr><td>Card replacement after loss</td><td>V$&nbsp;12</td></tr>
<tr><td>Foreign cash withdrawal</td><td>2.5&nbsp;% of the amount</td></tr>
</table>
</main>
<footer>&copy; Central Bank of Veloria. All rights reserved.</footer>
</body></html>
"""

DOCX_BODY = (
    paragraph(run("Regulation on deposit insurance"), style="Heading1")
    + paragraph(run("Article 1. Covered deposits"), style="Heading2")
    + paragraph(run("Deposits held by natural persons and small enterprises are covered "),
                "<w:del><w:r><w:delText>in part</w:delText></w:r></w:del>",
                "<w:ins><w:r><w:t>up to the coverage limit</w:t></w:r></w:ins>", run("."))
    + paragraph(run("Article 2. Coverage limits"), style="Heading2")
    + table([["Depositor", "Coverage limit"], ["Natural person", "V$ 100,000"], ["Small enterprise", "V$ 250,000"]])
    + paragraph(run("Article 3. Payout"), style="Heading2")
    + paragraph(run("The fund repays covered deposits within seven working days of the failure of the bank."))
)

PDF_PAGES = [
    [(18, 72, 720, "Regulation on payment services"),
     (13, 72, 690, "Article 1. Execution time"),
     (11, 72, 668, "A payment order received before the cut-off time is credited to the payee's account"),
     (11, 72, 654, "on the same business day. Orders received later are executed on the next busi-"),
     (11, 72, 640, "ness day."),
     (13, 72, 610, "Article 2. Liability for unauthorised payments"),
     (11, 72, 588, "The payer bears the loss from an unauthorised payment up to V$ 50, unless the payer"),
     (11, 72, 574, "acted fraudulently, in which case the payer bears the whole loss and the provider")],
    [(11, 72, 720, "refunds nothing. The provider refunds any other unauthorised payment by the end of"),
     (11, 72, 706, "the following business day."),
     (13, 72, 676, "Article 3. Complaints"),
     (11, 72, 654, "A provider answers a complaint in writing within thirty days.")],
]

CSV = ("Service,Channel,Fee (V$)\r\n"
       "Domestic transfer,branch,1.50\r\n"
       "Domestic transfer,online,0\r\n"
       "International transfer,online,18\r\n"
       "Account statement copy,branch,3\r\n")

MARKDOWN = """issuer: Central Bank of Veloria
category: note

# Reading the sample regulations

This folder mixes formats on purpose: an HTML circular, a Word regulation, a PDF regulation,
a CSV fee schedule and this note. Every hit on an extracted file says where in that file it is.
"""

FILES = {
    "card-fees-circular.html": HTML.encode("utf-8"),
    "deposit-insurance.docx": docx_bytes(DOCX_BODY, core=True),
    "payment-services.pdf": pdf_bytes(PDF_PAGES, title="CBV Regulation on payment services"),
    "fee-schedule.csv": CSV.encode("utf-8"),
    "README-note.md": MARKDOWN.encode("utf-8"),
}


def write(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in sorted(FILES.items()):
        (out / name).write_bytes(data)
        written.append(out / name)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 corpora/formats/make_formats.py OUT_DIR")
    for path in write(Path(sys.argv[1])):
        print(path)
