"""``RegragRetriever``: a regrag index as a LlamaIndex retriever
(``pip install "regrag[llamaindex]"``, llama-index-core).

Each hit becomes ``NodeWithScore(TextNode(id_=passage_id, text=passage
text, metadata=the canonical provenance record, start_char_idx,
end_char_idx), score)``: regrag's passage span maps onto the two character
indexes one to one (offsets into the document's text). Only the document
id, passage id and section title are shown to the LLM and the embedder by
default; the rest of the record stays in ``metadata`` for audit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from regrag.engine import Index
from regrag.integrations.retrieved import open_index, retrieve

SHOWN_METADATA = ("document_id", "passage_id", "section_title")


class RegragRetriever(BaseRetriever):
    """``RegragRetriever(index, k=4, method="hybrid", filters=None, entities=True)``;
    ``index`` is an ``Index`` or an index directory. ``retrieve(query)`` returns the top ``k``."""

    def __init__(self, index: "Index | str | Path", k: int = 4, method: str = "hybrid", filters: Any = None,
                 entities: bool = True, callback_manager: CallbackManager | None = None, verbose: bool = False) -> None:
        self.index = open_index(index)
        self.k, self.method, self.filters, self.entities = k, method, filters, entities
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        nodes = []
        for item in retrieve(self.index, query_bundle.query_str, self.k, self.method, self.filters, self.entities):
            hidden = sorted(key for key in item.metadata if key not in SHOWN_METADATA)
            node = TextNode(id_=item.passage_id, text=item.text, metadata=item.metadata, start_char_idx=item.start,
                            end_char_idx=item.end, excluded_llm_metadata_keys=hidden,
                            excluded_embed_metadata_keys=hidden)
            nodes.append(NodeWithScore(node=node, score=item.score))
        return nodes
