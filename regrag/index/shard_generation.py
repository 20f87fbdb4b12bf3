"""Sharded generations (format ``regrag-shards/2``): their files from the
phases' outputs, opening one as one index, and the one-process driver
(docs/index-format.md, "Sharded generations"; publishing: ``regrag.index.sharded``).

A sharded generation is S shard directories (``shards/NNNNNN/``: one
segment of the documents whose ``shard_of`` is that shard, plus their
length norms and TF-IDF norms computed with the global statistics, listed
by ``shard.json``), one ``global_statistics.json`` and a manifest holding
the shard function, S, each ``shard.json``'s SHA-256 and the statistics
file's. Its index id and Merkle root are those of a single build of the
same corpus: they are functions of the documents only.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from regrag.errors import CorruptIndexError, InputError
from regrag.index.build import INDEX_FORMAT_VERSION, INT32_MAX
from regrag.index.parameters import IndexParameters
from regrag.index.segmented import SegmentedIndex, assemble
from regrag.index.shard_phases import LENGTH_NORMS, SHARD_FUNCTION, TFIDF_NORMS, check_shard_count
from regrag.index.shard_statistics import (
    SHARD_MANIFEST, STATISTICS_FILE, GlobalStatistics, shard_manifest_problem, statistics_from_bytes,
)
from regrag.text.analyzer import Analyzer

SHARDED_FORMAT = "regrag-shards/2"
SHARDS = "shards"
MANIFEST_KEYS = frozenset({"analyzer", "average_length", "corpus_root", "document_count", "engine_version", "files",
                           "format", "index_format", "index_id", "parameters", "passage_count", "posting_count",
                           "shard_function", "shards", "term_count"})


def shard_folder(shard: int) -> str:
    return f"{SHARDS}/{shard:06d}"


@dataclass
class ShardedIndex(SegmentedIndex):
    """A sharded generation seen as one index: a ``SegmentedIndex`` over every
    shard's segment, plus which shard each segment is, and the statistics."""

    segment_shards: tuple[int, ...] = ()
    statistics: GlobalStatistics | None = None
    shard_count: int = 1
    passage_shards: Any = field(default_factory=lambda: array("i"))

    passage_locals: Any = field(default_factory=lambda: array("i"))
    views: tuple = ()  # one ShardView per shard that holds documents (regrag.index.shard_view)

    def shard_of_position(self, position: int) -> int:
        """The shard holding the passage at global ``position``."""
        return self.passage_shards[position]

    def shard_views(self) -> tuple:
        """Each non-empty shard's ``ShardView``, in shard order (what per-shard ranking ranks)."""
        return self.views

    def owning_shard(self, position: int):
        """(the shard's index, the passage's position in it) of global ``position`` (``explain``'s route)."""
        shard = self.passage_shards[position]
        view = next(view for view in self.views if view.shard == shard)
        return view.index, self.passage_locals[position]


@dataclass(frozen=True)
class ShardedFiles:
    """What ``publish_sharded`` writes: the generation's files by name, and what CURRENT records."""

    files: dict[str, bytes]
    index_id: str
    corpus_root: str


def sharded_files(shard_files: Mapping[int, Mapping[str, bytes]], statistics: GlobalStatistics, analyzer: Analyzer,
                  parameters: IndexParameters, engine_version: str) -> ShardedFiles:
    """The whole generation's files from every shard's (``build_shard``) and the statistics."""
    check_shard_numbers(shard_files, statistics.shards)
    files: dict[str, bytes] = {}
    for shard in range(statistics.shards):
        for name, data in shard_files[shard].items():
            files[f"{shard_folder(shard)}/{name}"] = bytes(data)
    files.update(sharded_manifest([shard_files[shard][SHARD_MANIFEST] for shard in range(statistics.shards)],
                                  lambda shard, name: shard_files[shard][name], statistics, analyzer, parameters,
                                  engine_version))
    return ShardedFiles(files, statistics.index_id, statistics.corpus_root)


