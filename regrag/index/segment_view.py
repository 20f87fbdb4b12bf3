"""Segments read in place, and several of them seen as one index.

A ``Segment`` is one segment's documents (``StoredDocuments``), postings
(``PostingsTable`` over local positions), lengths and content hashes, read
from its directory (small files verified whole, large ones mapped and
verified chunk by chunk, as a format-2 generation) or from the bytes of a
segment not yet published. ``CombinedDocuments`` puts the live documents of
all segments in id order, which is a fresh build's passage order, and maps
each segment's local passage positions to these global positions;
``SegmentedPostings`` gives each term's postings over all segments in
global positions, deleted passages dropped, with the scores a fresh build
would hold (docs/index-format.md, "Segments").
"""

from __future__ import annotations

import bisect
import json
import threading
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import le, lt
from pathlib import Path
from typing import Any, Callable

from regrag.errors import CorruptIndexError
from regrag.index import chunks, frequency_codes
from regrag.index.build import Postings
from regrag.index.postings_cache import CachedPostings
from regrag.index.postings_table import PostingsTable, scored_postings
from regrag.index.position_codes import POSITIONS
from regrag.index.segment_files import CONTENT_HASHES, LENGTHS
from regrag.index.stored_documents import (
    DOCUMENT_IDS, DOCUMENT_OFFSETS, DOCUMENTS, METADATA, PASSAGE_STARTS, DocumentMetadata, StoredDocuments,
    StoredRecord, locate_passage,
)
from regrag.index.term_table import POSTING_STARTS, TERM_OFFSETS, TERMS, TermTable
from regrag.scoring.bm25 import BM25Scorer
from regrag.scoring.tfidf import TfidfScorer

LARGE_FILES = (DOCUMENTS, TERMS, POSITIONS, frequency_codes.CODES)


def typed(typecode: str, data: bytes, path: Path) -> array:
    """``data`` as little-endian numbers (``CorruptIndexError`` naming ``path`` if not whole items)."""
    from regrag.index.loading import _typed_array

    return _typed_array(typecode, bytes(data), path, array(typecode).itemsize)


@dataclass
class Segment:
    """One segment, opened. ``directory`` is where its files lie (None for a
    segment computed by an update and not yet published, whose ``files``
    are then its bytes); ``record`` is its parsed ``segment.json``."""

    name: str
    directory: Path | None
    files: dict[str, bytes] | None
    record: dict[str, Any]
    documents: StoredDocuments
    postings: PostingsTable
    lengths: array
    hashes: bytes | None  # content_hashes.bin, None where not yet made (a format-2 generation)

    @property
    def passage_count(self) -> int:
        return len(self.lengths)

    def content_hashes(self) -> list[str]:
        """Every document's content hash, in id order."""
        if self.hashes is not None:
            data = self.hashes
            return [data[at: at + 32].hex() for at in range(0, len(data), 32)]
        return [self.documents.content_hash(number) for number in range(len(self.documents.ids))]


