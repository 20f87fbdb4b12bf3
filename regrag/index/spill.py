"""Run files: one analysed range of documents written to disk, and read
back term by term (for the k-way merge) and passage by passage (for the
TF-IDF norms).

A run is one file of raw machine numbers (this machine's byte order: a run
never leaves the build that wrote it; no pickle, nothing parsed but
numbers and UTF-8), seven sections back to back, their sizes kept in the
``Run`` record rather than in the file:

- ``term_sizes`` (int32 per term): the UTF-8 size of each term, the run's
  vocabulary in code-point order;
- ``terms``: those UTF-8 bytes, back to back;
- ``counts`` (int32 per term): the term's postings in this run;
- ``positions`` (int32 per posting, term-major): passage positions in the
  whole index, ascending within a term;
- ``frequencies`` (float64 per posting, beside ``positions``);
- ``passage_sizes`` (int32 per passage): how many terms each passage has;
- ``passage_terms`` (int32 per posting, passage-major): each passage's terms
  as places in this run's sorted vocabulary; ``passage_frequencies``
  (float64 beside them).

Files are written through ``regrag.io.system`` (so fault tests reach them)
and read with ``os.pread`` into buffers of a size the caller chooses, so a
merge of many runs holds a few buffers per run, not the runs.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from regrag.index.analysis import RangeAnalysis
from regrag.io import system

SECTIONS = ("term_sizes", "terms", "counts", "positions", "frequencies", "passage_sizes", "passage_terms",
            "passage_frequencies")
WRITE_BLOCK = 1 << 20


@dataclass(frozen=True)
class Run:
    """One spilled range: its file, the place of its first passage, and the
    byte size of each section (``SECTIONS`` order)."""

    path: str
    first_position: int
    passages: int
    postings: int
    terms: int
    sizes: tuple[int, ...]

    def section(self, name: str) -> tuple[int, int]:
        """(start, end) of section ``name`` in the file."""
        at = 0
        for section, size in zip(SECTIONS, self.sizes):
            if section == name:
                return at, at + size
            at += size
        raise KeyError(name)


class _Output:
    """Buffered writes to a new file through ``regrag.io.system`` (an ``OSError`` names the file)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._buffer: list[bytes] = []
        self._buffered = 0
        self._descriptor: int | None = None
        try:
            self._descriptor = system.active.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                                                  | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError as error:
            raise _named(error, path) from None

    def write(self, data: bytes) -> int:
        if data:
            self._buffer.append(data)
            self._buffered += len(data)
            if self._buffered >= WRITE_BLOCK:
                self.flush()
        return len(data)

    def flush(self) -> None:
        data = b"".join(self._buffer)
        self._buffer, self._buffered = [], 0
        view = memoryview(data)
        try:
            while view:
                written = system.active.write(self._descriptor, view)
                if written <= 0:
                    raise OSError(28, "a write made no progress")  # ENOSPC
                view = view[written:]
        except OSError as error:
            raise _named(error, self.path) from None

    def close(self, sync: bool = False) -> None:
        """Flush (and with ``sync`` fsync), then close; closing again does nothing."""
        if self._descriptor is None:
            return
        try:
            self.flush()
            if sync:
                try:
                    system.active.fsync(self._descriptor)
                except OSError as error:
                    raise _named(error, self.path) from None
        finally:
            descriptor, self._descriptor = self._descriptor, None
            system.active.close(descriptor)


def _named(error: OSError, path: str) -> OSError:
    if error.filename is not None:
        return error
    return OSError(error.errno, error.strerror or str(error), path)


def _write_in_order(output: _Output, columns: list[array], order: list[int], block: int = 1 << 12) -> int:
    """Each of ``columns`` (one array a term) in ``order``, back to back: one
    write per ``block`` terms rather than one per term. Returns the bytes written."""
    written = 0
    for at in range(0, len(order), block):
        written += output.write(b"".join(map(array.tobytes, map(columns.__getitem__, order[at : at + block]))))
    return written


def spill(analysed: RangeAnalysis, path: str | Path, first_position: int) -> Run:
    """Write ``analysed`` (whose first passage has ``first_position``) to a
    new run file at ``path``; the arrays of ``analysed`` are left as they were."""
    vocabulary = analysed.vocabulary
    order = sorted(range(len(vocabulary)), key=vocabulary.__getitem__)  # code-point order of the terms
    encoded = [vocabulary[number].encode("utf-8") for number in order]
    place = array("i", bytes(4 * len(order)))
    for new, old in enumerate(order):
        place[old] = new
    output = _Output(os.fspath(path))
    sizes = []
    try:
        sizes.append(output.write(array("i", map(len, encoded)).tobytes()))
        sizes.append(output.write(b"".join(encoded)))
        del encoded
        sizes.append(output.write(array("i", (len(analysed.positions[number]) for number in order)).tobytes()))
        sizes.append(_write_in_order(output, analysed.positions, order))
        sizes.append(_write_in_order(output, analysed.frequencies, order))
        offsets = analysed.term_offsets
        sizes.append(output.write(array("i", (end - start for start, end in zip(offsets, offsets[1:]))).tobytes()))
        step = 1 << 18  # the renumbered term ids, a block at a time (no second copy of the whole column)
        ids = analysed.term_ids
        sizes.append(sum(output.write(array("i", map(place.__getitem__, ids[at : at + step])).tobytes())
                         for at in range(0, len(ids), step)))
        sizes.append(output.write(analysed.term_frequencies.tobytes()))
    finally:
        output.close()
    return Run(os.fspath(path), first_position, len(analysed.lengths), len(analysed.term_ids), len(vocabulary),
               tuple(sizes))


