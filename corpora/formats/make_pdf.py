"""Tiny PDF files written in the tests (no binary committed): Helvetica text at given places, fictional text.

Each page is a list of (font size, x, y, text) lines; the writer computes the
cross-reference table, so pdfminer.six reads the file without repairs.
"""

from __future__ import annotations


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def pdf_bytes(pages: list[list[tuple[float, float, float, str]]], *, title: str = "", encrypted: bool = False,
              outline: list[tuple[int, str, int]] = ()) -> bytes:
    """A PDF of ``pages``; ``encrypted``: with a standard security handler whose password is not empty;
    ``outline``: bookmarks (level from 1, title, page index from 0)."""
    objects: list[bytes] = []
    page_ids = [4 + 2 * n for n in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{n} 0 R" for n in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    for n, lines in enumerate(pages):
        content = "".join(f"BT /F1 {size} Tf {x} {y} Td ({_escaped(text)}) Tj ET\n" for size, x, y, text in lines)
        stream = content.encode("cp1252")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                       f"/Contents {page_ids[n] + 1} 0 R >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    info = len(objects) + 1
    objects.append(f"<< /Title ({_escaped(title)}) >>".encode())
    encryption = ""
    if encrypted:
        objects.append(b"<< /Filter /Standard /V 1 /R 2 /O <" + b"ab" * 32 + b"> /U <" + b"cd" * 32 + b"> /P -4 >>")
        encryption = f" /Encrypt {len(objects)} 0 R /ID [<{'00' * 16}> <{'00' * 16}>]"
    if outline:
        _add_outline(objects, outline, page_ids)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, info, encryption.encode(), xref)
    return bytes(out)


def _add_outline(objects: list[bytes], outline: list[tuple[int, str, int]], page_ids: list[int]) -> None:
    root = len(objects) + 1
    ids = [root + 1 + n for n in range(len(outline))]
    parents, last_at_level = [], {}
    for number, (level, _title, _page) in enumerate(outline):
        parents.append(root if level == 1 else last_at_level[level - 1])
        last_at_level[level] = ids[number]
    children: dict[int, list[int]] = {}
    for item, parent in zip(ids, parents):
        children.setdefault(parent, []).append(item)

    def links(item: int) -> str:
        kids = children.get(item, [])
        return f" /First {kids[0]} 0 R /Last {kids[-1]} 0 R /Count {len(kids)}" if kids else ""

    objects.append(f"<< /Type /Outlines{links(root)} >>".encode())
    for item, parent, (_level, title, page) in zip(ids, parents, outline):
        siblings = children[parent]
        at = siblings.index(item)
        near = (f" /Prev {siblings[at - 1]} 0 R" if at else "") + (
            f" /Next {siblings[at + 1]} 0 R" if at + 1 < len(siblings) else "")
        objects.append(f"<< /Title ({_escaped(title)}) /Parent {parent} 0 R /Dest [{page_ids[page]} 0 R /XYZ 0 792 0]"
                       f"{near}{links(item)} >>".encode())
    objects[0] = f"<< /Type /Catalog /Pages 2 0 R /Outlines {root} 0 R >>".encode()


SAMPLE_PAGES = [
    [(20, 72, 720, "Card fees"),
     (11, 72, 690, "Disputes are answered within 24 hours. A late fee is charged"),
     (11, 72, 676, "on overdue balances after thirty days, and the regu-"),
     (11, 72, 662, "lation applies to every account holder."),
     (14, 72, 630, "Fee table"),
     (11, 72, 600, "Domestic transfer 2200"),
     (11, 72, 586, "Replacement card 55000")],
    [(11, 72, 720, "continued on the next page: replacement cards are free once a year.")],
]
