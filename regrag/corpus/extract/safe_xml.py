"""XML read without surprises: no DTD, no entity declarations, nesting capped.

Office files are XML inside a ZIP archive. An XML part with a document type
declaration could declare entities that expand to gigabytes ("billion
laughs") or name external files and URLs; Office never writes one, so any
``<!DOCTYPE`` or entity declaration is refused outright, with nothing
resolved or fetched. Elements are streamed to handlers (expat, no tree is
built), nesting is capped by ``Limits.markup_depth``, and a malformed part
is an ``InputError`` naming the file, the part, the line and the column.
"""

from __future__ import annotations

from typing import Callable
from xml.parsers import expat

from regrag.errors import InputError
from regrag.limits import LimitError, Limits

NAMESPACES = {
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main": "w",
    "http://schemas.openxmlformats.org/markup-compatibility/2006": "mc",
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships": "r",
    "http://schemas.openxmlformats.org/drawingml/2006/main": "a",
    "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing": "wp",
    "http://schemas.microsoft.com/office/word/2010/wordml": "w14",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingShape": "wps",
    "http://schemas.openxmlformats.org/officeDocument/2006/math": "m",
    "urn:schemas-microsoft-com:vml": "v",
    "http://schemas.openxmlformats.org/package/2006/metadata/core-properties": "cp",
    "http://purl.org/dc/elements/1.1/": "dc",
    "http://purl.org/dc/terms/": "dcterms",
    "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties": "op",
    "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes": "vt",
}


def short_name(name: str) -> str:
    """``w:p`` for expat's ``URI p``; ``{URI}p`` for a namespace without a known prefix."""
    uri, _space, local = name.rpartition(" ")
    if not uri:
        return local
    prefix = NAMESPACES.get(uri)
    return f"{prefix}:{local}" if prefix else f"{{{uri}}}{local}"


def stream(data: bytes, where: str, limits: Limits,
           start: Callable[[str, dict[str, str]], None],
           end: Callable[[str], None],
           text: Callable[[str], None]) -> None:
    """Parse ``data``, calling ``start(name, attributes)``, ``end(name)``,
    ``text(characters)`` with ``w:``-style names (attributes too)."""
    parser = expat.ParserCreate(namespace_separator=" ")
    depth = 0

    def refuse(*_args: object) -> None:
        raise InputError(f"{where}:{parser.CurrentLineNumber}: a document type declaration (DTD) or entity "
                         "declaration; refused (entities are never expanded or fetched)")

    def on_start(name: str, attributes: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        if depth > limits.markup_depth:
            raise LimitError(f"{where}:{parser.CurrentLineNumber}: elements nested more than "
                             f"{limits.markup_depth:,} deep (regrag.limits.Limits.markup_depth)")
        start(short_name(name), {short_name(key): value for key, value in attributes.items()})

    def on_end(name: str) -> None:
        nonlocal depth
        depth -= 1
        end(short_name(name))

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartElementHandler = on_start
    parser.EndElementHandler = on_end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        message = expat.errors.messages.get(error.code, str(error))
        raise InputError(f"{where}:{error.lineno}: malformed XML ({message}, column {error.offset + 1})") from None
