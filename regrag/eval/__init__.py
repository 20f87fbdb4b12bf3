"""Evaluation: trec_eval-compatible ranking metrics and BEIR-format readers.

``metrics`` holds pure metric functions (nDCG@k, recall@k, reciprocal rank@k,
hit@k) and :func:`evaluate`; ``beir`` reads BEIR queries/qrels and writes TREC
run files.
"""

from regrag.eval.beir import queries_for_split, read_qrels, read_queries, write_run_trec
from regrag.eval.metrics import (
    METRIC_NAMES,
    average_precision,
    evaluate,
    hit_at_k,
    mean,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
    trec_eval_order,
)

__all__ = [
    "METRIC_NAMES",
    "average_precision",
    "evaluate",
    "hit_at_k",
    "mean",
    "ndcg_at_k",
    "queries_for_split",
    "read_qrels",
    "read_queries",
    "recall_at_k",
    "reciprocal_rank_at_k",
    "trec_eval_order",
    "write_run_trec",
]
