"""HTML files: visible text in document order, headings as sections, a map back into the file.

The standard library's ``html.parser`` with ``convert_charrefs=False`` hands
over every text run and every character reference separately with its
position, so each extracted piece knows its span in the file: an extracted
``24\\xa0hours`` comes from ``24&nbsp;hours``. The rules (docs/corpus.md,
"HTML"):

- text inside ``script``, ``style``, ``noscript``, ``template``, ``nav``,
  ``footer``, ``svg``, ``select``, ``button``, ``iframe``, ``object`` and
  ``head`` (except ``title``), and inside any element with a ``hidden``
  attribute, ``aria-hidden="true"`` or ``role="navigation"``, is dropped;
- block elements (``p``, ``div``, ``li``, ``table``, ...) end a paragraph
  (a blank line; inside a table cell, a space); ``br`` is a line break;
  the cells of a table row are joined by `` | `` and each row ends a line; runs of white space outside ``pre``
  become one space; ``h1``-``h6`` start sections;
- ``<title>`` is the ``title`` metadata (and the document title when there
  is no ``h1``); each ``<meta name|property=... content=...>`` is metadata
  under its name lowercased, characters other than letters, digits and
  ``_`` made ``_`` (the first of a repeated name is kept);
- comments, processing instructions and declarations are not text (a
  comment left open runs to the end of the file, as in browsers).

Source spans are character offsets into the file decoded as UTF-8 (the
offsets a Markdown document's hits use). The file must be UTF-8.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from regrag.corpus.checks import _check_file_text, decode_utf8
from regrag.corpus.extract.builder import Extracted, TextBuilder
from regrag.errors import InputError
from regrag.limits import LimitError, Limits

EXTRACTOR = "regrag.html"
VERSION = "1"

DROPPED = frozenset({"script", "style", "noscript", "template", "nav", "footer", "svg", "select", "button",
                     "iframe", "object", "head"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                  "track", "wbr", "keygen"})
BLOCKS = frozenset({"address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog",
                    "div", "dl", "dt", "fieldset", "figcaption", "figure", "form", "h1", "h2", "h3", "h4", "h5",
                    "h6", "header", "hr", "html", "legend", "li", "main", "ol", "p", "pre", "section", "summary",
                    "table", "ul", "title"})
HEADINGS = {f"h{n}": n for n in range(1, 7)}
# An element that opens while one of these is the innermost open element closes it first (HTML's implied ends).
_IMPLIED_END = {"p": {"p"}, "li": {"li", "p"}, "dt": {"dt", "dd", "p"}, "dd": {"dt", "dd", "p"},
                "tr": {"tr", "td", "th", "p"}, "td": {"td", "th", "p"}, "th": {"td", "th", "p"},
                "option": {"option"}}
_WHITE = re.compile(r"[ \t\n\r\f]+|[^ \t\n\r\f]+")
_REFERENCE = re.compile(r"&#[xX][0-9a-fA-F]*;?|&#[0-9]*;?|&[a-zA-Z][-.a-zA-Z0-9]*;?")
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")
_META_KEY = re.compile(r"[^a-z0-9_]")


def extractor_version() -> str:
    return VERSION


def extract(data: bytes, where: str, stem: str, limits: Limits) -> Extracted:
    """The text of an HTML file (UTF-8), its sections, metadata and source map."""
    text = decode_utf8(data, where)
    _check_file_text(text, where)
    reader = _Reader(text, where, limits)
    try:
        reader.feed(text)
        reader.close()
    except (AssertionError, ValueError) as error:  # html.parser's own complaints on broken markup
        line = reader.getpos()[0]
        raise InputError(f"{where}:{line}: unreadable HTML ({error})") from None
    while reader.stack:
        reader.pop()
    builder = reader.builder
    page_title = " ".join("".join(reader.title_parts).split())
    title = builder.first_heading(1) or page_title or stem
    metadata = dict(reader.metadata)
    if page_title:
        metadata.setdefault("title", page_title)
    return builder.finish(title, metadata)


class _Reader(HTMLParser):
    """Walks the markup once, feeding a ``TextBuilder``."""

    def __init__(self, text: str, where: str, limits: Limits) -> None:
        super().__init__(convert_charrefs=False)
        self.text = text
        self.where = where
        self.limits = limits
        self.builder = TextBuilder(where, limits)
        self.stack: list[tuple[str, bool, int]] = []  # tag, dropped, mark (where its text started)
        self.open_counts: dict[str, int] = {}  # how many of each tag the stack holds
        self.comment_to_end = False
        self.dropped = 0
        self.in_title = 0
        self.in_pre = 0
        self.rows: list[int] = []  # cells seen in each open table row
        self.cells = 0  # open table cells
        self.title_parts: list[str] = []
        self.metadata: dict[str, str] = {}
        self.pending_space: tuple[int, int] | None = None
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    # positions -----------------------------------------------------------
    def _here(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    # elements ------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], closed: bool) -> None:
        implied = _IMPLIED_END.get(tag, {"p"} if tag in BLOCKS else set())
        while self.stack and self.stack[-1][0] in implied:
            self.pop()
        if tag == "meta" and not self.dropped_outside_head():
            self._meta(attrs)
        if tag == "br":
            if not self.dropped and not self.in_title:
                self._break("\n")
            return
        if tag in VOID or closed:
            if tag in BLOCKS and not self.dropped:
                self._break("\n\n")
            return
        values = {name: value for name, value in attrs}
        dropped = tag in DROPPED or "hidden" in values or (values.get("aria-hidden") or "").lower() == "true" \
            or (values.get("role") or "").lower() == "navigation"
        if len(self.stack) >= self.limits.markup_depth:
            raise LimitError(f"{self.where}:{self.getpos()[0]}: elements nested more than "
                             f"{self.limits.markup_depth:,} deep (regrag.limits.Limits.markup_depth)")
        if tag == "title" and not self.in_title and not self.dropped_outside_head():
            self.in_title += 1
            self._push((tag, False, 0))
            return
        if tag in BLOCKS and not self.dropped:
            self._break("\n\n")
        if tag in ("td", "th") and self.rows and not self.dropped:
            if self.rows[-1] > 0:
                self._break("| " if self.builder.ends_with(" ") else " | ")
            self.rows[-1] += 1
        if tag == "tr":
            self.rows.append(0)
        if tag in ("td", "th"):
            self.cells += 1
        if tag == "pre":
            self.in_pre += 1
        self.dropped += dropped
        self._push((tag, dropped, self.builder.mark()))

    def _push(self, entry: tuple[str, bool, int]) -> None:
        self.stack.append(entry)
        self.open_counts[entry[0]] = self.open_counts.get(entry[0], 0) + 1

    def dropped_outside_head(self) -> bool:
        """Whether text here is dropped by a rule other than being inside ``head``."""
        return any(dropped and tag != "head" for tag, dropped, _mark in self.stack)

    def handle_endtag(self, tag: str) -> None:
        if not self.open_counts.get(tag):
            return  # an end tag with nothing to close: ignored, as browsers do
        while self.stack:
            if self.pop() == tag:
                return

    def pop(self) -> str:
        tag, dropped, mark = self.stack.pop()
        self.open_counts[tag] -= 1
        if tag == "title":
            self.in_title -= 1
            return tag
        self.dropped -= dropped
        if tag == "pre":
            self.in_pre -= 1
        if tag in ("td", "th"):
            self.cells -= 1
        if tag == "tr" and self.rows:
            self.rows.pop()
            if not self.dropped:
                self._break("\n")
        if tag in HEADINGS and not self.dropped and not dropped:
            self.pending_space = None
            self.builder.heading(HEADINGS[tag], mark)
        elif tag in BLOCKS and not self.dropped:
            self._break("\n\n")
        return tag

    def _meta(self, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value for name, value in attrs}
        name = values.get("name") or values.get("property")
        content = values.get("content")
        if not name or content is None:
            return
        key = _META_KEY.sub("_", name.strip().lower())
        if not key[:1].isalpha():
            key = "meta_" + key
        self.metadata.setdefault(key, " ".join(_CONTROL.sub("\ufffd", content).split()))

    # text ----------------------------------------------------------------
    def _break(self, separator: str) -> None:
        """A paragraph break (``\n\n``; inside a table cell only a space), a line break or a cell separator."""
        self.pending_space = None
        builder = self.builder
        if builder.length == 0:
            return
        if separator == "\n\n" and self.cells:
            if not builder.ends_with(" \n|"):
                builder.separator(" ")
        elif separator == "\n\n":
            builder.block_break()
        elif separator == "\n":
            if not builder.ends_with("\n"):
                builder.separator("\n")
        else:
            builder.separator(separator)

    def handle_data(self, data: str) -> None:
        start = self._here()
        if self.comment_to_end or self.text.startswith("<!--", start):
            # a comment left open to the end of the file: html.parser hands it over as text at close()
            self.comment_to_end = True
            return
        self._text(data, start, raw=True)

    def handle_entityref(self, name: str) -> None:
        self._reference()

    def handle_charref(self, name: str) -> None:
        self._reference()

    def _reference(self) -> None:
        start = self._here()
        match = _REFERENCE.match(self.text, start)
        end = match.end() if match else start + 1
        source = self.text[start:end]
        value = _CONTROL.sub("\ufffd", html.unescape(source))
        self._text(value, start, raw=value == source, end=end)

    def _text(self, value: str, start: int, raw: bool, end: int | None = None) -> None:
        if self.in_title:
            self.title_parts.append(value)
            return
        if self.dropped or not value:
            return
        builder = self.builder
        if not raw:  # a character reference: its text comes from the whole reference
            self._flush_space()
            builder.add(value, "", start, end if end is not None else start + len(value))
            return
        if self.in_pre:
            self._flush_space()
            builder.add(value, "", start, start + len(value))
            return
        for match in _WHITE.finditer(value):
            piece_start, piece_end = start + match.start(), start + match.end()
            if match.group()[0] in " \t\n\r\f":
                if not builder.ends_with(" \n|"):
                    self.pending_space = (piece_start, piece_end)
            else:
                self._flush_space()
                builder.add(match.group(), "", piece_start, piece_end)

    def _flush_space(self) -> None:
        if self.pending_space is not None:
            start, end = self.pending_space
            self.pending_space = None
            self.builder.add(" ", "", start, end)
