"""Ranking a sharded index shard by shard (docs/index-format.md, "Sharded
generations"): each shard's top ``k`` of one retriever, scored with the
global statistics (``regrag.index.shard_view``), mapped to global
positions and merged on the total order (score descending, then position,
which is document id then passage number). Every passage's score is the
single index's, bit for bit, and any passage of the global top ``k`` is in
its shard's top ``k``, so the merge is the single index's top ``k``.
Fusion (hybrid RRF) runs once, on the merged lists (``regrag.retrieval.hybrid``)."""

from __future__ import annotations

from collections.abc import Callable

from regrag.index.build import InvertedIndex
from regrag.retrieval.query import AnalyzedQuery


def sharded_rank(index: InvertedIndex, query: AnalyzedQuery, method: str, k: int, allowed: frozenset[int] | None,
                 exhaustive: bool, kernel: str | None, rank: Callable[..., list[tuple[int, float]]]
                 ) -> list[tuple[int, float]]:
    """``rank`` (passed in: ``regrag.retrieval.ranking.rank``) of a ``ShardedIndex``:
    per-shard top ``k`` merged on (−score, position)."""
    merged: list[tuple[int, float]] = []
    for view in index.shard_views():  # type: ignore[attr-defined]
        to_global = view.global_positions
        local_allowed = None
        if allowed is not None:
            local_allowed = frozenset(local for local, position in enumerate(to_global) if position in allowed)
            if not local_allowed:
                continue
        merged.extend((to_global[local], score)
                      for local, score in rank(view.index, query, method, k, local_allowed, exhaustive, kernel))
    merged.sort(key=lambda pair: (-pair[1], pair[0]))
    return merged[:k]
