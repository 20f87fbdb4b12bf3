"""What ``regrag verify`` checks in a sharded generation beyond opening it
(docs/index-format.md, "Sharded generations"): every segment file read
whole against its SHA-256, every term's ranges and document record, each
document in the shard the shard function gives, the global statistics
recomputed from the shards' segments and compared with
``global_statistics.json`` and each shard's norm files, and (full check)
each shard rebuilt by the phases from its stored documents, which must
give its files byte for byte, and a fresh single index of all documents,
which must give the same index."""

from __future__ import annotations

from array import array
from fractions import Fraction
from pathlib import Path
from typing import Any

from regrag.errors import CorruptIndexError
from regrag.index.segment_checks import check_fresh_index, check_identity, check_segment_folder
from regrag.index.shard_phases import LENGTH_NORMS, TFIDF_NORMS, shard_of
from regrag.index.shard_statistics import STATISTICS_FILE
from regrag.index.shard_generation import ShardedIndex, shard_folder
from regrag.limits import Limits


def check_sharded(directory: Path, manifest: dict[str, Any], index: ShardedIndex, full: bool, limits: Limits) -> None:
    """``CorruptIndexError`` naming the file unless the generation is intact."""
    from regrag.index.segment_statistics import global_statistics

    statistics = index.statistics
    assert statistics is not None
    for segment, shard in zip(index.segments, index.segment_shards):
        folder = directory / shard_folder(shard) / "segments" / segment.name
        check_segment_folder(folder, segment)
        for key in segment.documents.ids:
            if shard_of(key, index.shard_count) != shard:
                raise CorruptIndexError(f"{folder / 'document_ids.json'}: document {key!r} belongs to shard "
                                        f"{shard_of(key, index.shard_count)}, not {shard}")
    index.postings.check_ranges()  # every term's postings against its global document frequency
    combined = index.passages.stored  # type: ignore[attr-defined]
    stats = global_statistics(index.segments, combined, index.parameters)
    where = directory / STATISTICS_FILE
    if stats.terms != list(statistics.terms) \
            or stats.document_frequencies != array("i", statistics.document_frequencies):
        raise CorruptIndexError(f"{where}: terms or document frequencies differ from the shards' postings")
    if sum(map(Fraction, stats.lengths), Fraction(0)) != statistics.length_sum \
            or stats.average_length != statistics.average_length:
        raise CorruptIndexError(f"{where}: length sum or average length differ from the shards' passages")
    for name, stored, computed in ((LENGTH_NORMS, index.length_norms, stats.length_norms),
                                   (TFIDF_NORMS, index.tfidf_norms, stats.tfidf_norms)):
        if array("d", stored).tobytes() != computed.tobytes():
            first = next(p for p, (a, b) in enumerate(zip(stored, computed)) if array("d", [a]) != array("d", [b]))
            shard = index.shard_of_position(first)
            raise CorruptIndexError(f"{directory / shard_folder(shard) / name}: differs from the values the global "
                                    "statistics give")
    check_identity(directory, index, stats.leaves, "the shards")
    if full:
        _check_rebuilt(directory, index, limits)


def _check_rebuilt(directory: Path, index: ShardedIndex, limits: Limits) -> None:
    """Each shard's files rebuilt by phases A-C from its stored documents, and a single fresh index of them all."""
    from regrag.index.shard_phases import analyse_partition, build_shard, partial_statistics, reduce_statistics

    statistics = index.statistics
    assert statistics is not None
    by_shard: dict[int, list] = {shard: [] for shard in range(index.shard_count)}
    for segment, shard in zip(index.segments, index.segment_shards):
        stored = segment.documents
        by_shard[shard].extend(stored.record(number).document for number in range(len(stored.ids)))
    records = {shard: [data for _s, data in analyse_partition(documents, index.analyzer, index.parameters,
                                                              index.shard_count, limits)]
               for shard, documents in by_shard.items()}
    again = reduce_statistics([partial_statistics(found) for found in records.values()], index.analyzer,
                              index.parameters, index.shard_count)
    if again.to_bytes() != statistics.to_bytes():
        raise CorruptIndexError(f"{directory / STATISTICS_FILE}: differs from the statistics of the stored documents")
    for shard, found in records.items():
        expected = build_shard(shard, found, statistics, index.analyzer, index.parameters, limits)
        folder = directory / shard_folder(shard)
        for name, data in sorted(expected.items()):
            path = folder / name
            if not path.is_file() or path.read_bytes() != data:
                raise CorruptIndexError(f"{path}: differs from a fresh build of the shard's stored documents")
    check_fresh_index(directory, index, limits)
