"""A term -> ``Postings`` mapping whose entries are made on first use and
kept in a bounded cache: what a loaded table (``postings_table.py``), a
segmented view (``segment_view.py``) and a shard's view (``shard_view.py``)
share. Only how an entry is made differs (``_made``); the cache keeps at
most ``CACHE_SIZE`` terms, dropping the oldest first, and is safe for
searches running in several threads. A cached entry is the same object a
fresh one would equal: the cache never changes a result."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

from regrag.index.build import Postings

CACHE_SIZE = 4096  # terms whose scored postings a view keeps


class CachedPostings(Mapping[str, Postings]):
    """Base class: ``get``/``[]`` answer from the cache or from ``_made``;
    membership, iteration and length are those of ``self._terms`` (the
    term table a subclass sets: ``number(term)``, iteration in term order)."""

    _terms: Any

    def __init__(self) -> None:
        self._cache: dict[str, Postings] = {}
        self._cache_lock = threading.Lock()

    def __getitem__(self, term: str) -> Postings:
        entry = self.get(term)
        if entry is None:
            raise KeyError(term)
        return entry

    def get(self, term: str, default: Postings | None = None) -> Postings | None:  # type: ignore[override]
        entry = self._cache.get(term)
        if entry is not None:
            return entry
        entry = self._made(term)
        return default if entry is None else entry

    def posting_count(self, term: str) -> int:
        """How many postings ``term`` has (0 for a term not held): what a kernel
        choice weighs. This default makes the entry; a table that knows the
        count without scoring the term overrides it."""
        entry = self.get(term)
        return 0 if entry is None else len(entry.passages)

    def __contains__(self, term: object) -> bool:
        return term in self._cache or self._terms.number(term) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def __len__(self) -> int:
        return len(self._terms)

    def _made(self, term: str) -> Postings | None:
        """The term's postings made afresh and remembered (``_remember``), or None for a term not held."""
        raise NotImplementedError

    def _remember(self, term: str, entry: Postings) -> Postings:
        """``entry`` kept for ``term`` (the oldest term dropped when the cache is full); returned."""
        with self._cache_lock:
            if len(self._cache) >= CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
            self._cache[term] = entry
        return entry