def check_shard_numbers(shards: Iterable[int], count: int) -> None:
    """``InputError`` unless ``shards`` are exactly 0 to ``count`` - 1."""
    if sorted(shards) != list(range(count)):
        raise InputError(f"expected the files of shards 0 to {count - 1}, got {sorted(shards)}")


def sharded_manifest(shard_records: Sequence[bytes], segment_record: Callable[[int, str], bytes],
                     statistics: GlobalStatistics, analyzer: Analyzer, parameters: IndexParameters,
                     engine_version: str) -> dict[str, bytes]:
    """The generation's own files (the statistics file, the manifest) from each
    shard's ``shard.json`` bytes, in shard order, and ``segment_record(shard,
    name)``, the bytes of that shard's ``segments/NAME/segment.json``: the
    only shard files the manifest depends on, so a driver that holds every
    shard's files (``sharded_files``) and one that holds only these small
    files (``regrag.index.shard_staging``) write the same manifest."""
    statistics_bytes = statistics.to_bytes()
    entries = []
    postings = 0
    for shard, data in enumerate(shard_records):
        record = json.loads(data)
        if record.get("statistics_sha256") != statistics.sha256:
            raise InputError(f"shard {shard} was built with other global statistics")
        counts = {"document_count": 0, "passage_count": 0}
        for segment in record["segments"]:
            counts = {key: counts[key] + segment[key] for key in counts}
            postings += json.loads(segment_record(shard, f"segments/{segment['name']}/segment.json"))["posting_count"]
        entries.append({"shard": shard, "sha256": hashlib.sha256(data).hexdigest(), **counts})
    manifest = {
        "analyzer": analyzer.identity(), "average_length": statistics.average_length,
        "corpus_root": statistics.corpus_root, "document_count": statistics.document_count,
        "engine_version": engine_version,
        "files": {STATISTICS_FILE: {"bytes": len(statistics_bytes), "sha256": hashlib.sha256(statistics_bytes).hexdigest()}},
        "format": SHARDED_FORMAT, "index_format": INDEX_FORMAT_VERSION, "index_id": statistics.index_id,
        "parameters": parameters.to_dict(), "passage_count": statistics.passage_count, "posting_count": postings,
        "shard_function": SHARD_FUNCTION, "shards": entries, "term_count": len(statistics.terms),
    }
    return {STATISTICS_FILE: statistics_bytes,
            "manifest.json": (json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False)
                              + "\n").encode("utf-8")}


def sharded_files_of(index, shards: int, engine_version: str, limits=None) -> ShardedFiles:
    """The sharded generation of an index's documents (``IndexStore.commit(…, shards=S)``, ``Index.save(…, shards=S)``)."""
    files, statistics = build_sharded(list(index.documents.values()), index.analyzer, index.parameters, shards, limits)
    return sharded_files(files, statistics, index.analyzer, index.parameters, engine_version)


def build_sharded(documents: Iterable, analyzer: Analyzer, parameters: IndexParameters, shards: int,
                  limits=None, workers: int = 1) -> tuple[dict[int, dict[str, bytes]], GlobalStatistics]:
    """Phases A, B and C in this process (``workers`` > 1: phases A and C in
    that many processes): every shard's files and the global statistics."""
    from regrag.index.build import unique_documents
    from regrag.index.shard_phases import analyse_partition

    check_shard_count(shards)
    by_id = unique_documents(documents, limits)
    ordered = [by_id[key] for key in sorted(by_id)]
    del by_id
    if workers > 1 and len(ordered) > 1:
        from regrag.index.shard_workers import analyse_in_workers

        keyed = analyse_in_workers(ordered, analyzer, parameters, shards, limits, workers)
    else:
        keyed = analyse_partition(ordered, analyzer, parameters, shards, limits)
    del ordered
    grouped: dict[int, list[bytes]] = {shard: [] for shard in range(shards)}
    for shard, data in keyed:
        grouped[shard].append(data)
    del keyed
    return finish_sharded(grouped, analyzer, parameters, shards, limits, workers)


