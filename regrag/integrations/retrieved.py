"""What both framework retrievers hand over for each hit: the passage id,
its text (``Index.passage_text``), its span in the document and its
canonical provenance record (``Hit.to_dict``). The LangChain and
LlamaIndex modules only wrap these in their frameworks' classes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from regrag.engine import Index
from regrag.retrieval.options import FilterSpec


@dataclass(frozen=True)
class Retrieved:
    """One hit, ready for a framework: ``text`` is
    ``document.text[start:end]``; ``metadata`` the provenance record."""

    passage_id: str
    text: str
    start: int
    end: int
    score: float
    metadata: dict[str, Any]


def open_index(index: "Index | str | Path") -> Index:
    """An ``Index`` as given, or the current generation of an index directory."""
    return index if isinstance(index, Index) else Index.open(index)


def retrieve(index: Index, query: str, k: int, method: str, filters: FilterSpec, entities: bool) -> list[Retrieved]:
    """``index.search`` with these options, as ``Retrieved`` records in rank order."""
    return [Retrieved(hit.passage_id, index.passage_text(hit.passage_id), hit.passage_span[0], hit.passage_span[1],
                      hit.score, hit.to_dict())
            for hit in index.search(query, k=k, method=method, filters=filters, entities=entities)]
