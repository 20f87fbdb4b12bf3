"""Incremental updates of a sharded generation (docs/index-format.md,
"Sharded generations"): the same bytes as a fresh sharded build of the new
corpus, with phase A (text analysis) run only for new and changed documents.

Every other document's phase A record is recovered from the previous
generation's segment of its shard (``segment_records``): its stored record
(document, language, passages, content hash), each passage's weighted
length (``lengths.f64``) and its terms with their weighted frequencies (the
segment's postings turned passage by passage; terms come out sorted, as
analysis sorts them). ``AnalyzedDocument`` says such a record and one
recomputed from the text are interchangeable, and a test checks the bytes
are equal. Phases B (exact statistics) and C (every shard's files) then run
on the records as in a full build: the global statistics change with any
document, so every shard's norm files are recomputed; a shard whose
documents did not change gets its segment's bytes again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from regrag.audit.canonical import canonical_bytes
from regrag.corpus.model import Document
from regrag.errors import InputError
from regrag.index.shard_statistics import GlobalStatistics
from regrag.index.stored_documents import document_record
from regrag.limits import Limits


def segment_records(segment, skip: frozenset[str] | set[str] = frozenset()) -> Iterator[tuple[str, bytes]]:
    """(document id, ``shard_phases.record_bytes``) of every document of
    ``segment`` whose id is not in ``skip``, in id order, recovered from its
    stored files (every byte read is checked against its SHA-256)."""
    stored = segment.documents
    starts = stored.passage_starts
    kept = [number for number, key in enumerate(stored.ids) if key not in skip]
    wanted = bytearray(segment.passage_count)
    for number in kept:
        wanted[starts[number]:starts[number + 1]] = b"\x01" * (starts[number + 1] - starts[number])
    names: list[list[str]] = [[] for _ in range(segment.passage_count)]
    values: list[list[float]] = [[] for _ in range(segment.passage_count)]
    terms, term_starts, positions, codes, table = segment.postings.all_columns()
    for number, term in enumerate(terms):
        for at in range(term_starts[number], term_starts[number + 1]):
            position = positions[at]
            if wanted[position]:
                names[position].append(term)  # terms ascend, so each passage's names come out sorted
                values[position].append(table[codes[at]])
    lengths = segment.lengths
    for number in kept:
        record = stored.record(number)
        first, end = starts[number], starts[number + 1]
        yield record.document.id, canonical_bytes({
            "lengths": list(lengths[first:end]),
            "record": document_record(record.document, record.language, record.passages, record.content_hash),
            "terms": [[names[position], values[position]] for position in range(first, end)],
        })


def changed_documents(index, upserts: Sequence[Document] = (), deletions: Iterable[str] = (),
                      limits: Limits | None = None) -> tuple[dict[str, Document], frozenset[str]]:
    """(The documents to analyse, by id; the ids whose stored records are not
    carried over: the deleted and the changed) of an update of ``index``. A
    replacement whose content hash is the stored one is no change."""
    from regrag.index.build import checked_changes

    changed, removed = checked_changes(index, upserts, deletions, limits)
    stored = index.passages.stored  # type: ignore[attr-defined]
    for key in sorted(changed):
        number = stored.number(key)
        if number is not None and stored.content_hash(number) == changed[key].content_hash():
            del changed[key]
    return changed, frozenset(removed | set(changed))


def update_records(index, upserts: Sequence[Document] = (), deletions: Iterable[str] = (),
                   limits: Limits | None = None) -> tuple[dict[int, list[bytes]], int]:
    """Every shard's phase A records of the updated corpus of sharded
    ``index`` (a ``ShardedIndex``): new and changed documents analysed,
    the others recovered from their segment; and how many were analysed."""
    from regrag.index.shard_phases import analyse_partition

    shards = index.shard_count
    changed, skip = changed_documents(index, upserts, deletions, limits)
    grouped: dict[int, list[bytes]] = {shard: [] for shard in range(shards)}
    for segment, shard in zip(index.segments, index.segment_shards):
        grouped[shard].extend(data for _key, data in segment_records(segment, skip))
    for shard, data in analyse_partition([changed[key] for key in sorted(changed)], index.analyzer,
                                         index.parameters, shards, limits):
        grouped[shard].append(data)
    return grouped, len(changed)


def update_sharded(index, upserts: Sequence[Document] = (), deletions: Iterable[str] = (),
                   limits: Limits | None = None,
                   workers: int = 1) -> tuple[dict[int, dict[str, bytes]], GlobalStatistics, int]:
    """The sharded generation of ``index``'s corpus with ``upserts`` added or
    replacing and ``deletions`` removed: (every shard's files, the global
    statistics, the number of documents analysed), byte for byte what
    ``build_sharded`` of the new corpus gives with the same S."""
    from regrag.index.shard_generation import ShardedIndex, finish_sharded

    if not isinstance(index, ShardedIndex):
        raise InputError("update_sharded updates a sharded generation (Index.open of a directory written with "
                         "--shards)")
    grouped, analysed = update_records(index, upserts, deletions, limits)
    files, statistics = finish_sharded(grouped, index.analyzer, index.parameters, index.shard_count, limits, workers)
    return files, statistics, analysed

