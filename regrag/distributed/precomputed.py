"""Rankings computed on Spark beforehand, served to ``eval`` and ``golden`` as if by the index.

``regrag eval --spark`` and ``golden record|verify --spark`` run their
usual code on the driver against a ``PrecomputedRankings``: its
``ranking(text, k, method)`` answers from the rankings ``rank_on_spark``
computed for exactly those calls, and everything else (index id, corpus
root, passage counts, ``ask``) is the index's own. So the report or golden
file is the one-process one by construction; only the rankings travel.
A call nobody asked for beforehand is ranked by the index here.
"""

from __future__ import annotations

from typing import Any, Mapping

from regrag.distributed.batch_search import Ranking, RankingRequest


class PrecomputedRankings:
    """``index`` with ``ranking`` answered from ``rankings`` where they hold the call."""

    def __init__(self, index, rankings: Mapping[RankingRequest, Ranking]) -> None:
        self._index, self._rankings = index, dict(rankings)

    def ranking(self, query: str, k: int = 10, method: str = "hybrid", **options: Any) -> list[tuple[str, str, float]]:
        found = None if options else self._rankings.get(RankingRequest(query, k, method))
        if found is None:
            return self._index.ranking(query, k=k, method=method, **options)
        return list(found)

    def __getattr__(self, name: str):
        return getattr(self._index, name)


def evaluation_requests(index, root: str, split: str, methods, depth: int) -> list[RankingRequest]:
    """The ``ranking`` calls ``evaluate_folder`` makes for the judged queries of ``root``:
    ``depth`` passages each when the qrels judge passages, else as many as
    ``document_ranking`` asks for to find ``depth`` distinct documents."""
    from regrag.errors import InputError
    from regrag.eval.run import judging_unit, load_labelled_set

    if index is None:
        raise InputError("--spark needs --index DIR (a directory written by 'regrag index' on storage every "
                         "executor reads)")
    if depth < 1:
        raise InputError(f"depth must be >= 1, got {depth}")
    labelled = load_labelled_set(root, split, answers=False)
    passages = judging_unit(index, labelled.qrels) == "passage"
    k = depth if passages else depth + index.passage_count - index.document_count + 1
    return [RankingRequest(labelled.queries[query_id], k, method)
            for method in methods for query_id in sorted(labelled.qrels)]
