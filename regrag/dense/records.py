"""The ledger record of a dense or fused ``search`` or ``ask``, and its replay without the model.

The record has the fields of a lexical one (``regrag.audit.replay.call_record``:
the lexical index id, corpus root, generation, options, results, the SHA-256
of every hit's provenance) and ``dense``: the dense index id, the embedder's
identity and the **quantised query vector itself**. ``rerun_dense`` scores
that vector against the stored passage vectors: no embedder is constructed,
so a replay gives the same bytes on a machine where the model is missing or
built differently (tests/dense/test_replay.py makes it unavailable).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from regrag.audit.canonical import sha256_hex
from regrag.errors import InputError


def dense_call_record(query: str, options: dict[str, Any], searcher: Any, hits: Sequence[Any],
                      query_vector: Sequence[int]) -> dict[str, Any]:
    """The ledger record of one dense or fused ``search``."""
    index = searcher.index
    return {
        "analyzer": index.analyzer.name,
        "command": "search",
        "corpus_root": index.corpus_root,
        "dense": {"dense_index_id": searcher.dense_index_id, "embedder": searcher.vectors.identity,
                  "query_vector": list(query_vector)},
        "generation": index.generation.number if index.generation is not None else None,
        "index_id": index.index_id,
        "options": options,
        "output_sha256": sha256_hex([hit.to_dict() for hit in hits]),
        "parameters": index.parameters.to_dict(),
        "query": query,
        "results": [[hit.passage_id, hit.score] for hit in hits],
    }


def dense_ask_record(question: str, options: dict[str, Any], searcher: Any, answer: Any,
                     query_vector: Sequence[int], call_record: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The ledger record of one dense or fused ``ask``: a lexical ask record (``call_record``:
    ``regrag.audit.replay.call_record``, passed in so that the two modules do not import each other) and ``dense``."""
    record = call_record("ask", question, options, searcher.index, answer.hits, answer)
    record["dense"] = {"dense_index_id": searcher.dense_index_id, "embedder": searcher.vectors.identity,
                       "query_vector": list(query_vector)}
    return record


def rerun_dense(index: Any, record: dict[str, Any], directory: str | os.PathLike[str] | None,
                call_record: Callable[..., dict[str, Any]] | None = None) -> dict[str, Any]:
    """Re-run a recorded dense or fused search from its recorded query vector."""
    from regrag.dense.search import DenseSearcher
    from regrag.dense.generation import load

    if directory is None:
        raise InputError("a dense record is replayed against an index directory's stored vectors")
    if record.get("command") not in ("search", "ask"):
        raise InputError(f"dense {record.get('command')!r} records are not replayed (only search and ask)")
    dense = record.get("dense")
    if not isinstance(dense, dict) or "query_vector" not in dense:
        raise InputError("malformed record: a dense search without its query vector")
    options = record["options"]
    searcher = DenseSearcher(index, load(directory, index))  # no embedder: the recorded vector is scored
    vector = dense["query_vector"]
    if record["command"] == "ask":
        from regrag.dense.answers import dense_answer

        answer = dense_answer(searcher, record["query"], options["method"], k=options["k"], filters=options["filters"],
                              max_sentences=options["max_sentences"], threshold=options["threshold"],
                              rrf_depth=options["rrf_depth"], query_vector=vector)
        if call_record is None:
            raise InputError("replaying a dense ask needs regrag.audit.replay.call_record")
        return dense_ask_record(record["query"], options, searcher, answer, vector, call_record)
    hits = searcher.search(record["query"], k=options["k"], method=options["method"], filters=options["filters"],
                           rrf_depth=options["rrf_depth"], query_vector=vector)
    return dense_call_record(record["query"], options, searcher, hits, vector)
