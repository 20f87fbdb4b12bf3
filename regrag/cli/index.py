"""``regrag index CORPUS --out DIR``: build or update an index directory and
publish a generation; ``regrag verify DIR``: check one (docs/index-format.md)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from regrag.cli.options import (add_build_options, add_corpus_loading_options, analyzer, given_build_options,
                                parameters)
from regrag.cli.options import load_corpus as _load_all
from regrag.cli.output import progress, staged_progress
from regrag.cli.spark_index import add_spark_index_options, run_spark_index
from regrag.cli.status import ExitStatus
from regrag.engine import Index
from regrag.errors import InputError, RegragError
from regrag.index.budget import DEFAULT_MEMORY_MB, MINIMUM_MEMORY_MB
from regrag.index.parallel import check_workers
from regrag.limits import DEFAULT_LIMITS


def register(commands) -> None:
    index = commands.add_parser("index", help="build an index directory, or update it (--update)")
    index.add_argument("corpus", help="folder of .md/.txt files, a .jsonl file or a BEIR folder")
    index.add_argument("--out", required=True, metavar="DIR", help="index directory (created if needed)")
    index.add_argument("--update", action="store_true",
                       help="add, replace and delete only the documents that changed since the current generation")
    index.add_argument("--keep", type=int, default=None, metavar="N",
                       help="retain only the newest N generations (default: keep all); prints what it pruned")
    index.add_argument("--ledger", action="append", default=None, metavar="FILE",
                       help="with --keep: never prune a generation the records of this ledger replay against (repeatable)")
    index.add_argument("--allow-deletions", action="store_true",
                       help="with --update: allow deleting more than half of the documents (refused by default)")
    index.add_argument("--allow-clock-skew", action="store_true",
                       help="publish even if the clock is more than an hour behind the newest generation's stamp")
    add_corpus_loading_options(index)
    index.add_argument("--max-streamed-file-bytes", type=_byte_count, default=None, metavar="BYTES",
                       help="the largest corpus file a full build streams (a .jsonl or .jsonl.gz file or a BEIR "
                            "folder; gzip: also its decompressed bytes), e.g. 40000000000 or 40GiB (default 16GiB; "
                            "regrag.limits.Limits.streamed_file_bytes, docs/security.md)")
    index.add_argument("--allow-empty", action="store_true",
                       help="publish even when the corpus has no document (refused by default, exit 2)")
    add_build_options(index)
    index.add_argument("--workers", type=int, default=1, metavar="N",
                       help="analyse the documents in N processes (default 1); the index is the same, byte for byte "
                            "(--update analyses only the changed documents, in this process)")
    index.add_argument("--shards", type=int, default=None, metavar="S",
                       help="write a sharded generation of S shards, built in this process (or --workers N) "
                            "(docs/index-format.md, \"Sharded generations\")")
    index.add_argument("--memory", type=int, default=None, metavar="MB",
                       help=f"bound the build's buffered analysis to about MB megabytes (10^6 bytes), spilling to "
                            f"disk beyond it (default {DEFAULT_MEMORY_MB}, at least {MINIMUM_MEMORY_MB}); the index is "
                            "the same, byte for byte (docs/index-format.md, \"Building in bounded memory\")")
    add_spark_index_options(index)  # --spark [MASTER], --partitions (docs/distributed.md)
    index.set_defaults(handler=run_index)

    verify = commands.add_parser("verify", help="check an index directory (exit 0 intact, 1 damaged)")
    verify.add_argument("directory", metavar="DIR")
    verify.add_argument("--generation", type=int, default=None, metavar="N", help="check only generation N")
    verify.add_argument("--quick", action="store_true",
                        help="check sizes and hashes only (what loading does), not a full re-index of the stored documents")
    verify.set_defaults(handler=run_verify)


def run_index(arguments: argparse.Namespace) -> int:
    from regrag.index.directory import IndexStore

    store = IndexStore(arguments.out)
    try:
        if arguments.spark is not None:
            return run_spark_index(arguments, store, _load_corpus, _refuse_empty)
        given = [f"--{name.replace('_', '-')}" for name in ("partitions", "spark_files") if getattr(arguments, name) is not None]
        if given:
            raise InputError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to --spark")
        return _index_and_publish(arguments, store)
    except KeyboardInterrupt:  # publish removed what it wrote: say what is current, in one line
        try:
            number = store.current_number()
            where = f"generation {number} is current" if number else "the directory has no generation"
        except RegragError as error:
            where = str(error)
        print(f"regrag: interrupted; {where}", file=sys.stderr)
        return ExitStatus.INTERRUPTED


def _index_and_publish(arguments: argparse.Namespace, store) -> int:
    """``regrag index``: build or update, then publish only if the generation
    it started from is still current (docs/index-format.md, "Publishing")."""
    import time

    from regrag.index import publishing

    started = time.perf_counter()
    if arguments.ledger and arguments.keep is None:
        raise InputError("--ledger protects generations from --keep; give --keep N too")
    if arguments.allow_deletions and not arguments.update:
        raise InputError("--allow-deletions applies to --update")
    check_workers(arguments.workers)  # before the corpus is read
    if arguments.memory is not None and arguments.update:
        raise InputError("--memory bounds a full build; --update reads the current generation in memory "
                         "(docs/index-format.md, \"Building in bounded memory\")")
    if arguments.memory is not None and arguments.memory < MINIMUM_MEMORY_MB:
        raise InputError(f"--memory must be at least {MINIMUM_MEMORY_MB} (MB), got {arguments.memory}")
    if arguments.max_streamed_file_bytes is not None and arguments.update:
        raise InputError("--max-streamed-file-bytes applies to a full build; --update loads the corpus "
                         "(regrag.limits.Limits.file_bytes applies)")
    if arguments.shards is not None and (arguments.update or arguments.memory is not None):
        raise InputError("--shards builds a whole sharded generation; it cannot be combined with --update or --memory")
    # The generation current before the corpus is read: what it publishes over, for a rebuild and an update alike.
    base = store.current_number()
    corpus = _load_corpus(arguments, arguments.corpus)  # a module name: tests pause the command here
    _refuse_empty(corpus, arguments)
    if arguments.update:
        given = given_build_options(arguments)
        if given:
            raise InputError(f"{', '.join(given)} cannot be combined with --update: the index keeps the analyzer "
                             "and parameters it was built with (re-index without --update to change them)")
        current = Index.open(arguments.out)
        publishing.check_base(store.root, current.generation.number, base)  # published while the corpus was read
        upserts, deletions = current.changes_to(corpus.documents)
        if not upserts and not deletions:
            print(f"no changes; generation {base} stays current (nothing was published or pruned)")
            return ExitStatus.OK
        publishing.check_deletions(store.root, base, len(deletions), current.document_count, arguments.allow_deletions)
        changes = {
            "added": sum(1 for d in upserts if not current.has_document(d.id)),
            "replaced": sum(1 for d in upserts if current.has_document(d.id)),
            "deleted": len(deletions),
        }
    if arguments.update and hasattr(current.inverted, "shard_views"):  # a sharded generation stays sharded
        from regrag.cli.index_shards import update_and_publish_sharded

        result, needs, counts = update_and_publish_sharded(arguments, store, current, upserts, deletions, base)
    elif arguments.update:
        index = current.updated(upserts, deletions)
        needs = None
        if arguments.ledger and base:
            needs = publishing.ledger_needs(arguments.ledger, store.history()[1], index.index_id)
        from regrag.dense.generation import carried_over  # vectors of the base generation: docs/dense.md

        with progress(arguments, "embedding", "passages", finishing="") as shown:
            attached = carried_over(arguments.out, current, index, shown)
        result = index.commit_to(store, keep=arguments.keep, base=base, protect=needs.retained if needs else (),
                                 allow_clock_skew=arguments.allow_clock_skew, attached=attached)
        counts = index.document_count, index.passage_count
    elif arguments.shards is not None:
        from regrag.cli.index_shards import build_and_publish_sharded

        result, needs, counts = build_and_publish_sharded(arguments, store, corpus, base)
        changes = None
    else:
        from regrag.dense.generation import identity_at  # a rebuild carries the vectors too: docs/dense.md

        dense_identity = identity_at(arguments.out, base)
        result, needs, counts = _build_and_publish(arguments, store, corpus, base)
        changes = None
        if dense_identity is not None:
            result = _with_vectors(arguments, dense_identity, result, needs, counts[1])
    generation = result.generation
    seconds = time.perf_counter() - started
    for path, why in corpus.skipped:
        print(f"regrag: note: not indexed: {path} ({why})", file=sys.stderr)
    if needs is not None and needs.missing:
        print(f"regrag: warning: {', '.join(arguments.ledger)} refers to {publishing.numbers_text(needs.missing)}, "
              "no longer retained: ledger replay cannot re-run those records", file=sys.stderr)
    summary = f"generation {generation.number}  ·  {counts[0]} documents  ·  {counts[1]} passages"
    if changes is not None:
        summary += f"  ·  {changes['added']} added, {changes['replaced']} replaced, {changes['deleted']} deleted"
    print(summary)
    print(f"index id     {generation.index_id}")
    print(f"corpus root  {generation.corpus_root}")
    print(f"published    {generation.published}  ({seconds:.2f} s)")
    if arguments.keep is not None:
        print(f"pruned       {publishing.numbers_text(result.pruned) if result.pruned else 'nothing'} (--keep {arguments.keep})")
    if result.protected:
        print(f"protected    {publishing.numbers_text(result.protected)} (records of {', '.join(arguments.ledger)} need them)")
    return ExitStatus.OK


def _with_vectors(arguments: argparse.Namespace, identity, result, needs, passages: int):
    """The rebuild published over a generation with dense vectors: publish it again with vectors
    (``regrag.dense.generation.publish_after_rebuild``); the rebuild's result when they cannot be made."""
    from dataclasses import replace

    from regrag.dense.generation import publish_after_rebuild

    with progress(arguments, "embedding", "passages", finishing="") as shown:
        carried = publish_after_rebuild(arguments.out, identity, arguments.keep, needs.retained if needs else (), shown)
    if carried is None:
        return result
    publication, reused = carried
    print(f"regrag: generation {publication.generation.number} is generation {result.generation.number} with dense "
          f"vectors attached ({reused} rows reused, {passages - reused} embedded)", file=sys.stderr)
    return replace(publication, pruned=tuple(sorted({*result.pruned, *publication.pruned})))


