"""Segmented generations (format ``regrag-segments/2``): the view over
their segments, and their files (docs/index-format.md, "Segments").

A ``SegmentedIndex`` is an ``InvertedIndex`` whose documents, passages and
postings are views over its segments in global positions, with the
generation's global statistics; search, explain and provenance read it as
any other index. ``serialise_segmented`` gives a new generation's own files
and, for each segment, the files to link from where they already lie (or
the bytes of a new segment); ``load_segmented`` opens one lazily.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import le
from pathlib import Path
from typing import Any

from regrag.errors import CorruptIndexError
from regrag.index.build import INDEX_FORMAT_VERSION, INT32_MAX, InvertedIndex, check_index_size
from regrag.index.parameters import IndexParameters, bm25_scorer, tfidf_scorer
from regrag.index.segment_files import SEGMENT_FILES, SEGMENT_MANIFEST, segment_manifest_problem
from regrag.index.segment_view import CombinedDocuments, Segment, SegmentedPostings, SortedTerms, open_segment
from regrag.index.stored_documents import DocumentMap, FieldMap, PassageLanguages, PassageList
from regrag.index.term_table import TERM_OFFSETS, TERMS, TermTable, term_blob
from regrag.limits import LimitError, Limits
from regrag.text.analyzer import Analyzer

SEGMENTED_FORMAT = "regrag-segments/2"
SEGMENTS = "segments"
DOCUMENT_FREQUENCIES = "document_frequencies.i32"
DELETIONS, DELETION_STARTS = "deletions.i32", "deletion_starts.i32"
PASSAGE_FILES = ("lengths.f64", "length_norms.f64", "tfidf_norms.f64")
GENERATION_FILES = (TERMS, TERM_OFFSETS, DOCUMENT_FREQUENCIES) + PASSAGE_FILES + (DELETIONS, DELETION_STARTS)
MANIFEST_KEYS = frozenset({"analyzer", "average_length", "corpus_root", "document_count", "engine_version", "files",
                           "format", "index_format", "index_id", "parameters", "passage_count", "posting_count",
                           "segments", "term_count"})
SEGMENT_KEYS = frozenset({"name", "document_count", "passage_count", "deleted_passages"})


@dataclass
class SegmentedIndex(InvertedIndex):
    """An index made of segments (``segments``, each with its ``deleted``
    local passage positions) and global statistics."""

    segments: tuple[Segment, ...] = ()
    deleted: tuple[array, ...] = ()
    vocabulary: Any = ()
    document_frequencies: Sequence[int] = field(default_factory=lambda: array("i"))


def assemble(analyzer: Analyzer, parameters: IndexParameters, directory: Path, segments: Sequence[Segment],
             deleted: Sequence[array], combined: CombinedDocuments, vocabulary: Any, document_frequencies: Sequence[int],
             passage_arrays: Sequence[Sequence[float]], average_length: float, index_id: str,
             corpus_root: str) -> SegmentedIndex:
    """The view of ``segments`` (ordered by ``combined``) with these global statistics."""
    lengths, length_norms, tfidf_norms = passage_arrays
    postings = SegmentedPostings(
        vocabulary, document_frequencies, segments, combined.global_positions, [len(d) for d in deleted],
        length_norms, (bm25_scorer(parameters, average_length), tfidf_scorer(parameters)),
        directory / DOCUMENT_FREQUENCIES)
    return SegmentedIndex(
        analyzer=analyzer, parameters=parameters,
        documents=DocumentMap(combined),  # type: ignore[arg-type]
        passages=PassageList(combined),  # type: ignore[arg-type]
        passage_languages=PassageLanguages(combined),  # type: ignore[arg-type]
        lengths=lengths, average_length=average_length, length_norms=length_norms,  # type: ignore[arg-type]
        postings=postings, tfidf_norms=tfidf_norms, index_id=index_id,  # type: ignore[arg-type]
        document_languages=FieldMap(combined, "language"),  # type: ignore[arg-type]
        content_hashes=FieldMap(combined, "content_hash"),  # type: ignore[arg-type]
        corpus_root=corpus_root, segments=tuple(segments), deleted=tuple(deleted), vocabulary=vocabulary,
        document_frequencies=document_frequencies,
    )


def _little_endian(values: array) -> bytes:
    from regrag.index.frequency_codes import little_endian

    return little_endian(values)


def serialise_segmented(index: SegmentedIndex, engine_version: str,
                        limits: Limits | None = None) -> tuple[dict[str, bytes], dict[str, Path]]:
    """The new generation's files as bytes (its own, and those of segments
    not yet on disk) and the segment files to hard-link, by name within the
    generation directory (``segments/NAME/FILE``) and source path."""
    posting_count = sum(index.document_frequencies)
    check_index_size(len(index.lengths), posting_count, limits)
    files: dict[str, bytes] = {}
    links: dict[str, Path] = {}
    blob, offsets = term_blob(index.vocabulary)
    if offsets[-1] > INT32_MAX:
        raise LimitError(f"the vocabulary would take {offsets[-1]:,} bytes; the format stores its offsets as "
                         f"32-bit integers (at most {INT32_MAX:,})")
    files[TERMS], files[TERM_OFFSETS] = blob, _little_endian(array("i", offsets))
    files[DOCUMENT_FREQUENCIES] = _little_endian(array("i", index.document_frequencies))
    for name, values in zip(PASSAGE_FILES, (index.lengths, index.length_norms, index.tfidf_norms)):
        files[name] = _little_endian(array("d", values))
    deletions, starts = array("i"), array("i", [0])
    entries = []
    for segment, gone in zip(index.segments, index.deleted):
        deletions.extend(gone)
        starts.append(len(deletions))
        entries.append({"deleted_passages": len(gone), "document_count": segment.record["document_count"],
                        "name": segment.name, "passage_count": segment.record["passage_count"]})
        for name in SEGMENT_FILES + (SEGMENT_MANIFEST,):
            target = f"{SEGMENTS}/{segment.name}/{name}"
            if segment.files is not None and name in segment.files:
                files[target] = segment.files[name]
            else:
                assert segment.directory is not None
                links[target] = segment.directory / name
    files[DELETIONS], files[DELETION_STARTS] = _little_endian(deletions), _little_endian(starts)
    manifest = {
        "analyzer": index.analyzer.identity(), "average_length": index.average_length,
        "corpus_root": index.corpus_root, "document_count": len(index.documents), "engine_version": engine_version,
        "files": {name: {"bytes": len(files[name]), "sha256": hashlib.sha256(files[name]).hexdigest()}
                  for name in GENERATION_FILES},
        "format": SEGMENTED_FORMAT, "index_format": INDEX_FORMAT_VERSION, "index_id": index.index_id,
        "parameters": index.parameters.to_dict(), "passage_count": len(index.lengths),
        "posting_count": posting_count, "segments": entries, "term_count": len(index.vocabulary),
    }
    files["manifest.json"] = (json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False)
                              + "\n").encode("utf-8")
    return files, links


def segmented_manifest_problem(manifest: dict[str, Any]) -> str | None:
    """Why a parsed segmented manifest is not one ``serialise_segmented`` writes, or None."""
    from regrag.index.checks import manifest_problem

    if set(manifest) != MANIFEST_KEYS:
        return "malformed (not the keys of a segmented manifest)"
    segments = manifest["segments"]
    if not isinstance(segments, list) or not segments:
        return "malformed segments (not a non-empty list)"
    for entry in segments:
        if not isinstance(entry, dict) or set(entry) != SEGMENT_KEYS or not isinstance(entry["name"], str) \
                or len(entry["name"]) != 64 or entry["name"].strip("0123456789abcdef") \
                or any(isinstance(entry[key], bool) or not isinstance(entry[key], int) or not 0 <= entry[key] <= INT32_MAX
                       for key in SEGMENT_KEYS - {"name"}):
            return "malformed entry in segments"
    if len({entry["name"] for entry in segments}) != len(segments):
        return "a segment is listed twice"
    if not isinstance(manifest["files"], dict) or sorted(manifest["files"]) != sorted(GENERATION_FILES):
        return f"the file list does not match format {SEGMENTED_FORMAT}"
    plain = {key: value for key, value in manifest.items() if key != "segments"}
    return manifest_problem(plain, format_keys=MANIFEST_KEYS - {"segments"})


def load_segmented(directory: Path, manifest: dict[str, Any], memory_map: bool = True) -> SegmentedIndex:
    """Open a segmented generation (manifest already checked against
    ``CURRENT`` and ``segmented_manifest_problem``): its own files verified
    whole, each segment opened lazily (``open_segment``)."""
    from regrag.index import codec
    from regrag.index.chunks import CheckedBytes
    from regrag.index.loading import _analyzer_and_parameters
    from regrag.index.segment_view import typed

    where = directory / codec.MANIFEST
    analyzer, parameters = _analyzer_and_parameters(where, manifest)
    read = lambda name: codec._read_checked(directory, manifest, name)  # noqa: E731
    segments = []
    for entry in manifest["segments"]:
        folder = directory / SEGMENTS / entry["name"]
        data = codec._read_index_file(folder / SEGMENT_MANIFEST)
        if hashlib.sha256(data).hexdigest() != entry["name"]:
            raise CorruptIndexError(f"{folder / SEGMENT_MANIFEST}: SHA-256 does not match its name in {where}")
        try:
            record = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise CorruptIndexError(f"{folder / SEGMENT_MANIFEST}: not valid JSON") from None
        problem = segment_manifest_problem(record)
        if problem:
            raise CorruptIndexError(f"{folder / SEGMENT_MANIFEST}: {problem}")
        segment = open_segment(entry["name"], record, folder, memory_map=memory_map)
        if (entry["document_count"], entry["passage_count"]) != (record["document_count"], record["passage_count"]):
            raise CorruptIndexError(f"{where}: the counts of segment {entry['name']} differ from its {SEGMENT_MANIFEST}")
        segments.append(segment)
    deletions = typed("i", read(DELETIONS), directory / DELETIONS)
    starts = typed("i", read(DELETION_STARTS), directory / DELETION_STARTS)
    if len(starts) != len(segments) + 1 or starts[0] != 0 or starts[-1] != len(deletions) \
            or any(a > b for a, b in zip(starts, starts[1:])):
        raise CorruptIndexError(f"{directory / DELETION_STARTS}: does not describe the deletions of the segments")
    deleted = []
    for number, (segment, entry) in enumerate(zip(segments, manifest["segments"])):
        gone = deletions[starts[number]:starts[number + 1]]
        if len(gone) != entry["deleted_passages"] or any(a >= b for a, b in zip(gone, gone[1:])) \
                or (len(gone) and not 0 <= gone[0] <= gone[-1] < segment.passage_count):
            raise CorruptIndexError(f"{directory / DELETIONS}: not ascending passages of segment {segment.name}")
        deleted.append(gone)
    combined = CombinedDocuments(directory, segments, deleted)
    offsets = typed("i", read(TERM_OFFSETS), directory / TERM_OFFSETS)
    blob = read(TERMS)
    frequencies = typed("i", read(DOCUMENT_FREQUENCIES), directory / DOCUMENT_FREQUENCIES)
    if not all(map(le, offsets, offsets[1:])):
        raise CorruptIndexError(f"{directory / TERM_OFFSETS}: does not describe the terms of {TERMS}")
    vocabulary = TermTable(CheckedBytes(directory / TERMS, memoryview(blob), None), offsets, directory / TERM_OFFSETS,
                           len(frequencies))
    arrays = [typed("d", read(name), directory / name) for name in PASSAGE_FILES]
    count = combined.passage_starts[-1]
    found = {"document_count": len(combined.ids), "passage_count": count, "term_count": len(vocabulary),
             "posting_count": sum(frequencies)}
    for key, value in found.items():
        if manifest[key] != value:
            raise CorruptIndexError(f"{where}: {key} is {manifest[key]}, the data files hold {value}")
    if len(frequencies) != len(vocabulary) or (len(frequencies) and min(frequencies) <= 0):
        raise CorruptIndexError(f"{directory / DOCUMENT_FREQUENCIES}: not a positive count for each term")
    for name, values in zip(PASSAGE_FILES, arrays):
        if len(values) != count:
            raise CorruptIndexError(f"{directory / name}: {len(values)} items for {count} passages")
    return assemble(analyzer, parameters, directory, segments, deleted, combined, vocabulary, frequencies, arrays,
                    manifest["average_length"], manifest["index_id"], manifest["corpus_root"])


def view_without_disk(analyzer: Analyzer, parameters: IndexParameters, directory: Path, segments: Sequence[Segment],
                      deleted: Sequence[array], vectorised: bool | None = None) -> SegmentedIndex:
    """The view of ``segments`` with global statistics computed afresh (what an update publishes)."""
    from regrag.audit.merkle import merkle_root
    from regrag.index.build import index_id_from_hashes
    from regrag.index.segment_statistics import global_statistics

    combined = CombinedDocuments(directory, segments, deleted)
    stats = global_statistics(segments, combined, parameters, vectorised)
    return assemble(analyzer, parameters, directory, segments, deleted, combined, SortedTerms(stats.terms),
                    stats.document_frequencies, (stats.lengths, stats.length_norms, stats.tfidf_norms),
                    stats.average_length, index_id_from_hashes(analyzer, parameters, stats.leaves),
                    merkle_root(stats.leaves))
