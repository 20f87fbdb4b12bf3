"""``regrag index CORPUS --out DIR --shards S``: the three phases of a
sharded build in this process (or ``--workers N`` processes), published
with the store's atomic commit (docs/index-format.md, "Sharded generations");
and ``regrag index CORPUS --out DIR --update`` of a sharded generation
(phase A for new and changed documents only, ``regrag.index.shard_update``)."""

from __future__ import annotations

import argparse

from regrag.cli.options import analyzer, parameters


def build_and_publish_sharded(arguments: argparse.Namespace, store, corpus, base: int):
    """(Publication, ledger needs, (documents, passages)) of a sharded build of ``corpus``."""
    from regrag.index import publishing
    from regrag.index.shard_phases import check_shard_count
    from regrag.index.sharded import build_sharded, commit_sharded
    from regrag.text.analyzer import Analyzer

    shards = check_shard_count(arguments.shards)
    chosen = (Analyzer(analyzer(arguments)), parameters(arguments))
    needs = None
    if arguments.ledger and base:
        from regrag.index.build import compute_index_id

        needs = publishing.ledger_needs(arguments.ledger, store.history()[1], compute_index_id(*chosen, corpus.documents))
    files, statistics = build_sharded(corpus.documents, *chosen, shards, workers=arguments.workers)
    result = commit_sharded(store, files, statistics, *chosen, keep=arguments.keep, base=base,
                            protect=needs.retained if needs else (), allow_clock_skew=arguments.allow_clock_skew)
    return result, needs, (statistics.document_count, statistics.passage_count)


def update_and_publish_sharded(arguments: argparse.Namespace, store, current, upserts, deletions, base: int):
    """(Publication, ledger needs, (documents, passages)) of an update of the sharded
    generation ``current`` (an ``Index``): the bytes of a fresh sharded build of the new corpus."""
    from regrag.index import publishing
    from regrag.index.shard_update import update_sharded
    from regrag.index.sharded import commit_sharded

    inverted = current.inverted
    files, statistics, _analysed = update_sharded(inverted, upserts, deletions, current.limits,
                                                  workers=arguments.workers)
    needs = None
    if arguments.ledger and base:
        needs = publishing.ledger_needs(arguments.ledger, store.history()[1], statistics.index_id)
    result = commit_sharded(store, files, statistics, inverted.analyzer, inverted.parameters, keep=arguments.keep,
                            base=base, protect=needs.retained if needs else (),
                            allow_clock_skew=arguments.allow_clock_skew)
    return result, needs, (statistics.document_count, statistics.passage_count)
