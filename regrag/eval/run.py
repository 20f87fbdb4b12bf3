"""Run a retrieval method over a BEIR folder and score it like trec_eval.

Conventions (those of Pyserini's BEIR reproductions): each query's ranking is
cut at ``depth`` (1000) documents; a hit whose document id equals the query
id is dropped; passages are turned into documents by keeping each document's
best passage; the ranking is re-ordered as trec_eval reads a run (score
descending, ties by document id descending); metrics are averaged over the
judged queries of the split (queries without results count as 0).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from regrag.engine import Index
from regrag.eval.beir import queries_for_split, read_qrels
from regrag.eval.metrics import evaluate, trec_eval_order
from regrag.errors import InputError

DEFAULT_DEPTH = 1000


@dataclass(frozen=True)
class EvaluationReport:
    """Metric means, query count and timings of one evaluation run."""

    beir_dir: str
    split: str
    method: str
    metrics: dict[str, float]
    query_count: int
    index_seconds: float
    query_seconds: tuple[float, ...]
    index_id: str
    document_count: int
    passage_count: int
    run: dict[str, list[tuple[str, float]]]

    def timing_summary(self) -> dict[str, float]:
        ordered = sorted(self.query_seconds)
        if not ordered:
            return {"index_seconds": self.index_seconds, "queries_per_second": 0.0}
        total = sum(ordered)
        return {
            "index_seconds": self.index_seconds,
            "query_mean_ms": 1000 * total / len(ordered),
            "query_p50_ms": 1000 * _percentile(ordered, 0.50),
            "query_p99_ms": 1000 * _percentile(ordered, 0.99),
            "queries_per_second": len(ordered) / total if total > 0 else 0.0,
        }

    def to_dict(self) -> dict:
        return {
            "beir_dir": self.beir_dir,
            "document_count": self.document_count,
            "index_id": self.index_id,
            "method": self.method,
            "metrics": self.metrics,
            "passage_count": self.passage_count,
            "query_count": self.query_count,
            "split": self.split,
            "timings": self.timing_summary(),
        }


def _percentile(ordered: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    position = max(0, min(len(ordered) - 1, int(-(-fraction * len(ordered) // 1)) - 1))
    return ordered[position]


def document_ranking(index: Index, query_id: str, text: str, method: str, depth: int) -> list[tuple[str, float]]:
    """Best-passage document ranking of one query, without the query's own id."""
    # Asking for depth + (passages − documents) passages guarantees ``depth``
    # distinct documents whenever that many match.
    wanted = depth + index.passage_count - index.document_count + 1
    seen: set[str] = set()
    documents: list[tuple[str, float]] = []
    for document_id, _passage_id, score in index.ranking(text, k=wanted, method=method):
        if document_id == query_id or document_id in seen:
            continue
        seen.add(document_id)
        documents.append((document_id, score))
        if len(documents) == depth:
            break
    return documents


def evaluate_beir(
    beir_dir: str | Path,
    method: str = "bm25",
    split: str = "test",
    depth: int = DEFAULT_DEPTH,
    analyzer: str = "auto",
    parameters=None,
) -> EvaluationReport:
    """Index ``beir_dir/corpus.jsonl``, run the split's queries, score the run."""
    beir_dir = Path(beir_dir)
    if not (beir_dir / "corpus.jsonl").is_file():
        raise InputError(f"{beir_dir}: not a BEIR folder (no corpus.jsonl)")
    qrels_path = beir_dir / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        raise InputError(f"{qrels_path}: no qrels for split {split!r}")
    started = time.perf_counter()
    index = Index.from_path(beir_dir, analyzer=analyzer, parameters=parameters)
    index_seconds = time.perf_counter() - started
    queries = queries_for_split(beir_dir, split)
    qrels = read_qrels(qrels_path)
    run: dict[str, list[tuple[str, float]]] = {}
    timings: list[float] = []
    for query_id in sorted(queries):
        started = time.perf_counter()
        run[query_id] = document_ranking(index, query_id, queries[query_id], method, depth)
        timings.append(time.perf_counter() - started)
    ordered = {query_id: trec_eval_order(scored) for query_id, scored in run.items()}
    result = evaluate(ordered, qrels, depth=depth)
    return EvaluationReport(
        beir_dir=str(beir_dir),
        split=split,
        method=method,
        metrics=dict(result["means"]),
        query_count=len(queries),
        index_seconds=index_seconds,
        query_seconds=tuple(timings),
        index_id=index.index_id,
        document_count=index.document_count,
        passage_count=index.passage_count,
        run=run,
    )
