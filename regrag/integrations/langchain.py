"""``RegragRetriever``: a regrag index as a LangChain retriever
(``pip install "regrag[langchain]"``, langchain-core; Python 3.11 or later).

Each hit becomes ``Document(id=passage_id, page_content=passage text,
metadata=the canonical provenance record)``: the same ranking, scores and
provenance as ``Index.search``, so a chain's sources can be checked with
``regrag verify`` or the MCP ``verify`` tool (docs/integrations.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, field_validator

from regrag.engine import Index
from regrag.integrations.retrieved import open_index, retrieve


class RegragRetriever(BaseRetriever):
    """``RegragRetriever(index=Index or directory, k=4, method="hybrid",
    filters=None, entities=True)``; ``invoke(query)`` returns the top ``k``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    index: Index
    k: int = 4
    method: str = "hybrid"
    filters: Any = None
    entities: bool = True

    @field_validator("index", mode="before")
    @classmethod
    def _opened(cls, value: Any) -> Any:
        return open_index(value) if isinstance(value, (str, Path)) else value

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [Document(id=item.passage_id, page_content=item.text, metadata=item.metadata)
                for item in retrieve(self.index, query, self.k, self.method, self.filters, self.entities)]
