"""PDF files (optional extra ``regrag[pdf]``: pdfminer.six): text by page with character boxes.

pdfminer.six keeps the characters a PDF draws (it kept Vietnamese
diacritics where pypdf split words) and their boxes. The rules
(docs/corpus.md, "PDF"):

- reading order: pages in order; on a page, the text boxes in the order
  pdfminer.six's layout analysis gives them with its default parameters
  (``LAParams()``); text inside figures is not read;
- one-line text boxes side by side at one height are the cells of a table
  row: one line, cells left to right joined by `` | ``, where its first
  cell was; consecutive rows are separated by a line break;
- ligatures (U+FB00-U+FB06) become their letters, each with the glyph's box;
- a text box is a paragraph (a blank line after it); its lines are joined
  by a space, except that a line ending in a hyphen after a letter, followed
  by a line starting with a lowercase letter, is joined without the hyphen
  (``regu-`` + ``lation`` -> ``regulation``), and a soft hyphen at a line
  end is always removed; a page's last paragraph continues on the next
  page (a space, not a blank line) when it does not end in ``. : ; ! ?``
  and the next page starts with a lowercase letter;
- headings: when the PDF has an outline (bookmarks), the text boxes whose
  text is an entry's title (white space collapsed, case folded; each entry
  used once) are headings at the entry's level (at most 6). Otherwise (no
  outline, or no entry matches a box), by font size: the body size is the
  size with the most characters; a box of at most 3 lines and 200
  characters whose characters are all at least 1.15 times the body size is
  a heading, its level the rank of its size (rounded to half a point) among
  the heading sizes, largest first (at most 6);
- the document title is the first level-1 heading, else the PDF's Title
  entry, else the file name; Title, Author, Subject, Keywords and the
  creation and modification dates are metadata, and so is any other
  (custom) entry of the document information dictionary except Creator,
  Producer and Trapped, under its name lowercased (characters other than
  letters, digits and ``_`` made ``_``);
- control characters a PDF maps glyphs to become U+FFFD; a PDF from which
  no text at all is extracted (a scanned image) is an error, not an empty
  document: regrag does no OCR.

Each line is a piece whose part is ``page N`` (from 1) and whose boxes are
one (x0, y0, x1, y1) per extracted character in PDF page coordinates
(points, origin at the bottom left), rounded to 0.01; a space pdfminer
inserts between words has the zero-width box at the end of the character
before it. The extractor version includes pdfminer.six's version.
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata
from collections import Counter

from regrag.corpus.extract.builder import Extracted, TextBuilder
from regrag.corpus.origin import Box
from regrag.errors import InputError
from regrag.limits import LimitError, Limits

EXTRACTOR = "regrag.pdf"
VERSION = "2"  # 2: table rows joined by " | ", ligatures as letters, custom Info entries as metadata
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_INFO_KEYS = {"Title": "title", "Author": "author", "Subject": "subject", "Keywords": "keywords",
              "CreationDate": "created", "ModDate": "modified"}
_INFO_SKIPPED = frozenset({"Creator", "Producer", "Trapped"})  # the software that made the file, not the document

Line = list[tuple[str, Box, float]]  # (character, box, font size)


def _pdfminer():
    try:
        import pdfminer  # noqa: F401
        from pdfminer import high_level, layout
    except ImportError:
        return None
    return pdfminer, high_level, layout


def available() -> bool:
    """Whether pdfminer.six is installed (without it a folder's PDF files are listed as not indexed)."""
    return _pdfminer() is not None


def extractor_version() -> str:
    found = _pdfminer()
    return f"{VERSION} (pdfminer.six {found[0].__version__})" if found else VERSION


def extract(data: bytes, where: str, stem: str, limits: Limits) -> Extracted:
    """The text of a PDF file by page, its headings, metadata and character boxes."""
    found = _pdfminer()
    if found is None:
        raise InputError(f"{where}: reading PDF files needs pdfminer.six: python3 -m pip install 'regrag[pdf]'")
    _module, high_level, layout = found
    logging.getLogger("pdfminer").setLevel(logging.ERROR)  # its warnings about damaged files would flood stderr
    try:
        pages = _pages(high_level, layout, data, where, limits)
        info, outline = _info(data)
    except (InputError, LimitError):
        raise
    except Exception as error:  # pdfminer raises many kinds (PDFSyntaxError, PSEOF, PDFPasswordIncorrect, ...)
        raise InputError(f"{where}: not a readable PDF ({_reason(error)})") from None
    if not any(pages):
        raise InputError(f"{where}: no text could be extracted from its {len(pages)} page(s) (a scanned image? "
                         "regrag does no OCR)")
    return _build(pages, info, outline, where, stem, limits)


def _reason(error: Exception) -> str:
    name = type(error).__name__
    if "Password" in name or "Encrypt" in name:
        return "encrypted: regrag reads only PDFs that open without a password"
    text = str(error).strip()
    return f"{name}: {text[:120]}" if text else name


def _pages(high_level, layout, data: bytes, where: str, limits: Limits) -> list[list[list[Line]]]:
    """Per page, its text boxes; per box, its lines of (character, box, size)."""
    pages = []
    for page in high_level.extract_pages(io.BytesIO(data), laparams=layout.LAParams()):
        if len(pages) >= limits.pdf_pages:
            raise LimitError(f"{where}: more than {limits.pdf_pages:,} pages (regrag.limits.Limits.pdf_pages)")
        boxes = []
        for element in page:
            if not isinstance(element, layout.LTTextBox):
                continue
            lines = []
            for text_line in element:
                if not isinstance(text_line, layout.LTTextLine):
                    continue
                line: Line = []
                for item in text_line:
                    if isinstance(item, layout.LTChar):
                        box = tuple(float(round(v, 2)) for v in item.bbox)
                        for character in _letters(_CONTROL.sub("\ufffd", item.get_text())):
                            line.append((character, box, float(item.size)))  # type: ignore[arg-type]
                    elif isinstance(item, layout.LTAnno) and item.get_text() not in ("\n", "") and line:
                        x = line[-1][1][2]
                        line.append((" ", (x, line[-1][1][1], x, line[-1][1][3]), 0.0))
                while line and line[-1][0].isspace():
                    line.pop()
                if line:
                    lines.append(line)
            if lines:
                boxes.append(lines)
        pages.append(_table_rows(boxes))
    return pages


class _Row(list):
    """A table row: its cells (one line each), left to right, joined by `` | ``."""


def _letters(text: str) -> str:
    """Typographic ligatures (U+FB00-U+FB06: ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) as their letters, each with the glyph's box."""
    return "".join(unicodedata.normalize("NFKC", c) if "\ufb00" <= c <= "\ufb06" else c for c in text)


def _extent(line: Line) -> tuple[float, float, float, float]:
    boxes = [b for c, b, _s in line if not c.isspace()] or [b for _c, b, _s in line]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _same_row(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Side by side (no horizontal overlap) and level (vertical overlap >= half the lower line's height)."""
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return (a[2] <= b[0] or b[2] <= a[0]) and overlap >= 0.5 * min(a[3] - a[1], b[3] - b[1]) > 0


def _table_rows(boxes: list[list[Line]]) -> list[list[Line]]:
    """One-line text boxes that sit side by side at one height are the cells of a table row: one ``_Row``
    (cells left to right) where its first cell was in pdfminer's order (docs/corpus.md, "PDF")."""
    single = [i for i, box in enumerate(boxes) if len(box) == 1]
    extents = {i: _extent(boxes[i][0]) for i in single}
    group = {i: i for i in single}

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for n, i in enumerate(single):
        for j in single[n + 1:]:
            if _same_row(extents[i], extents[j]):
                group[root(j)] = root(i)
    members: dict[int, list[int]] = {}
    for i in single:
        members.setdefault(root(i), []).append(i)
    rows = {min(m): m for m in members.values() if len(m) > 1}
    taken = {i for m in rows.values() for i in m}
    result: list[list[Line]] = []
    for i, box in enumerate(boxes):
        if i in rows:
            result.append(_Row(boxes[j][0] for j in sorted(rows[i], key=lambda j: (extents[j][0], j))))
        elif i not in taken:
            result.append(box)
    return result


def _info(data: bytes) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """The document information entries as metadata, and the outline's (level, title) entries."""
    from pdfminer.pdfdocument import PDFDocument, PDFNoOutlines
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1
    from pdfminer.utils import decode_text

    document = PDFDocument(PDFParser(io.BytesIO(data)))
    found: dict[str, str] = {}
    for entry in document.info[:1]:  # the newest trailer's (an incremental update's Info replaces the first)
        keys = {key: _INFO_KEYS.get(key) or re.sub(r"[^a-z0-9_]", "_", key.lower()) for key in entry
                if isinstance(key, str) and key not in _INFO_SKIPPED}
        for key, name in sorted(keys.items()):
            value = resolve1(entry.get(key))
            if isinstance(value, bytes):
                value = decode_text(value)
            if isinstance(value, str) and value.strip():
                found[name] = " ".join(_CONTROL.sub("\ufffd", value).split())
    outline: list[tuple[int, str]] = []
    try:
        for level, title, *_rest in document.get_outlines():
            if isinstance(title, bytes):
                title = decode_text(title)
            if isinstance(title, str) and isinstance(level, int):
                outline.append((level, _normal(title)))
    except PDFNoOutlines:
        pass
    return found, outline


def _normal(text: str) -> str:
    """Text compared with outline titles: white space collapsed, case folded."""
    return " ".join(text.split()).casefold()


def _build(pages: list[list[list[Line]]], info: dict[str, str], outline: list[tuple[int, str]], where: str,
           stem: str, limits: Limits) -> Extracted:
    levels = _outline_levels(pages, outline)
    sizes: Counter[float] = Counter(size for page in pages for box in page for line in box
                                    for character, _b, size in line if not character.isspace())
    body = min(sizes, key=lambda size: (-sizes[size], size)) if sizes else 0.0
    heading_sizes = sorted({_half(_box_size(box)) for page in pages for box in page if _is_heading(box, body)},
                           reverse=True)
    builder = TextBuilder(where, limits)
    for number, page in enumerate(pages, start=1):
        part = f"page {number}"
        for index, box in enumerate(page):
            if index == 0 and builder.length and _continues(builder, box):
                builder.separator(" ")
            elif index and isinstance(box, _Row) and isinstance(page[index - 1], _Row):
                builder.separator("\n")  # the next row of a table: a line, as in HTML and DOCX
            else:
                builder.block_break()
            start = builder.mark()
            _add_box(builder, box, part)
            if levels is not None:
                if (number, index) in levels:
                    builder.heading(min(levels[number, index], 6), start)
            elif _is_heading(box, body):
                builder.heading(min(heading_sizes.index(_half(_box_size(box))) + 1, 6), start)
    title = builder.first_heading(1) or info.get("title") or stem
    return builder.finish(title, info)


def _outline_levels(pages: list[list[list[Line]]], outline: list[tuple[int, str]]) -> dict[tuple[int, int], int] | None:
    """(page number, box index) -> outline level, for the boxes whose text is an outline entry's title, each
    entry used once in outline order; None when the PDF has no outline or no entry matches (font sizes then)."""
    if not outline:
        return None
    waiting: dict[str, list[int]] = {}
    for level, title in outline:
        waiting.setdefault(title, []).append(level)
    found: dict[tuple[int, int], int] = {}
    for number, page in enumerate(pages, start=1):
        for index, box in enumerate(page):
            text = _normal(" ".join("".join(c for c, _b, _s in line) for line in box))
            if waiting.get(text):
                found[number, index] = waiting[text].pop(0)
    return found or None


def _continues(builder: TextBuilder, box: list[Line]) -> bool:
    first = box[0][0][0]
    return not builder.ends_with(".:;!?\n") and first.islower()


def _add_box(builder: TextBuilder, box: list[Line], part: str) -> None:
    if isinstance(box, _Row):
        for number, cell in enumerate(box):
            if number:
                builder.separator(" | ")
            builder.add("".join(c for c, _b, _s in cell), part, 0, 0, tuple(b for _c, b, _s in cell))
        return
    for number, line in enumerate(box):
        following = box[number + 1] if number + 1 < len(box) else None
        characters = line
        joined = False
        if characters[-1][0] == "\xad":
            characters, joined = characters[:-1], True
        elif (following is not None and characters[-1][0] == "-" and len(characters) > 1
              and characters[-2][0].isalpha() and following[0][0].islower()):
            characters, joined = characters[:-1], True
        if characters:
            builder.add("".join(c for c, _b, _s in characters), part, 0, 0, tuple(b for _c, b, _s in characters))
        if following is not None and not joined:
            builder.separator(" ")


def _box_size(box: list[Line]) -> float:
    return min(size for line in box for character, _b, size in line if not character.isspace())


def _is_heading(box: list[Line], body: float) -> bool:
    characters = [(c, size) for line in box for c, _b, size in line if not c.isspace()]
    return (bool(characters) and len(box) <= 3 and sum(len(line) for line in box) <= 200
            and all(size >= 1.15 * body for _c, size in characters))


def _half(size: float) -> float:
    return round(size * 2) / 2