def open_segment(name: str, record: dict[str, Any], directory: Path | None = None,
                 files: dict[str, bytes] | None = None, memory_map: bool = True,
                 shared: Sequence[str] | None = None) -> Segment:
    """A segment from ``directory`` (checked against ``record``'s sizes and
    hashes, large files mapped) or from ``files`` (bytes made by this
    process). ``shared``: the files to read (default all the record lists;
    a format-2 generation has no ``content_hashes.bin``)."""
    from regrag.index.codec import _read_checked
    from regrag.index.loading import _checked_large, _column, position_column

    where = directory if directory is not None else Path(f"<new segment {name[:16]}>")
    manifest = {"files": record["files"]}
    if files is None:
        assert directory is not None
        read: Callable[[str], bytes] = lambda file: _read_checked(directory, manifest, file)  # noqa: E731
        large = _checked_large(directory, manifest, memory_map)
    else:
        read = files.__getitem__
        large = {file: chunks.CheckedBytes(where / file, memoryview(files[file]), None) for file in LARGE_FILES}
    try:
        ids = json.loads(read(DOCUMENT_IDS).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CorruptIndexError(f"{where / DOCUMENT_IDS}: not valid JSON") from None
    if not isinstance(ids, list) or not all(isinstance(key, str) for key in ids) or not all(map(lt, ids, ids[1:])):
        raise CorruptIndexError(f"{where / DOCUMENT_IDS}: not an ascending list of strings")
    offsets = typed("q", read(DOCUMENT_OFFSETS), where / DOCUMENT_OFFSETS)
    starts = typed("i", read(PASSAGE_STARTS), where / PASSAGE_STARTS)
    if len(offsets) != len(ids) + 1 or offsets[0] != 0 or offsets[-1] != len(large[DOCUMENTS].data) \
            or not all(map(lt, offsets, offsets[1:])):
        raise CorruptIndexError(f"{where / DOCUMENT_OFFSETS}: does not describe the lines of {DOCUMENTS}")
    if len(starts) != len(ids) + 1 or starts[0] != 0 or not all(map(le, starts, starts[1:])):
        raise CorruptIndexError(f"{where / PASSAGE_STARTS}: not the first passage of each document")
    stored = StoredDocuments(where, large[DOCUMENTS], offsets, ids, starts,
                             chunks.CheckedBytes(where / METADATA, memoryview(read(METADATA)), None))
    lengths = typed("d", read(LENGTHS), where / LENGTHS)
    values = typed("d", read(frequency_codes.VALUES), where / frequency_codes.VALUES)
    problem = frequency_codes.table_problem(values)
    if problem:
        raise CorruptIndexError(f"{where / frequency_codes.VALUES}: {problem}")
    term_offsets = typed("i", read(TERM_OFFSETS), where / TERM_OFFSETS)
    posting_starts = typed("i", read(POSTING_STARTS), where / POSTING_STARTS)
    codes = _column(large[frequency_codes.CODES], frequency_codes.code_typecode(len(values)))
    counts = {"document_count": len(ids), "passage_count": starts[-1], "term_count": len(posting_starts) - 1,
              "posting_count": len(codes)}
    for key, value in counts.items():
        if record[key] != value:
            raise CorruptIndexError(f"{where}: {key} is {record[key]}, the data files hold {value}")
    if len(lengths) != starts[-1]:
        raise CorruptIndexError(f"{where / LENGTHS}: the per-passage and per-posting files do not agree")
    terms = TermTable(large[TERMS], term_offsets, where / POSTING_STARTS, len(posting_starts) - 1)
    if not len(posting_starts) or posting_starts[0] != 0 or posting_starts[-1] != len(codes):
        raise CorruptIndexError(f"{where / POSTING_STARTS}: does not add up to the postings")
    positions = position_column(where, read, large, posting_starts)
    table = PostingsTable(terms, posting_starts, positions,
                          codes, values, lengths, (None, None),  # type: ignore[arg-type]
                          (large[POSITIONS], large[frequency_codes.CODES]))
    hashes = None
    if shared is None or CONTENT_HASHES in shared:
        hashes = read(CONTENT_HASHES)
        if len(hashes) != 32 * len(ids):
            raise CorruptIndexError(f"{where / CONTENT_HASHES}: {len(hashes)} bytes for {len(ids)} documents")
    return Segment(name, directory, files, record, stored, table, lengths, hashes)


def _deleted_documents(stored: StoredDocuments, gone: Sequence[int], where: str) -> set[int]:
    """The documents whose passages ``gone`` (ascending) lists: all of their
    passages, or ``CorruptIndexError``."""
    dead: set[int] = set()
    starts = stored.passage_starts
    at = 0
    while at < len(gone):
        number = bisect.bisect_right(starts, gone[at]) - 1
        first, end = starts[number], starts[number + 1]
        if list(gone[at: at + end - first]) != list(range(first, end)):
            raise CorruptIndexError(f"{where} has only some passages of document {stored.ids[number]!r} deleted")
        dead.add(number)
        at += end - first
    return dead


class CombinedDocuments:
    """The live documents of several segments in id order: what
    ``StoredDocuments`` offers for one generation (ids, passage starts,
    records, metadata), over all of them. ``deleted`` holds each segment's
    deleted local passage positions (whole documents only)."""

    def __init__(self, directory: Path, segments: Sequence[Segment], deleted: Sequence[Sequence[int]]) -> None:
        self.directory = directory
        self.segments = segments
        entries: list[tuple[str, int, int]] = []
        for number, (segment, gone) in enumerate(zip(segments, deleted)):
            stored = segment.documents
            dead = _deleted_documents(stored, gone, f"{directory}: segment {segment.name}")
            if not dead:
                entries.extend(zip(stored.ids, repeat(number), range(len(stored.ids))))
            else:
                entries.extend((key, number, local) for local, key in enumerate(stored.ids) if local not in dead)
        entries.sort()
        for (a, _s, _l), (b, _t, _m) in zip(entries, entries[1:]):
            if a == b:
                raise CorruptIndexError(f"{directory}: document {a!r} is live in two segments")
        self.ids = [key for key, _s, _l in entries]
        self._owner = array("i", (s for _k, s, _l in entries))
        self._local = array("i", (local for _k, _s, local in entries))
        starts = array("i", [0])
        self.global_positions = [array("i", [-1]) * segment.passage_count for segment in segments]
        for segment_number, local in zip(self._owner, self._local):
            stored = segments[segment_number].documents
            first, end = stored.passage_starts[local], stored.passage_starts[local + 1]
            at = starts[-1]
            self.global_positions[segment_number][first:end] = array("i", range(at, at + end - first))
            starts.append(at + end - first)
        self.passage_starts = starts
        self._metadata: list[DocumentMetadata] | None = None
        self._lock = threading.Lock()

    def number(self, document_id: object) -> int | None:
        if not isinstance(document_id, str):
            return None
        at = bisect.bisect_left(self.ids, document_id)
        return at if at < len(self.ids) and self.ids[at] == document_id else None

    def owner(self, number: int) -> tuple[int, int]:
        """(segment number, document number within it) of global document ``number``."""
        return self._owner[number], self._local[number]

    def owners(self) -> Iterator[tuple[int, int]]:
        """(segment number, document number within it) of every document, in id order."""
        return zip(self._owner, self._local)

    def record(self, number: int) -> StoredRecord:
        return self.segments[self._owner[number]].documents.record(self._local[number])

    def content_hash(self, number: int) -> str:
        segment = self.segments[self._owner[number]]
        local = self._local[number]
        if segment.hashes is not None:
            return segment.hashes[32 * local: 32 * local + 32].hex()
        return segment.documents.content_hash(local)

    def locate(self, position: int) -> tuple[int, int]:
        return locate_passage(self.passage_starts, position)

    def metadata(self) -> list[DocumentMetadata]:
        with self._lock:
            if self._metadata is None:
                found = [entry for segment in self.segments for entry in segment.documents.metadata()
                         if self._is_live(entry.id, segment)]
                self._metadata = sorted(found, key=lambda entry: entry.id)
            return self._metadata

    def _is_live(self, key: str, segment: Segment) -> bool:
        number = self.number(key)
        return number is not None and self.segments[self._owner[number]] is segment


class SortedTerms(Sequence[str]):
    """A sorted list of terms with ``TermTable``'s ``number`` (for a view not read from disk)."""

    def __init__(self, terms: list[str]) -> None:
        self._terms = terms

    def __len__(self) -> int:
        return len(self._terms)

    def __getitem__(self, number):  # type: ignore[override]
        return self._terms[number]

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def number(self, term: object) -> int | None:
        at = bisect.bisect_left(self._terms, term) if isinstance(term, str) else len(self._terms)
        return at if at < len(self._terms) and self._terms[at] == term else None


class SegmentedPostings(CachedPostings):
    """Term -> ``Postings`` over all segments, in global positions, made on
    first use with the global passage count, document frequency and length
    norms: the bits of a fresh build's postings."""

    def __init__(self, terms: Any, document_frequencies: Sequence[int], segments: Sequence[Segment],
                 global_positions: Sequence[array], deleted_counts: Sequence[int], length_norms: Sequence[float],
                 scorers: tuple[BM25Scorer, TfidfScorer], frequencies_file: Path) -> None:
        self._terms = terms
        self._frequencies = document_frequencies
        self._segments = segments
        self._maps = global_positions
        self._deleted = deleted_counts
        self._length_norms = length_norms
        self._scorers = scorers
        self._file = frequencies_file
        self._sublinear: dict[float, float] = {}
        super().__init__()

    def _made(self, term: str) -> Postings | None:
        found = self._gathered(term)
        if found is None:
            return None
        positions, frequencies = found
        bm25, tfidf = self._scorers
        return self._remember(term, scored_postings(positions, frequencies, len(self._length_norms),
                                                    self._length_norms, bm25, tfidf, self._sublinear))

    def positions(self, term: str) -> Sequence[int] | None:
        entry = self._cache.get(term)
        if entry is not None:
            return entry.passages
        found = self._gathered(term)
        return None if found is None else found[0]

    def positions_and_frequencies(self) -> Iterator[tuple[str, Sequence[int], Sequence[float]]]:
        for term in self._terms:
            positions, frequencies = self._gathered(term)  # type: ignore[misc]
            yield term, positions, frequencies

    def check_ranges(self) -> None:
        """Every segment's columns checked, and every global term's postings
        gathered (its document frequency checked)."""
        for segment in self._segments:
            segment.postings.check_ranges()
        for term in self._terms:
            self._gathered(term)

    def _gathered(self, term: str) -> tuple[array, array] | None:
        number = self._terms.number(term)
        if number is None:
            return None
        parts = []
        for segment, mapping, deleted in zip(self._segments, self._maps, self._deleted):
            columns = segment.postings.columns(term)
            if columns is None:
                continue
            local, frequencies = columns
            mapped = array("i", map(mapping.__getitem__, local))
            if deleted:
                keep = [p >= 0 for p in mapped]
                mapped, frequencies = array("i", compress(mapped, keep)), array("d", compress(frequencies, keep))
            if len(mapped):
                parts.append((mapped, frequencies))
        if len(parts) == 1:
            positions, frequencies = parts[0]
        else:  # each part ascends; positions are distinct, so the merged order is unique
            joined, values = array("i"), array("d")
            for mapped, found in parts:
                joined.extend(mapped)
                values.extend(found)
            order = sorted(range(len(joined)), key=joined.__getitem__)
            positions = array("i", map(joined.__getitem__, order))
            frequencies = array("d", map(values.__getitem__, order))
        if len(positions) != self._frequencies[number]:
            raise CorruptIndexError(f"{self._file}: term {term!r} has {len(positions)} live postings, "
                                    f"the file says {self._frequencies[number]}")
        return positions, frequencies