class Section:
    """Sequential reads of one section of a run file through a buffer of ``buffer`` bytes."""

    def __init__(self, descriptor: int, start: int, end: int, buffer: int) -> None:
        self._descriptor = descriptor
        self._at = start
        self._end = end
        self._size = buffer
        self._data = b""
        self._used = 0

    def read(self, count: int) -> bytes:
        """The next ``count`` bytes (``EOFError`` past the section: a run is never short)."""
        available = len(self._data) - self._used
        if count <= available:
            piece = self._data[self._used : self._used + count]
            self._used += count
            return piece
        head = self._data[self._used :]
        wanted = count - available
        size = max(wanted, self._size)
        size = min(size, self._end - self._at)
        if size < wanted:
            raise EOFError("run file section is shorter than its record says")
        data = os.pread(self._descriptor, size, self._at)
        if len(data) != size:
            raise EOFError("run file is shorter than written")
        self._at += size
        self._data, self._used = data, wanted
        return head + data[:wanted]

    def numbers(self, typecode: str, count: int) -> array:
        values = array(typecode)
        values.frombytes(self.read(count * values.itemsize))
        return values


class RunReader:
    """A run read back: ``terms()`` yields (term, posting count) in term
    order, and after each, ``postings(count)`` gives that term's raw position
    bytes and frequencies; ``passages()`` yields each passage's term places
    and frequencies, in passage order."""

    def __init__(self, run: Run, buffer: int) -> None:
        self.run = run
        self._buffer = max(4096, buffer)
        self._descriptor = os.open(run.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))

    def _section(self, name: str) -> Section:
        start, end = self.run.section(name)
        return Section(self._descriptor, start, end, self._buffer)

    def terms(self) -> Iterator[tuple[bytes, int]]:
        """(term as UTF-8, posting count) in term order: byte order is code-point order, and the
        merge writes the bytes as they are, so no term is decoded."""
        sizes, blob, counts = self._section("term_sizes"), self._section("terms"), self._section("counts")
        self._positions, self._frequencies = self._section("positions"), self._section("frequencies")
        block = 1 << 12
        for at in range(0, self.run.terms, block):
            take = min(block, self.run.terms - at)
            for size, count in zip(sizes.numbers("i", take), counts.numbers("i", take)):
                yield blob.read(size), count

    def postings(self, count: int) -> tuple[bytes, array]:
        return self._positions.read(4 * count), self._frequencies.numbers("d", count)

    def passages(self) -> Iterator[tuple[array, array]]:
        sizes, ids, frequencies = (self._section(name) for name in ("passage_sizes", "passage_terms",
                                                                    "passage_frequencies"))
        block = 1 << 12
        for at in range(0, self.run.passages, block):
            for size in sizes.numbers("i", min(block, self.run.passages - at)):
                yield ids.numbers("i", size), frequencies.numbers("d", size)

    def close(self) -> None:
        os.close(self._descriptor)


@dataclass
class SpilledDocuments:
    """What the analysis of some contiguous documents left in memory once
    their runs were written: per document its language and content hash,
    per passage its weighted length, and the distinct weighted frequencies."""

    runs: list[Run]
    languages: list[str]
    hashes: list[str]
    lengths: array
    frequencies: set[float]


def spill_documents(prepared, start: int, end: int, first_position: int, analyzer, parameters,
                    max_bytes: int, directory: Path, prefix: str, progress=None) -> SpilledDocuments:
    """Analyse documents ``start`` to ``end - 1`` of ``prepared`` (a
    ``regrag.index.prepared.PreparedDocuments``: id-sorted, with passages)
    in ranges of at most about ``max_bytes`` of buffered analysis (at least
    one document each), writing each range as a run file
    ``directory/PREFIX-NNNNNN`` before analysing the next."""
    from itertools import tee
    from operator import itemgetter

    from regrag.index.analysis import analyze_range

    result = SpilledDocuments([], [], [], array("d"), set())
    position = first_position
    while start < end:
        documents, passages = tee(prepared.pairs(start, end))  # one pair apart at most: analyze_range zips them
        analysed = analyze_range(map(itemgetter(0), documents), map(itemgetter(1), passages), position, analyzer,
                                 parameters, progress, with_hashes=True, max_bytes=max_bytes)
        result.runs.append(spill(analysed, directory / f"{prefix}-{len(result.runs):06d}", position))
        result.languages.extend(analysed.languages)
        result.hashes.extend(analysed.content_hashes)
        result.lengths.extend(analysed.lengths)
        result.frequencies.update(analysed.term_frequencies)
        start += len(analysed.languages)
        position += len(analysed.lengths)
        del analysed, documents, passages
    return result
