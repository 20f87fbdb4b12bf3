"""The score checks of ``verify`` for a dense or fused hit (docs/integrations.md, "Verifying dense hits").

A dense hit records the hash of the quantised query vector
(``query_vector_sha256``), not the vector: the vector itself is in the ledger
entry of the call (``regrag.dense.records``). Given the vector (or that
entry), a dense hit's scores are recomputed from the stored passage vectors
alone, with no embedder: the vector must hash to the recorded hash, the
``dense`` retriever's score must be the exact integer dot product of the
vector and the passage's stored row, and for ``fused`` each lexical score
must be what ``explain`` gives and the fused score the Reciprocal Rank
Fusion sum of the record's own ranks, added in the order bm25, tfidf, dense;
for ``rerank`` the hit's score must be its bm25 score (0.0 when it lists no
bm25: a passage of the dense pool without a query term, or below the pool).
The order of a ``rerank`` list is not re-checked here (it needs the other
hits): ``ledger replay`` re-runs the whole ranking.
"""

from __future__ import annotations

from operator import mul
from typing import Any

from regrag.dense.quantise import check_query_vector, vector_hash
from regrag.errors import InputError
from regrag.retrieval.fusion import rrf_contribution

DENSE_LISTS = ("bm25", "tfidf", "dense")


def query_vector_from(query_vector: Any = None, ledger_entry: Any = None) -> list[int] | None:
    """The query vector given directly, or read from a ledger entry (the whole entry or its ``record``);
    None when neither holds one. ``InputError`` for an entry without one."""
    if query_vector is not None:
        return query_vector
    if ledger_entry is None:
        return None
    record = ledger_entry.get("record", ledger_entry) if isinstance(ledger_entry, dict) else None
    dense = record.get("dense") if isinstance(record, dict) else None
    if not isinstance(dense, dict) or "query_vector" not in dense:
        raise InputError("the ledger entry holds no dense query vector (record.dense.query_vector): "
                         "it is not the entry of a dense or fused search or ask")
    return dense["query_vector"]


def passage_score(vectors: Any, position: int, query: tuple[int, ...]) -> int:
    """The exact dense score of the passage at ``position``: its stored int8 row dotted with ``query``."""
    start = position * vectors.dimension
    row = memoryview(vectors.data)[start : start + vectors.dimension].cast("b")
    return sum(map(mul, query, row))


def dense_score_check(vectors: Any, record: dict[str, Any], position: int, lexical: dict[str, float],
                      query_vector: Any) -> tuple[bool, str]:
    """(ok, detail) for the scores of a ``dense`` or ``fused`` hit record at ``position``; ``lexical``: the
    passage's bm25 and tfidf scores for the record's query (``explain``)."""
    method = record.get("method")
    if query_vector is None:
        return False, (f"a {method} hit's score is recomputed from the query vector: give 'query_vector' or "
                       "the call's 'ledger_entry' (it records the vector; the hit records its SHA-256)")
    try:
        vector = check_query_vector(query_vector, vectors.dimension)
    except InputError as error:
        return False, str(error)
    if vector_hash(vector) != record.get("query_vector_sha256"):
        return False, "the query vector's SHA-256 is not the hit's query_vector_sha256 (another query's vector)"
    retrievers = record.get("retrievers")
    if not isinstance(retrievers, list) or not all(isinstance(r, dict) for r in retrievers):
        return False, "the record has no list of retrievers"
    names = [r.get("retriever") for r in retrievers]
    if method == "dense":
        allowed, wanted = ["dense"], "dense"
    elif method == "rerank":  # every rerank hit is in the dense list; bm25 when it is in the pool with a query term
        allowed, wanted = [n for n in ("bm25", "dense") if n in names or n == "dense"], "bm25 (in the pool) and dense"
    else:
        allowed, wanted = [n for n in DENSE_LISTS if n in names], "bm25, tfidf, dense (those it is in), in that order"
    if names != allowed or not names:
        return False, f"a {method} hit lists retrievers {names}, not {wanted}"
    expected = {**lexical, "dense": float(passage_score(vectors, position, vector))}
    bad = [r["retriever"] for r in retrievers if r.get("score") != expected[r["retriever"]]]
    if method == "dense" and record.get("score") != expected["dense"]:
        bad.append("dense")
    if method == "rerank" and not bad:  # the BM25 score among the pool; 0.0 for a pool passage without a query term
        if record.get("score") != (expected["bm25"] if "bm25" in names else 0.0):
            bad.append("rerank")
    if method == "fused" and not bad:
        ranks = [r.get("rank") for r in retrievers]
        if not all(isinstance(rank, int) and not isinstance(rank, bool) and rank >= 1 for rank in ranks):
            bad.append("fused")
        else:
            fused = 0.0
            for rank in ranks:  # the record lists them in the fusion's order
                fused += rrf_contribution(rank)
            if record.get("score") != fused:
                bad.append("fused")
    if bad:
        return False, f"score(s) that do not recompute: {', '.join(sorted(set(bad)))}"
    return True, ("the query vector matches the hit's hash and every retriever score recomputes exactly"
                  + (" (the dense score from the stored vector)" if method == "dense" else
                     "; the fused score follows from the ranks"))
