"""``regrag search|ask --method dense|fused|rerank --index DIR``: rankings (and answers) over the
vectors the generation carries (``regrag embed DIR``) (docs/dense.md). The query is embedded by
the embedder the stored identity names (which must be installed); with
``--ledger`` the quantised query vector is recorded, so ``ledger replay``
needs no embedder."""

from __future__ import annotations

import argparse

from regrag.cli.status import ExitStatus
from regrag.errors import InputError


def run_dense_search(arguments: argparse.Namespace, print_hits) -> int:
    from regrag.adapters.choose import embedder_for
    from regrag.cli.options import load_index
    from regrag.dense.records import dense_call_record
    from regrag.dense.search import DenseSearcher
    from regrag.dense.generation import load

    if not arguments.index:
        raise InputError(f"--method {arguments.method} needs --index DIR with stored vectors (regrag embed DIR)")
    index = load_index(arguments)
    vectors = load(arguments.index, index)
    searcher = DenseSearcher(index, vectors, embedder_for(vectors.identity))
    index.analyze_query(arguments.query)  # the query checks and limits, before the model is used
    vector = searcher.query_vector(arguments.query)
    hits = searcher.search(arguments.query, k=arguments.k, method=arguments.method, filters=arguments.filter,
                           rrf_depth=arguments.rrf_depth, query_vector=vector)
    if arguments.ledger:
        from regrag.audit.ledger import append_record

        options = {"entities": False, "filters": list(arguments.filter), "k": arguments.k,
                   "method": arguments.method, "rrf_depth": arguments.rrf_depth}
        append_record(arguments.ledger, dense_call_record(arguments.query, options, searcher, hits, vector))
    if arguments.json:
        for hit in hits:
            print(hit.to_json())
        return ExitStatus.OK
    identity = vectors.identity
    print(f"index {searcher.dense_index_id[:16]} (dense; lexical {index.index_id[:16]})  ·  {index.passage_count} passages"
          f"  ·  embedder {identity.get('package')} {identity.get('version')}  ·  method {arguments.method}")
    if not hits:
        print("no passage matches the query")
        return ExitStatus.OK
    print_hits(index, hits)
    return ExitStatus.OK


def dense_ask(arguments: argparse.Namespace, index):
    """``ask --method dense|fused --index DIR``: the extractive answer from the dense or fused hits
    (``regrag.dense.answers``); with ``--ledger`` the record holds the quantised question vector."""
    from regrag.adapters.choose import embedder_for
    from regrag.dense.answers import dense_answer
    from regrag.dense.generation import load
    from regrag.dense.records import dense_ask_record
    from regrag.dense.search import DenseSearcher

    if not arguments.index:
        raise InputError(f"--method {arguments.method} needs --index DIR with stored vectors (regrag embed DIR)")
    vectors = load(arguments.index, index)
    searcher = DenseSearcher(index, vectors, embedder_for(vectors.identity))
    index.analyze_query(arguments.question)  # the query checks and limits, before the model is used
    vector = searcher.query_vector(arguments.question)
    answer = dense_answer(searcher, arguments.question, arguments.method, k=arguments.k, filters=arguments.filter,
                          max_sentences=arguments.max_sentences, threshold=arguments.threshold,
                          rrf_depth=arguments.rrf_depth, query_vector=vector)
    if arguments.ledger:
        from regrag.audit.ledger import append_record

        options = {"entities": False, "filters": list(arguments.filter), "k": arguments.k,
                   "max_sentences": arguments.max_sentences, "method": arguments.method,
                   "rrf_depth": arguments.rrf_depth, "threshold": answer.confidence.threshold}
        from regrag.audit.replay import call_record

        append_record(arguments.ledger, dense_ask_record(arguments.question, options, searcher, answer, vector,
                                                         call_record))
    return answer
