"""Word (.docx) files: ``word/document.xml`` in document order, with the XML path of every piece.

A ``.docx`` is a ZIP archive of XML parts, read with the standard library
(``zipfile``, expat through ``safe_xml``). The rules (docs/corpus.md, "DOCX"):

- paragraphs (``w:p``) in document order, each ending a paragraph; tables
  (``w:tbl``) row by row, the cells of a row joined by `` | `` and each row
  ending a line, paragraphs within a cell joined by a space;
- text is the ``w:t`` runs; ``w:tab`` is a tab, ``w:br``/``w:cr`` a line
  break, ``w:noBreakHyphen`` a hyphen; field instructions, deleted text and
  drawings' alternative content are not text;
- tracked changes: the accepted view. Insertions (``w:ins``, ``w:moveTo``)
  are kept; deletions (``w:del``, ``w:moveFrom``) are left out;
  ``mc:AlternateContent`` is read through its ``mc:Choice`` (its
  ``mc:Fallback`` repeats the same text);
- a paragraph is a heading of level N when its style, or a style it is
  based on, is named ``heading N`` (any case) or ``Title`` (level 1), or
  has outline level N-1 (``w:outlineLvl``, also on the paragraph);
- ``docProps/core.xml`` gives metadata: ``title``, ``subject``, ``author``
  (``dc:creator``), ``keywords``, ``description``, ``category``,
  ``created``, ``modified``; ``docProps/custom.xml`` (custom properties)
  adds each property under its name lowercased (other characters than
  letters, digits and ``_`` made ``_``); headers, footers, footnotes and
  comments are not read.

Every piece's part is the XPath of its element (``/w:document/w:body[1]/
w:p[2]/w:r[1]/w:t[1]``) and its source span is in characters of that
element's text. The archive is checked against ``Limits`` before anything is
inflated (member count, each member's size and compression ratio, the total).
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib

from regrag.corpus.extract import safe_xml
from regrag.corpus.extract.builder import Extracted, TextBuilder
from regrag.errors import InputError
from regrag.limits import LimitError, Limits

EXTRACTOR = "regrag.docx"
VERSION = "2"  # 2: custom document properties as metadata
DOCUMENT = "word/document.xml"
STYLES = "word/styles.xml"
CORE = "docProps/core.xml"
CUSTOM = "docProps/custom.xml"
_RATIO_FREE_BYTES = 1024 * 1024
_SKIPPED = frozenset({"w:del", "w:moveFrom", "mc:Fallback", "w:instrText", "w:delText", "w:pPr", "w:rPr",
                      "w:sectPr", "w:tblPr", "w:trPr", "w:tcPr"})
_CHARACTERS = {"w:tab": "\t", "w:br": "\n", "w:cr": "\n", "w:noBreakHyphen": "-"}
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_HEADING_NAME = re.compile(r"heading\s*([1-9])$", re.IGNORECASE)
_CORE_KEYS = {"dc:title": "title", "dc:subject": "subject", "dc:creator": "author", "cp:keywords": "keywords",
              "dc:description": "description", "cp:category": "category", "dcterms:created": "created",
              "dcterms:modified": "modified"}


def extractor_version() -> str:
    return VERSION


def extract(data: bytes, where: str, stem: str, limits: Limits) -> Extracted:
    """The text of a DOCX file, its heading sections, metadata and source map."""
    parts = _read_parts(data, where, limits)
    levels = _style_levels(parts.get(STYLES), f"{where}:{STYLES}", limits)
    metadata = _core_metadata(parts.get(CORE), f"{where}:{CORE}", limits)
    for key, value in _custom_metadata(parts.get(CUSTOM), f"{where}:{CUSTOM}", limits).items():
        metadata.setdefault(key, value)
    walker = _Walker(TextBuilder(where, limits), levels)
    safe_xml.stream(parts[DOCUMENT], f"{where}:{DOCUMENT}", limits, walker.start, walker.end, walker.text)
    title = walker.builder.first_heading(1) or metadata.get("title") or stem
    return walker.builder.finish(title, metadata)


def _read_parts(data: bytes, where: str, limits: Limits) -> dict[str, bytes]:
    """The parts regrag reads, after the archive's declared sizes pass the limits."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as error:
        raise InputError(f"{where}: not a readable DOCX file (damaged ZIP archive: {error})") from None
    if len(members) > limits.archive_members:
        raise LimitError(f"{where}: the archive has {len(members):,} members; the limit is "
                         f"{limits.archive_members:,} (regrag.limits.Limits.archive_members)")
    names = {info.filename: info for info in members}
    if DOCUMENT not in names:
        raise InputError(f"{where}: not a Word document (the archive has no {DOCUMENT})")
    parts: dict[str, bytes] = {}
    total = 0
    for name in (DOCUMENT, STYLES, CORE, CUSTOM):
        info = names.get(name)
        if info is None:
            continue
        member = f"{where}:{name}"
        if info.flag_bits & 0x1:
            raise InputError(f"{member}: encrypted; regrag reads only unencrypted documents")
        if info.file_size > limits.archive_member_bytes:
            raise LimitError(f"{member}: {info.file_size:,} bytes once uncompressed; the limit is "
                             f"{limits.archive_member_bytes:,} (regrag.limits.Limits.archive_member_bytes)")
        if info.file_size > _RATIO_FREE_BYTES and info.file_size > limits.archive_ratio * max(info.compress_size, 1):
            raise LimitError(f"{member}: compressed {info.file_size // max(info.compress_size, 1):,} to 1 (a ZIP "
                             f"bomb?); the limit is {limits.archive_ratio:,} (regrag.limits.Limits.archive_ratio)")
        total += info.file_size
        if total > limits.archive_total_bytes:
            raise LimitError(f"{member}: the parts read come to more than {limits.archive_total_bytes:,} bytes "
                             "uncompressed (regrag.limits.Limits.archive_total_bytes)")
        try:
            with archive.open(info) as handle:
                content = handle.read(info.file_size + 1)  # zipfile stops at the declared size
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as error:
            raise InputError(f"{member}: cannot be read from the archive ({error})") from None
        if len(content) != info.file_size:
            raise InputError(f"{member}: its size does not match the archive's directory (damaged archive)")
        parts[name] = content
    return parts