def finish_sharded(grouped: dict[int, list[bytes]], analyzer: Analyzer, parameters: IndexParameters, shards: int,
                   limits=None, workers: int = 1) -> tuple[dict[int, dict[str, bytes]], GlobalStatistics]:
    """Phases B and C of every shard's phase A records (``grouped``, emptied
    as the shards are built): every shard's files and the global statistics."""
    from regrag.index.shard_phases import build_shard, partial_statistics, reduce_statistics

    statistics = reduce_statistics([partial_statistics(grouped[shard]) for shard in range(shards)], analyzer,
                                   parameters, shards)
    if workers > 1 and shards > 1:
        from regrag.index.shard_workers import build_in_workers

        files = build_in_workers(grouped, statistics.to_bytes(), analyzer, parameters, limits, min(workers, shards))
    else:
        files = {shard: build_shard(shard, grouped.pop(shard), statistics, analyzer, parameters, limits)
                 for shard in range(shards)}
    return files, statistics


def sharded_manifest_problem(manifest: dict[str, Any]) -> str | None:
    """Why a parsed sharded manifest is not one ``sharded_files`` writes, or None."""
    from regrag.index.checks import manifest_problem

    if set(manifest) != MANIFEST_KEYS:
        return "malformed (not the keys of a sharded manifest)"
    if manifest["shard_function"] != SHARD_FUNCTION:
        return f"shard function {manifest['shard_function']!r} is not supported (this regrag uses {SHARD_FUNCTION!r})"
    shards = manifest["shards"]
    if not isinstance(shards, list) or not shards:
        return "malformed shards (not a non-empty list)"
    for number, entry in enumerate(shards):
        if not isinstance(entry, dict) or set(entry) != {"shard", "sha256", "document_count", "passage_count"} \
                or entry["shard"] != number or not isinstance(entry["sha256"], str) or len(entry["sha256"]) != 64 \
                or any(isinstance(entry[key], bool) or not isinstance(entry[key], int)
                       or not 0 <= entry[key] <= INT32_MAX for key in ("document_count", "passage_count")):
            return f"malformed entry {number} in shards"
    if not isinstance(manifest["files"], dict) or sorted(manifest["files"]) != [STATISTICS_FILE]:
        return f"the file list does not match format {SHARDED_FORMAT}"
    plain = {key: value for key, value in manifest.items() if key not in ("shards", "shard_function")}
    return manifest_problem(plain, format_keys=MANIFEST_KEYS - {"shards", "shard_function"})


def _read_json(path: Path, digest: str | None, where: str) -> tuple[dict[str, Any], bytes]:
    from regrag.index import codec

    data = codec._read_index_file(path)
    if digest is not None and hashlib.sha256(data).hexdigest() != digest:
        raise CorruptIndexError(f"{path}: SHA-256 does not match {where}")
    try:
        return json.loads(data.decode("utf-8")), data
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CorruptIndexError(f"{path}: not valid JSON") from None


