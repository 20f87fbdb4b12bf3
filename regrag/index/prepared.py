"""The documents of a bounded build, sorted by id with their passages: held
in memory, or streamed from their file (``regrag.corpus.stream``).

``prepare`` runs before the writer lock is taken, so a corpus over the
passage cap is refused before anything is created. For documents in memory
it sorts them and splits every passage, as the in-memory build does; for
``StreamedDocuments`` it takes the passage counts of the first pass (or
counts again in one more pass when they were counted with another passage
bound) and each document's passages are split again when it is read
(``pairs``): the same ``split_passages`` on the same document, so the same
passages.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from regrag.corpus.model import Document
from regrag.corpus.passages import split_passages
from regrag.corpus.stream import StreamedDocuments
from regrag.index.build import check_index_size, unique_documents
from regrag.index.parameters import IndexParameters
from regrag.limits import DEFAULT_LIMITS, Limits


@dataclass(frozen=True)
class PreparedDocuments:
    """Id-sorted ``documents`` (a list, or ``StreamedDocuments``) with each
    one's passages (``passages``; None when streamed: split on each read),
    passage counts and the total."""

    documents: Sequence[Document]
    passages: Sequence[tuple] | None
    passage_counts: Sequence[int]
    passage_count: int
    max_chars: int
    limits: Limits

    def __len__(self) -> int:
        return len(self.documents)

    def pairs(self, start: int, end: int) -> Iterator[tuple[Document, tuple]]:
        """(document, its passages) for documents ``start`` to ``end - 1``."""
        if self.passages is not None:
            return zip(islice(self.documents, start, end), islice(self.passages, start, end))
        max_chars, limits = self.max_chars, self.limits
        return ((document, tuple(split_passages(document, max_chars, limits)))
                for document in self.documents.range(start, end))

    def ids(self) -> list[str]:
        """Every document id, in order."""
        if isinstance(self.documents, StreamedDocuments):
            return self.documents.ids
        return [document.id for document in self.documents]

    def sizes(self) -> Sequence[int]:
        """Each document's title and text characters plus one (how workers' ranges are cut)."""
        if isinstance(self.documents, StreamedDocuments):
            return self.documents.records.sizes
        return [len(document.text) + len(document.title) + 1 for document in self.documents]


def prepare(documents: Sequence[Document], parameters: IndexParameters, limits: Limits | None = None) -> PreparedDocuments:
    """Unique documents sorted by id and split into passages; ``LimitError``
    beyond the passage caps (``limits``, default ``build.DEFAULT_LIMITS``)."""
    chosen = limits or DEFAULT_LIMITS
    max_chars = parameters.max_passage_chars
    if isinstance(documents, StreamedDocuments):  # unique and sorted by the scan
        if documents.counted_with == (max_chars, chosen.passages_per_document):
            if documents.passage_error is not None:
                raise documents.passage_error
            counts: Sequence[int] = documents.records.passage_counts
        else:
            counts = array("q", (len(split_passages(document, max_chars, chosen)) for document in documents))
        passage_count = sum(counts)
        check_index_size(passage_count, 0, limits)
        return PreparedDocuments(documents, None, counts, passage_count, max_chars, chosen)
    by_id = unique_documents(documents, limits)
    ordered = [by_id[key] for key in sorted(by_id)]
    del by_id
    passages = [tuple(split_passages(document, max_chars, chosen)) for document in ordered]
    counts = [len(item) for item in passages]
    passage_count = sum(counts)
    check_index_size(passage_count, 0, limits)
    return PreparedDocuments(ordered, passages, counts, passage_count, max_chars, chosen)