def _style_levels(data: bytes | None, where: str, limits: Limits) -> dict[str, int]:
    """Paragraph style id -> heading level, following ``w:basedOn``."""
    if data is None:
        return {}
    styles: dict[str, dict[str, str]] = {}
    current: list[dict[str, str]] = []

    def start(name: str, attributes: dict[str, str]) -> None:
        if name == "w:style":
            entry = {"id": attributes.get("w:styleId", ""), "type": attributes.get("w:type", "paragraph")}
            current.append(entry)
            styles.setdefault(entry["id"], entry)
        elif current and name in ("w:name", "w:basedOn", "w:outlineLvl"):
            current[-1].setdefault(name, attributes.get("w:val", ""))

    def end(name: str) -> None:
        if name == "w:style" and current:
            current.pop()

    safe_xml.stream(data, where, limits, start, end, lambda _text: None)
    levels: dict[str, int] = {}
    for style_id in sorted(styles):
        level = _own_level(styles, style_id)
        if level is not None:
            levels[style_id] = level
    return levels


def _own_level(styles: dict[str, dict[str, str]], style_id: str) -> int | None:
    seen = set()
    while style_id in styles and style_id not in seen and len(seen) < 32:
        seen.add(style_id)
        style = styles[style_id]
        name = style.get("w:name", "")
        match = _HEADING_NAME.match(name.strip())
        if match:
            return int(match.group(1))
        if name.strip().lower() == "title":
            return 1
        outline = style.get("w:outlineLvl", "")
        if outline.isdigit() and int(outline) < 9:
            return int(outline) + 1
        style_id = style.get("w:basedOn", "")
    return None


def _core_metadata(data: bytes | None, where: str, limits: Limits) -> dict[str, str]:
    if data is None:
        return {}
    found: dict[str, str] = {}
    open_key: list[str | None] = []
    chunks: list[str] = []

    def start(name: str, _attributes: dict[str, str]) -> None:
        open_key.append(_CORE_KEYS.get(name))
        chunks.clear()

    def end(_name: str) -> None:
        key = open_key.pop()
        value = " ".join("".join(chunks).split())
        if key and value:
            found.setdefault(key, value)
        chunks.clear()

    safe_xml.stream(data, where, limits, start, end, chunks.append)
    return found


