"""What the server serves: the open generations of one index directory and
the access views of each principal.

The current generation is reopened when ``CURRENT`` changes (its inode,
size or modification time, checked at most every ``RELOAD_CHECK_SECONDS``
before a request). A request holds the ``Index`` it started with until it
ends: an index is immutable and its memory-mapped files stay readable after
a writer prunes them, so a reload never disturbs a request in flight.
Older generations (``generation`` / ``as_of`` in a request) and views are
kept in small LRU caches.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from regrag.errors import InputError
from regrag.serve.access import AccessView, principal_key, subset_index, unreadable_documents
from regrag.serve.auth import Principal
from regrag.serve.search_api import Where

RELOAD_CHECK_SECONDS = 0.05
GENERATION_CACHE = 4
VIEW_CACHE = 64
STATISTICS_CHOICES = ("corpus", "group")


@dataclass(frozen=True)
class Served:
    """How views are made and answers given: per-group statistics or not,
    unlabelled documents, and the calibration maps ``_ask`` applies (each to
    its own method's answers; docs/calibration.md)."""

    statistics: str = "corpus"
    unlabelled: str = "public"
    calibrations: tuple = ()  # regrag.answer.calibration.CalibrationMap, one per method

    def calibration_for(self, method: str):
        """The map of ``method``'s answers, or None."""
        from regrag.answer.calibration import calibration_for

        return calibration_for(self.calibrations, method)

    def __post_init__(self) -> None:
        if self.statistics not in STATISTICS_CHOICES:
            raise InputError(f"statistics must be one of {', '.join(STATISTICS_CHOICES)}, got {self.statistics!r}")
        if self.unlabelled not in ("public", "private"):
            raise InputError(f"unlabelled must be public or private, got {self.unlabelled!r}")


class _Lru:
    def __init__(self, size: int) -> None:
        self._size, self._items, self._lock = size, OrderedDict(), threading.Lock()

    def get(self, key, make: Callable):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()  # outside the lock: two threads may make it; both results are equal
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


class IndexHolder:
    """The index a request reads, found from its ``Where``."""

    def __init__(self, directory: str | Path | None = None, index=None, pinned: Where = Where(),
                 served: Served = Served(), memory_map: bool = True) -> None:
        from regrag.engine import Index

        if (directory is None) == (index is None):
            raise InputError("serve an index directory or an index, not both")
        self.directory = None if directory is None else Path(directory)
        self.served = served
        self._memory_map = memory_map
        self._pinned = pinned
        self._lock = threading.Lock()
        self._generations = _Lru(GENERATION_CACHE)
        self._views = _Lru(VIEW_CACHE)
        self._checked = 0.0
        self._failed = None
        self.reloads = 0
        if self.directory is None:
            self._current, self._stamp = index, None
        else:
            self._stamp = self._current_stamp()
            self._current = Index.open(self.directory, pinned.generation, pinned.as_of, memory_map=memory_map)

    def _current_stamp(self):
        info = os.stat(self.directory / "CURRENT")
        return (info.st_ino, info.st_size, info.st_mtime_ns)

    def current(self):
        """The current generation, reopened first if ``CURRENT`` moved."""
        if self.directory is None or self._pinned != Where():
            return self._current
        now = time.monotonic()
        if now - self._checked < RELOAD_CHECK_SECONDS:
            return self._current
        with self._lock:
            if now - self._checked < RELOAD_CHECK_SECONDS:
                return self._current
            self._checked = now
            try:
                stamp = self._current_stamp()
            except OSError:
                return self._current  # CURRENT briefly absent: keep serving what is open
            if stamp != self._stamp:
                from regrag.engine import Index

                try:
                    index = Index.open(self.directory, memory_map=self._memory_map)
                except InputError as error:  # keep serving the open generation; try again at the next check
                    if stamp != self._failed:
                        print(f"regrag serve: the new generation could not be opened ({error}); still serving "
                              f"generation {self._current.generation.number}", file=sys.stderr)
                        self._failed = stamp
                    return self._current
                self._current, self._stamp = index, stamp
                self.reloads += 1
            return self._current

    def index_for(self, where: Where):
        """The index ``where`` names (``InputError`` for an unknown one)."""
        if where == Where():
            return self.current()
        if self.directory is None:
            raise InputError("generation and as_of need an index directory (regrag serve --index DIR)")
        from regrag.engine import Index
        from regrag.index.directory import IndexStore

        number = IndexStore(self.directory).generation_for(where.generation, where.as_of).number
        current = self.current()
        if current.generation is not None and current.generation.number == number:
            return current
        return self._generations.get(number, lambda: Index.open(self.directory, number, memory_map=self._memory_map))

    def view(self, index, principal: Principal) -> AccessView:
        """``index`` as ``principal`` may see it."""
        number = index.generation.number if index.generation is not None else None
        key = (number, index.index_id, principal_key(principal))

        def make() -> AccessView:
            hidden = unreadable_documents(index, principal, self.served.unlabelled)
            if self.served.statistics == "group" and hidden:
                return AccessView(subset_index(index, hidden), generation=index.generation)
            return AccessView(index, hidden)

        return self._views.get(key, make)
