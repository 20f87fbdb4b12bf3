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

    from regrag.audit.merkle import merkle_root
    from regrag.index import codec
    from regrag.index.build import build_index, index_id_from_hashes
    from regrag.index.segment_statistics import global_statistics

    for name in GENERATION_FILES:
        path = directory / name
        with codec._open_index_file(path) as handle:
            codec._check_file(handle, path, manifest["files"][name])
    for segment in index.segments:
        folder = directory / SEGMENTS / segment.name
        for name in SEGMENT_FILES:
            path = folder / name
            with codec._open_index_file(path) as handle:
                codec._check_file(handle, path, segment.record["files"][name])
        segment.postings.check_ranges()
        terms = segment.postings._terms.all_terms()
        if not all(map(lt, terms, terms[1:])):
            raise CorruptIndexError(f"{folder / codec.TERMS}: terms not in ascending order, or repeated")
        check_every_record(segment.documents)
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
    if index_id_from_hashes(index.analyzer, index.parameters, stats.leaves) != index.index_id \
            or merkle_root(stats.leaves) != index.corpus_root:
        raise CorruptIndexError(f"{directory / codec.MANIFEST}: index id or corpus root differ from the segments")
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
    rebuilt = build_index(list(index.documents.values()), index.analyzer, index.parameters, limits=limits)
    if codec.serialise(rebuilt, "") != codec.serialise(index, ""):
        raise CorruptIndexError(f"{directory}: differs from a fresh index of the stored documents")
    if rebuilt.index_id != index.index_id or rebuilt.corpus_root != index.corpus_root:
        raise CorruptIndexError(f"{directory / codec.MANIFEST}: index id or corpus root differ from the stored documents")
