"""What turns one corpus into another: the documents to add or replace and
the ids to delete (``Index.changes_to``, ``regrag index --update``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from regrag.corpus.model import Document
from regrag.errors import InputError


def corpus_changes(current: Mapping[str, Document], documents: Iterable[Document],
                   unchanged: Callable[[Document], bool] | None = None) -> tuple[list[Document], list[str]]:
    """The documents of ``documents`` that are new or differ in any field from
    ``current`` (by id), sorted by id, and the ids of ``current`` that
    ``documents`` lacks, sorted; ``InputError`` for an id given twice.
    ``unchanged(document)``, when given, is a cheap test that may say a
    document is unchanged without reading ``current`` (True only when it is)."""
    wanted: dict[str, Document] = {}
    for document in documents:
        if document.id in wanted:
            raise InputError(f"duplicate document id {document.id!r}")
        wanted[document.id] = document
    upserts = [wanted[key] for key in sorted(wanted)
               if not (unchanged is not None and unchanged(wanted[key])) and current.get(key) != wanted[key]]
    deletions = [key for key in sorted(current) if key not in wanted]
    return upserts, deletions