def _build_and_publish(arguments: argparse.Namespace, store, corpus, base: int):
    """A full build in bounded memory (``regrag.index.bounded_build``),
    written into the new generation's temporary directory and published."""
    from regrag.index import publishing
    from regrag.index.bounded_build import index_directory
    from regrag.text.underthesea_words import word_analyzer

    memory = DEFAULT_MEMORY_MB if arguments.memory is None else arguments.memory
    chosen = (word_analyzer(analyzer(arguments)), parameters(arguments))
    needs = None
    if arguments.ledger and base:  # the new index id, from the documents' content hashes (before building)
        from regrag.index.build import compute_index_id

        needs = publishing.ledger_needs(arguments.ledger, store.history()[1], compute_index_id(*chosen, corpus.documents))
    with staged_progress(arguments) as shown:  # a line per stage: indexing, merging runs, TF-IDF norms
        result, written = index_directory(store, corpus.documents, *chosen, memory_mb=memory, workers=arguments.workers,
                                          stages=shown, keep=arguments.keep, base=base,
                                          protect=needs.retained if needs else (),
                                          allow_clock_skew=arguments.allow_clock_skew)
    return result, needs, (written.document_count, written.passage_count)


def _load_corpus(arguments: argparse.Namespace, path: str):
    """The corpus: a JSONL or BEIR file of a full build streamed from its file
    (``regrag.corpus.stream``: the loader's checks and documents, never held
    whole), anything else loaded (``regrag.cli.options.load_corpus``)."""
    if not arguments.update:
        from regrag.cli.options import print_rejected
        from regrag.corpus.stream import stream_corpus

        limits = DEFAULT_LIMITS
        if getattr(arguments, "max_streamed_file_bytes", None) is not None:
            limits = replace(DEFAULT_LIMITS, streamed_file_bytes=arguments.max_streamed_file_bytes)
        corpus = stream_corpus(path, max_chars=parameters(arguments).max_passage_chars, limits=limits,
                               errors=getattr(arguments, "errors", None) or "raise")
        if corpus is not None:
            print_rejected(corpus)
            return corpus
    return _load_all(arguments, path)