def _custom_metadata(data: bytes | None, where: str, limits: Limits) -> dict[str, str]:
    """Custom document properties (``op:property name=...`` holding one ``vt:`` value) as metadata, each
    name lowercased with characters other than letters, digits and ``_`` made ``_``, as HTML ``<meta>``."""
    if data is None:
        return {}
    found: dict[str, str] = {}
    names: list[str] = []
    chunks: list[str] = []

    def start(name: str, attributes: dict[str, str]) -> None:
        if name == "op:property":
            names.append(re.sub(r"[^a-z0-9_]", "_", attributes.get("name", "").strip().lower()))
        chunks.clear()

    def end(name: str) -> None:
        if name.startswith("vt:") and names and names[-1].strip("_"):
            value = " ".join(_CONTROL.sub("\ufffd", "".join(chunks)).split())
            if value:
                found.setdefault(names[-1], value)
        elif name == "op:property" and names:
            names.pop()
        chunks.clear()

    safe_xml.stream(data, where, limits, start, end, chunks.append)
    return found


class _Walker:
    """Streams ``word/document.xml`` into a ``TextBuilder``."""

    def __init__(self, builder: TextBuilder, levels: dict[str, int]) -> None:
        self.builder = builder
        self.levels = levels
        self.path: list[str] = []
        self.counts: list[dict[str, int]] = [{}]
        self.skipping = 0
        self.in_text = 0
        self.text_offset = 0
        self.paragraph: list[object] = []  # [start mark, style id, outline level]
        self.rows: list[int] = []
        self.cells: list[bool] = []  # whether each open cell has text yet

    def start(self, name: str, attributes: dict[str, str]) -> None:
        counts = self.counts[-1]
        counts[name] = counts.get(name, 0) + 1
        self.path.append(name if len(self.path) == 0 else f"{name}[{counts[name]}]")
        self.counts.append({})
        if self.skipping or name in _SKIPPED:
            self.skipping += 1
            if self.skipping == 2 and name in ("w:pStyle", "w:outlineLvl"):
                self._paragraph_property(name, attributes)
            return
        builder = self.builder
        if name == "w:p":
            if self.cells and self.cells[-1]:
                builder.separator(" ")
            self.paragraph.append([builder.mark(), "", None])
        elif name == "w:t":
            self.in_text += 1
            self.text_offset = 0
        elif name in _CHARACTERS:
            builder.add(_CHARACTERS[name], self._xpath(), 0, 0)
        elif name == "w:tbl":
            builder.block_break()
        elif name == "w:tr":
            self.rows.append(0)
        elif name == "w:tc":
            if self.rows:
                if self.rows[-1] > 0:
                    builder.separator(" | ")
                self.rows[-1] += 1
            self.cells.append(False)

    def _paragraph_property(self, name: str, attributes: dict[str, str]) -> None:
        """A paragraph's own ``w:pPr/w:pStyle`` or ``w:pPr/w:outlineLvl`` (not one inside a recorded change)."""
        if not self.paragraph or len(self.path) < 3 or not self.path[-2].startswith("w:pPr[") \
                or not self.path[-3].startswith("w:p["):
            return
        value = attributes.get("w:val", "")
        if name == "w:pStyle":
            self.paragraph[-1][1] = value
        elif value.isdigit() and int(value) < 9:
            self.paragraph[-1][2] = int(value) + 1

    def end(self, name: str) -> None:
        self.path.pop()
        self.counts.pop()
        if self.skipping:
            self.skipping -= 1
            return
        builder = self.builder
        if name == "w:t":
            self.in_text -= 1
        elif name == "w:p" and self.paragraph:
            mark, style, outline = self.paragraph.pop()
            level = outline or self.levels.get(style) or _default_level(style)
            if builder.mark() > mark and self.cells:
                self.cells[-1] = True
            elif level and builder.mark() > mark:
                builder.heading(level, mark)
            else:
                builder.block_break()
        elif name == "w:tr" and self.rows:
            self.rows.pop()
            builder.separator("\n")
        elif name == "w:tc" and self.cells:
            self.cells.pop()
        elif name == "w:tbl":
            builder.block_break()

    def text(self, characters: str) -> None:
        if not self.in_text or self.skipping:
            return
        start = self.text_offset
        self.text_offset += len(characters)
        self.builder.add(characters, self._xpath(), start, self.text_offset)

    def _xpath(self) -> str:
        return "/" + "/".join(self.path)


def _default_level(style: str) -> int | None:
    """Without ``styles.xml``: Word's built-in ids ``Heading1`` ... ``Heading9`` and ``Title``."""
    match = re.fullmatch(r"Heading([1-9])", style)
    if match:
        return int(match.group(1))
    return 1 if style == "Title" else None
