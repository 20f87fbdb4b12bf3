"""A passage's text, sliced once here so that integrations (the MCP server,
the LangChain and LlamaIndex retrievers) and the serve page never slice
documents themselves: ``document.text[start:end]`` of the passage span,
exactly the characters its offsets and term matches index."""

from __future__ import annotations

from regrag.index.build import InvertedIndex


def passage_text(index: InvertedIndex, position: int) -> str:
    """The text of the passage at index position ``position``, verbatim (no
    heading line: the section title is ``Passage.title``)."""
    passage = index.passages[position]
    return index.documents[passage.document_id].text[passage.start : passage.end]
