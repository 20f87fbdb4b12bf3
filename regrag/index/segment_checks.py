"""What ``regrag verify`` checks in a segmented generation beyond opening it
(docs/index-format.md, "Segments"): every file of the generation and of each
segment read whole against its SHA-256, every term's ranges and every
document record, the global statistics recomputed from the segments and
compared with the stored ones, and (full check) a fresh index of the live
documents and of each segment's documents, which must give the same bytes."""

from __future__ import annotations

from operator import lt
from pathlib import Path
from typing import Any

from regrag.errors import CorruptIndexError
from regrag.index.segment_files import SEGMENT_FILES, segment_files, segment_index
from regrag.index.segmented import GENERATION_FILES, PASSAGE_FILES, SEGMENTS, SegmentedIndex
from regrag.index.stored_documents import check_every_record
from regrag.limits import Limits


def check_segmented(directory: Path, manifest: dict[str, Any], index: SegmentedIndex, full: bool,
                    limits: Limits) -> None:
    """``CorruptIndexError`` naming the file unless the generation is intact."""
    from array import array

    from regrag.index import codec
    from regrag.index.segment_statistics import global_statistics

    for name in GENERATION_FILES:
        path = directory / name
        with codec._open_index_file(path) as handle:
            codec._check_file(handle, path, manifest["files"][name])
    for segment in index.segments:
        check_segment_folder(directory / SEGMENTS / segment.name, segment)
    vocabulary = list(index.vocabulary)
    if not all(map(lt, vocabulary, vocabulary[1:])):
        raise CorruptIndexError(f"{directory / codec.TERMS}: terms not in ascending order, or repeated")
    index.postings.check_ranges()  # every term's live postings against its document frequency
    combined = index.passages.stored  # type: ignore[attr-defined]
    stats = global_statistics(index.segments, combined, index.parameters)
    if stats.terms != vocabulary or stats.document_frequencies != array("i", index.document_frequencies):
        raise CorruptIndexError(f"{directory / 'document_frequencies.i32'}: differs from the segments' postings")
    for name, stored, computed in zip(PASSAGE_FILES, (index.lengths, index.length_norms, index.tfidf_norms),
                                      (stats.lengths, stats.length_norms, stats.tfidf_norms)):
        if array("d", stored).tobytes() != computed.tobytes():
            raise CorruptIndexError(f"{directory / name}: differs from the values the segments give")
    if stats.average_length != index.average_length:
        raise CorruptIndexError(f"{directory / codec.MANIFEST}: average_length differs from the segments' lengths")
    check_identity(directory, index, stats.leaves, "the segments")
    if not full:
        return
    for segment in index.segments:
        stored = segment.documents
        documents = [stored.record(number).document for number in range(len(stored.ids))]
        _name, expected = segment_files(segment_index(documents, index.analyzer, index.parameters, limits), limits)
        folder = directory / SEGMENTS / segment.name
        for name in SEGMENT_FILES:
            if (folder / name).read_bytes() != expected[name]:
                raise CorruptIndexError(f"{folder / name}: differs from a fresh segment of its stored documents")
    check_fresh_index(directory, index, limits)


# Shared with shard_checks.py (a sharded generation's shards hold segments of the same format).

def check_segment_folder(folder: Path, segment: Any) -> None:
    """One segment's files read whole against their SHA-256, its term ranges, term order and document records."""
    from regrag.index import codec

    for name in SEGMENT_FILES:
        path = folder / name
        with codec._open_index_file(path) as handle:
            codec._check_file(handle, path, segment.record["files"][name])
    segment.postings.check_ranges()
    terms = segment.postings._terms.all_terms()
    if not all(map(lt, terms, terms[1:])):
        raise CorruptIndexError(f"{folder / codec.TERMS}: terms not in ascending order, or repeated")
    check_every_record(segment.documents)


def check_identity(directory: Path, index: Any, leaves: Any, source: str) -> None:
    """The index id and corpus root recomputed from ``leaves`` (the documents' hashes) equal the stored ones."""
    from regrag.audit.merkle import merkle_root
    from regrag.index import codec
    from regrag.index.build import index_id_from_hashes

    if index_id_from_hashes(index.analyzer, index.parameters, leaves) != index.index_id \
            or merkle_root(leaves) != index.corpus_root:
        raise CorruptIndexError(f"{directory / codec.MANIFEST}: index id or corpus root differ from {source}")


def check_fresh_index(directory: Path, index: Any, limits: Limits) -> None:
    """A fresh single index of the stored documents gives the same index bytes, id and corpus root."""
    from regrag.index import codec
    from regrag.index.build import build_index

    rebuilt = build_index(list(index.documents.values()), index.analyzer, index.parameters, limits=limits)
    if codec.serialise(rebuilt, "") != codec.serialise(index, ""):
        raise CorruptIndexError(f"{directory}: differs from a fresh index of the stored documents")
    if rebuilt.index_id != index.index_id or rebuilt.corpus_root != index.corpus_root:
        raise CorruptIndexError(f"{directory / codec.MANIFEST}: index id or corpus root differ from the stored documents")