def load_sharded(directory: Path, manifest: dict[str, Any], memory_map: bool = True) -> ShardedIndex:
    """Open a sharded generation (manifest checked by ``sharded_manifest_problem``)
    as one index: every shard's segment, the global statistics verified, each
    shard's norms placed at its passages' global positions."""
    from regrag.index import codec
    from regrag.index.loading import _analyzer_and_parameters
    from regrag.index.segment_files import SEGMENT_MANIFEST, segment_manifest_problem
    from regrag.index.segment_view import CombinedDocuments, SortedTerms, open_segment, typed
    from regrag.index.shard_view import shard_view

    where = directory / codec.MANIFEST
    analyzer, parameters = _analyzer_and_parameters(where, manifest)
    try:
        statistics = statistics_from_bytes(codec._read_checked(directory, manifest, STATISTICS_FILE),
                                           str(directory / STATISTICS_FILE))
    except InputError as error:
        raise CorruptIndexError(str(error)) from None
    if (statistics.index_id, statistics.corpus_root, statistics.shards, statistics.average_length,
            statistics.passage_count, statistics.document_count) != (
            manifest["index_id"], manifest["corpus_root"], len(manifest["shards"]), manifest["average_length"],
            manifest["passage_count"], manifest["document_count"]):
        raise CorruptIndexError(f"{directory / STATISTICS_FILE}: does not match {where}")
    segments, segment_shards, norms = [], [], []
    for entry in manifest["shards"]:
        folder = directory / shard_folder(entry["shard"])
        record, _data = _read_json(folder / SHARD_MANIFEST, entry["sha256"], str(where))
        problem = shard_manifest_problem(record, entry["shard"])
        if problem is None and record["statistics_sha256"] != statistics.sha256:
            problem = f"built with other global statistics than {STATISTICS_FILE}"
        if problem:
            raise CorruptIndexError(f"{folder / SHARD_MANIFEST}: {problem}")
        own = [typed("d", codec._read_checked(folder, record, name), folder / name) for name in (LENGTH_NORMS, TFIDF_NORMS)]
        passages = 0
        for listed in record["segments"]:
            segment_dir = folder / "segments" / listed["name"]
            segment_record, _bytes = _read_json(segment_dir / SEGMENT_MANIFEST, listed["name"], str(folder / SHARD_MANIFEST))
            problem = segment_manifest_problem(segment_record)
            if problem:
                raise CorruptIndexError(f"{segment_dir / SEGMENT_MANIFEST}: {problem}")
            segment = open_segment(listed["name"], segment_record, segment_dir, memory_map=memory_map)
            passages += segment.passage_count
            segments.append(segment)
            segment_shards.append(entry["shard"])
            norms.append([array("d", part[passages - segment.passage_count: passages]) for part in own])
        if any(len(part) != passages for part in own) or passages != entry["passage_count"]:
            raise CorruptIndexError(f"{folder}: its norm files do not hold one value per passage")
    deleted = [array("i") for _ in segments]
    combined = CombinedDocuments(directory, segments, deleted)
    count = combined.passage_starts[-1]
    if count != statistics.passage_count or len(combined.ids) != statistics.document_count:
        raise CorruptIndexError(f"{where}: the shards hold {len(combined.ids)} documents and {count} passages, "
                                f"{STATISTICS_FILE} says {statistics.document_count} and {statistics.passage_count}")
    lengths, length_norms, tfidf_norms = (array("d", bytes(8 * count)) for _ in range(3))
    passage_shards, passage_locals = array("i", bytes(4 * count)), array("i", bytes(4 * count))
    for segment, mapping, (bm25_norms, cosine_norms), shard in zip(segments, combined.global_positions, norms,
                                                                  segment_shards):
        for local, position in enumerate(mapping):
            lengths[position] = segment.lengths[local]
            length_norms[position] = bm25_norms[local]
            tfidf_norms[position] = cosine_norms[local]
            passage_shards[position] = shard
            passage_locals[position] = local
    frequencies = array("i", statistics.document_frequencies)
    vocabulary = SortedTerms(list(statistics.terms))
    view = assemble(analyzer, parameters, directory, segments, deleted, combined, vocabulary,
                    frequencies, (lengths, length_norms, tfidf_norms), statistics.average_length,
                    statistics.index_id, statistics.corpus_root)
    views = tuple(shard_view(shard, segment, mapping, (bm25_norms, cosine_norms), analyzer, parameters, directory,
                             vocabulary, frequencies, count, statistics.average_length, statistics.index_id,
                             statistics.corpus_root)
                  for segment, mapping, (bm25_norms, cosine_norms), shard in zip(segments, combined.global_positions,
                                                                                norms, segment_shards))
    fields = {name: getattr(view, name) for name in SegmentedIndex.__dataclass_fields__}
    return ShardedIndex(**fields, segment_shards=tuple(segment_shards), statistics=statistics,
                        shard_count=statistics.shards, passage_shards=passage_shards, passage_locals=passage_locals,
                        views=views)
