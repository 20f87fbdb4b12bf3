"""A text's sections from its headings, the one rule Markdown documents and
extracted documents (HTML, DOCX, PDF) share: the text before the first heading
is a section titled with the document title when it is not blank; each heading
starts a section that runs to the next heading, titled with the path of
headings above it (``TITLE_SEPARATOR``), the document title first unless the
path starts at the title heading itself; a text without sections is one
section."""

from __future__ import annotations

from collections.abc import Sequence

from regrag.corpus.model import TITLE_SEPARATOR, Section


def heading_sections(
    text: str,
    title: str,
    headings: Sequence[tuple[int, str, int, int]],
    title_heading: int | None,
    body_start: int = 0,
) -> list[Section]:
    """``headings``: (level, heading text, where its line starts, where its
    body starts), in text order; ``title_heading``: which of them is the
    document title (or None); ``body_start``: where the text after any
    metadata lines starts."""
    sections: list[Section] = []
    preamble_end = headings[0][2] if headings else len(text)
    if text[body_start:preamble_end].strip():
        sections.append(Section(title, body_start, preamble_end))
    path: list[tuple[int, int, str]] = []  # level, heading index, heading
    for index, (level, heading, _line_start, heading_body) in enumerate(headings):
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, index, heading))
        names = [name for _level, _index, name in path]
        if path[0][1] != title_heading:
            names.insert(0, title)
        body_end = headings[index + 1][2] if index + 1 < len(headings) else len(text)
        sections.append(Section(TITLE_SEPARATOR.join(names), min(heading_body, body_end), body_end))
    if not sections:
        sections.append(Section(title, body_start, len(text)))
    return sections