_BYTE_UNITS = {"": 1, "KIB": 1024, "MIB": 1024**2, "GIB": 1024**3, "TIB": 1024**4}


def _byte_count(text: str) -> int:
    """``--max-streamed-file-bytes``: a positive number of bytes, digits with an optional KiB, MiB, GiB or TiB."""
    digits = text.strip().rstrip("BbIiKkMmGgTt")
    unit = text.strip()[len(digits):].upper()
    unit = unit + "IB" if unit in ("K", "M", "G", "T") else unit
    if not digits.isdigit() or unit not in _BYTE_UNITS or int(digits) == 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of bytes such as 40000000000 or 40GiB, "
                                         f"got {text!r}")
    return int(digits) * _BYTE_UNITS[unit]


def _refuse_empty(corpus, arguments: argparse.Namespace) -> None:
    """``InputError`` for a corpus without documents unless ``--allow-empty``: a folder of
    files none of which is a document would otherwise publish an empty index (and,
    with ``--update``, delete every document)."""
    if corpus.documents or getattr(arguments, "allow_empty", False):
        return
    from regrag.jsonl import printable

    found = []
    if corpus.skipped:
        found.append(f"{len(corpus.skipped)} file(s) skipped, e.g. {corpus.skipped[0][0]} ({corpus.skipped[0][1]})")
    if corpus.rejected:
        found.append(f"{len(corpus.rejected)} input(s) rejected")
    detail = f" ({'; '.join(found)})" if found else ""
    raise InputError(f"{printable(arguments.corpus)}: no document to index{detail}; nothing was published "
                     "(--allow-empty publishes an empty index)")


def run_verify(arguments: argparse.Namespace) -> int:
    from regrag.index.verify import verify_store

    report = verify_store(arguments.directory, generation=arguments.generation, full=not arguments.quick)
    kind = "sizes and hashes" if arguments.quick else "sizes, hashes and a full re-index of the stored documents"
    for number, problem in report.problems:
        print(f"generation {number}: DAMAGED: {problem}")
    for number, problem in report.outdated:
        print(f"generation {number}: OUTDATED: {problem}")
    broken = {number for number, _p in report.problems} | {number for number, _p in report.outdated}
    for number in report.checked:
        if number not in broken:
            print(f"generation {number}: ok ({kind})")
    for number in report.pruned:
        print(f"generation {number}: pruned by a writer during the check (no longer retained; not checked)")
    if not report.checked:
        raise InputError(f"{arguments.directory}: nothing was checked: every generation to check was pruned by a writer "
                         "during the check; run verify again")
    return ExitStatus.OK if report.ok else ExitStatus.CHECK_FAILED
