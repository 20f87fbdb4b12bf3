"""Golden files: the constants and the records of a verification (split out of ``regrag.audit.golden``)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Union

PathLike = Union[str, "os.PathLike[str]"]
Golden = dict[str, Any]
Queries = Union[Sequence[tuple[str, str]], Mapping[str, str]]

FORMAT = "regrag-golden/1"
DEFAULT_METHODS = ("bm25", "tfidf", "hybrid")
DEFAULT_K = 10


class RankingIndex(Protocol):
    """What recording and verifying need from an index (``regrag.Index`` has it)."""

    @property
    def index_id(self) -> str: ...

    def ranking(self, query: str, k: int = ..., method: str = ...) -> list[tuple[str, str, float]]: ...


# records --------------------------------------------------------------------


@dataclass(frozen=True)
class GoldenDifference:
    """One passage whose place in one recorded ranking is not what it was.

    ``old_*`` is the recording, ``new_*`` the ranking now; a side is ``None``
    when the passage is not in that top ``k``. Scores are compared bit for bit.
    """

    query_id: str
    method: str
    passage_id: str
    document_id: str
    old_rank: int | None
    old_score: float | None
    new_rank: int | None
    new_score: float | None

    @property
    def kind(self) -> str:
        """``added`` (new in the top k), ``dropped`` (gone from it), ``moved``
        (other rank) or ``rescored`` (same rank, score not bit-identical)."""
        if self.old_rank is None:
            return "added"
        if self.new_rank is None:
            return "dropped"
        if self.old_rank != self.new_rank:
            return "moved"
        return "rescored"


@dataclass(frozen=True)
class GoldenReport:
    """The outcome of :func:`verify_golden`.

    ``ok`` is True when every recorded ranking came back identical (same
    passages, ranks and bit-identical scores) for the recorded query texts. A
    changed index id alone does not fail verification (the rankings are what
    is audited); it is reported so a reader sees the corpus or parameters
    changed.
    """

    ok: bool
    index_id_then: str
    index_id_now: str
    corpus_root_then: str | None
    corpus_root_now: str | None
    k: int
    methods: tuple[str, ...]
    query_count: int
    differences: tuple[GoldenDifference, ...]
    changed_texts: tuple[tuple[str, str, str], ...] = ()  # (query id, recorded text, text used)
    query_texts: tuple[tuple[str, str], ...] = ()  # (query id, text used) of the queries with differences

    @property
    def index_changed(self) -> bool:
        return self.index_id_then != self.index_id_now

    @property
    def changed_queries(self) -> tuple[str, ...]:
        """Ids of the queries with at least one difference, sorted."""
        return tuple(sorted({d.query_id for d in self.differences}))

    def counts(self) -> dict[str, int]:
        """Number of differences of each kind (all four kinds always present)."""
        counts = {"moved": 0, "added": 0, "dropped": 0, "rescored": 0}
        for difference in self.differences:
            counts[difference.kind] += 1
        return counts
