"""Incremental updates as segments: one new segment for the upserted
documents, deletions for the replaced and deleted ones, the earlier
segments kept as they are (docs/index-format.md, "Segments").

``segmented_update`` applies to an index opened from a directory (a
format-2 generation becomes the first segment; a segmented one keeps its
segments). The global statistics are recomputed from all live passages
(``regrag.index.segment_statistics``), so rankings, scores, provenance,
explanations, index id and Merkle root are a fresh build's. It returns None
where the update is instead merged into one segment (the merge policy, an
index built in memory, nothing to change, a new segment identical to one
already listed): the caller then runs the full update.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Sequence
from pathlib import Path

from regrag.corpus.model import Document
from regrag.index.build import InvertedIndex, check_index_size, checked_changes
from regrag.index.loading import LoadedIndex
from regrag.index.merge_policy import should_merge
from regrag.index.postings_table import PostingsTable
from regrag.index.segment_files import (
    CONTENT_HASHES, COUNT_KEYS, SEGMENT_MANIFEST, SHARED_FILES, content_hash_bytes, segment_files, segment_index,
    segment_manifest,
)
from regrag.index.segment_view import Segment, open_segment
from regrag.index.segmented import SegmentedIndex, view_without_disk
from regrag.index.stored_documents import PassageList
from regrag.limits import Limits


def segments_of(index: InvertedIndex) -> tuple[list[Segment], list[array], Path] | None:
    """The segments of an index opened from a directory, their deletions and
    the generation's directory; None for an index built in memory."""
    if isinstance(index, SegmentedIndex):
        stored = index.passages.stored  # type: ignore[attr-defined]
        return list(index.segments), [array("i", gone) for gone in index.deleted], stored.directory
    if not (isinstance(index, LoadedIndex) and isinstance(index.postings, PostingsTable)
            and isinstance(index.passages, PassageList)):
        return None
    stored = index.passages.stored
    manifest = index.manifest
    hashes = content_hash_bytes(stored.ids, {key: stored.content_hash(number) for number, key in enumerate(stored.ids)})
    entries: dict[str, bytes | tuple[int, str]] = {
        name: (manifest["files"][name]["bytes"], manifest["files"][name]["sha256"]) for name in SHARED_FILES}
    entries[CONTENT_HASHES] = hashes
    counts = {key: manifest[key] for key in COUNT_KEYS}
    record_bytes = segment_manifest(entries, counts)
    name = hashlib.sha256(record_bytes).hexdigest()
    segment = Segment(name, stored.directory, {CONTENT_HASHES: hashes, SEGMENT_MANIFEST: record_bytes},
                      json.loads(record_bytes), stored, index.postings, index.lengths, hashes)  # type: ignore[arg-type]
    return [segment], [array("i")], stored.directory


def _owner(index: InvertedIndex, document_id: str) -> tuple[int, int]:
    stored = index.passages.stored  # type: ignore[attr-defined]
    number = stored.number(document_id)
    return stored.owner(number) if isinstance(index, SegmentedIndex) else (0, number)


def segmented_update(index: InvertedIndex, upserts: Sequence[Document] = (), deletions: Sequence[str] = (),
                     limits: Limits | None = None, vectorised: bool | None = None) -> InvertedIndex | None:
    """The updated index as the earlier segments, deletions and one new
    segment, or None where the update is to be merged (see the module)."""
    changed, removed = checked_changes(index, upserts, deletions, limits)
    for document_id in sorted(changed):
        old = index.documents.get(document_id)
        if old is not None and old == changed[document_id]:
            del changed[document_id]  # an unchanged replacement keeps its segment
    if not changed and not removed:
        return None
    base = segments_of(index)
    if base is None:
        return None
    segments, deleted, directory = base
    gone = [set(positions) for positions in deleted]
    for document_id in sorted(removed | {key for key in changed if key in index.documents}):
        number, local = _owner(index, document_id)
        starts = segments[number].documents.passage_starts
        gone[number].update(range(starts[local], starts[local + 1]))
    deleted = [array("i", sorted(positions)) for positions in gone]
    if changed:
        fresh = segment_index(list(changed.values()), index.analyzer, index.parameters, limits)
        name, files = segment_files(fresh, limits)
        if any(segment.name == name for segment in segments):
            return None  # the same documents again: merging keeps one directory per name
        segments.append(open_segment(name, json.loads(files[SEGMENT_MANIFEST]), files=files))
        deleted.append(array("i"))
    kept = [(segment, positions) for segment, positions in zip(segments, deleted)
            if len(positions) < segment.passage_count]  # a segment with nothing live is dropped
    if not kept or should_merge([(segment.passage_count, len(positions)) for segment, positions in kept]):
        return None
    check_index_size(sum(segment.passage_count - len(positions) for segment, positions in kept), 0, limits)
    return view_without_disk(index.analyzer, index.parameters, directory, [s for s, _d in kept],
                             [d for _s, d in kept], vectorised)
