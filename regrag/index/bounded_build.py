"""Building an index generation in bounded memory: analyse, spill, merge,
write as you go (docs/index-format.md, "Building in bounded memory").

The documents are sorted by id (held in memory, or streamed from their
JSONL file: ``regrag.index.prepared``) and analysed in order, in one process or in
``workers`` processes (``regrag.index.parallel.spill_in_workers``), each
taking contiguous ranges. Whenever a range's buffered analysis reaches the
budget (``memory_bytes``, shared between the workers) it is written to a run
file (``regrag.index.spill``) in ``.runs/`` inside the generation's
temporary directory. The posting files are then produced by a streaming
k-way merge of the runs in term order: a term's postings are its runs'
postings concatenated in run order, which is passage order, exactly what
the in-memory build concatenates (``regrag.index.analysis.merge_ranges``).
TF-IDF norms need every IDF, so they come after the merge, from each run's
passage-major arrays with the IDF of each of its terms: the same calls on
the same numbers as ``regrag.index.build.finish_index``. Every file is
written as it is produced (``regrag.index.streamed_files``); the bytes are
those of ``Index.from_documents(...).save(...)`` for every budget and
worker count (tests/index/test_bounded_build.py).
"""

from __future__ import annotations

import hashlib
import heapq
import math
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from regrag.corpus.model import Document
from regrag.corpus.stream import StreamedDocuments
from regrag.errors import InputError
from regrag.index import codec, frequency_codes, position_codes
from regrag.index.build import INT32_MAX, check_index_size, streamed_index_id
from regrag.index.chunks import CHUNKS
from regrag.index.parameters import IndexParameters, bm25_scorer, tfidf_scorer
from regrag.index.prepared import PreparedDocuments, prepare
from regrag.index.publishing import check_publish_arguments
from regrag.index.spill import Run, RunReader, SpilledDocuments, spill_documents
from regrag.index.streamed_files import HashedFile, write_document_files
from regrag.index.term_table import BLOCK_TERMS, POSTING_STARTS, TERM_OFFSETS, TERMS, TermCoder
from regrag.io import files as io_files, writes
from regrag.limits import LimitError, Limits
from regrag.scoring.tfidf import sublinear_table, tfidf_idf
from regrag.text.analyzer import Analyzer, clear_piece_cache
from regrag.text.underthesea_words import word_analyzer

from regrag.index.budget import DEFAULT_MEMORY_MB, MEGABYTE, MINIMUM_MEMORY_MB  # noqa: F401 (public here too)

RUNS = ".runs"
MERGE_BUFFERS = 5  # sections read at once per run during the merge
FLUSH_ITEMS = 1 << 16


@dataclass(frozen=True)
class WrittenGeneration:
    """What ``write_generation`` wrote: the manifest's bytes and the figures a caller reports."""

    manifest: bytes
    index_id: str
    corpus_root: str
    document_count: int
    passage_count: int
    term_count: int
    posting_count: int
    runs: int


def check_memory(memory_bytes: object) -> int:
    """``memory_bytes`` if it is a positive integer, else ``InputError``."""
    if isinstance(memory_bytes, bool) or not isinstance(memory_bytes, int) or memory_bytes < 1:
        raise InputError(f"the memory budget must be a positive number of bytes, got {memory_bytes!r}")
    return memory_bytes


def write_generation(
    directory: Path,
    documents: Sequence[Document] | PreparedDocuments,
    analyzer: Analyzer,
    parameters: IndexParameters,
    engine_version: str,
    memory_bytes: int = DEFAULT_MEMORY_MB * MEGABYTE,
    workers: int = 1,
    limits: Limits | None = None,
    progress: Callable[[int, int], None] | None = None,
    stages: Callable[[str, int, int], None] | None = None,
) -> WrittenGeneration:
    """Write every file of the generation indexing ``documents`` into the
    (new, empty) ``directory``, fsync them and the directory. Run files live
    in ``directory/.runs`` and are removed before this returns or raises;
    on failure the caller removes ``directory``. ``LimitError``/``InputError``
    as ``build_index``; an ``OSError`` naming the file on a write failure.
    ``progress(done, total)`` is told of analysed documents; ``stages(stage,
    done, total)``, when given, of every stage instead ("indexing" documents,
    "merging runs" postings, "TF-IDF norms" passages): neither changes a byte."""
    check_memory(memory_bytes)
    if stages is not None:
        progress = lambda done, total: stages("indexing", done, total)  # noqa: E731
    prepared = documents if isinstance(documents, PreparedDocuments) else prepare(documents, parameters, limits)
    passage_count, document_count = prepared.passage_count, len(prepared)
    runs_directory = directory / RUNS
    writes.make_directory(runs_directory)
    try:
        spilled = _analyse(prepared, analyzer, parameters, memory_bytes, workers, runs_directory, progress)
        clear_piece_cache()
        runs = spilled.runs
        check_index_size(passage_count, sum(run.postings for run in runs), limits)
        entries: dict[str, tuple[int, str]] = {}
        small: dict[str, bytes] = {}  # what is small enough to hold: written by codec.write_files, as serialise's
        chunks = [write_document_files(directory, prepared.pairs(0, document_count), spilled.languages,
                                       spilled.hashes, entries, small)]
        leaves = list(zip(prepared.ids(), spilled.hashes))
        spilled.languages, spilled.hashes = [], []
        buffer = max(4096, min(1 << 20, memory_bytes // (MERGE_BUFFERS * max(1, len(runs)))))
        table = array("d", sorted(spilled.frequencies))
        total = sum(run.postings for run in runs)
        told = None if stages is None else (lambda done: stages("merging runs", done, total))
        term_count, posting_count, run_frequencies, merged_chunks = _merge(runs, directory, table, buffer, entries,
                                                                           told, small)
        chunks.extend(merged_chunks)
        lengths = spilled.lengths
        average_length = math.fsum(lengths) / passage_count if passage_count else 0.0
        if average_length <= 0.0:
            average_length = 1.0
        length_norms = bm25_scorer(parameters, average_length).length_norms(lengths)
        told = None if stages is None else (lambda done: stages("TF-IDF norms", done, passage_count))
        norms = _tfidf_norms(runs, run_frequencies, passage_count, parameters, sublinear_table(spilled.frequencies),
                             told)
        small[frequency_codes.VALUES] = frequency_codes.little_endian(table)
        small["lengths.f64"] = frequency_codes.little_endian(lengths)
        small["length_norms.f64"] = frequency_codes.little_endian(length_norms)
        small["tfidf_norms.f64"] = frequency_codes.little_endian(norms)
        small[CHUNKS] = b"".join(chunks)
        entries.update((name, (len(data), hashlib.sha256(data).hexdigest())) for name, data in small.items())
        from regrag.audit.merkle import merkle_root

        index_id = streamed_index_id(analyzer, parameters, leaves)
        corpus_root = merkle_root(leaves)
        small[codec.MANIFEST] = codec.manifest_bytes(
            analyzer.identity(), average_length, corpus_root, document_count, engine_version, entries, index_id,
            parameters.to_dict(), passage_count, posting_count, term_count)
    except BaseException:
        io_files.remove_tree(runs_directory)
        raise
    io_files.remove_tree(runs_directory)
    codec.write_files(directory, small)  # and fsyncs the directory
    return WrittenGeneration(small[codec.MANIFEST], index_id, corpus_root, document_count, passage_count, term_count,
                             posting_count, len(runs))


def _analyse(prepared, analyzer, parameters, memory_bytes, workers, runs_directory, progress) -> SpilledDocuments:
    count = len(prepared)
    if workers > 1 and count > 1:
        from regrag.index.parallel import spill_in_workers

        return spill_in_workers(prepared, analyzer, parameters, workers, memory_bytes, runs_directory, progress)
    done = iter(range(1, count + 1))
    tell = None if progress is None else (lambda: progress(next(done), count))
    return spill_documents(prepared, 0, count, 0, analyzer, parameters, memory_bytes, runs_directory, "run-000", tell)


class _Column:
    """An int32 column of a generation written in blocks (term offsets, posting starts)."""

    def __init__(self, output: HashedFile) -> None:
        self.output = output
        self.values = array("i", [0])

    def append(self, value: int) -> None:
        self.values.append(value)
        if len(self.values) >= FLUSH_ITEMS:
            self.flush()

    def flush(self) -> None:
        self.output.write_numbers(self.values)
        self.values = array("i")


def _merge(runs: list[Run], directory: Path, table: array, buffer: int, entries: dict[str, tuple[int, str]],
           progress: Callable[[int], None] | None = None,
           small: dict[str, bytes] | None = None) -> tuple[int, int, list[array], list[bytes]]:
    """Merge the runs in term order into ``terms.bin``, ``term_blocks.i32``,
    ``posting_starts.i32``, ``positions.bin`` and ``frequency_codes.bin``
    (``position_widths.bin`` and ``position_blocks.i64`` into ``small``).
    Returns the term and posting counts, for each run the document frequency
    of each of its terms (in its term order), and the chunk digests of the
    three chunked files it wrote (in ``CHUNKED_FILES`` order)."""
    place = {value: number for number, value in enumerate(table)}.__getitem__
    code_type = frequency_codes.code_typecode(len(table))
    readers: list[RunReader] = []
    outputs: list[HashedFile] = []
    try:
        readers.extend(RunReader(run, buffer) for run in runs)
        terms_out, positions_out, codes_out, offsets_out, starts_out = (
            HashedFile(directory / name, chunked=chunked) for name, chunked in (
                (TERMS, True), (position_codes.POSITIONS, True), (frequency_codes.CODES, True), (TERM_OFFSETS, False),
                (POSTING_STARTS, False)))
        outputs.extend((terms_out, positions_out, codes_out, offsets_out, starts_out))
        offsets, starts = _Column(offsets_out), _Column(starts_out)
        gaps = position_codes.PositionWriter(positions_out.write)
        coder = TermCoder()
        iterators = [reader.terms() for reader in readers]
        heap = []
        for number, terms in enumerate(iterators):
            first = next(terms, None)
            if first is not None:
                heap.append((first[0], number, first[1]))
        heapq.heapify(heap)
        frequencies_of = [array("i") for _run in runs]
        codes = array(code_type)
        postings = terms_written = 0
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            term, number, count = pop(heap)
            term_positions = array("i")
            if not heap or heap[0][0] != term:  # in one run only (most terms): its postings as they are
                raw, values = readers[number].postings(count)
                term_positions.frombytes(raw)  # (run files hold this machine's order)
                codes.extend(map(place, values))
                frequency = count
                following = next(iterators[number], None)
                if following is not None:
                    push(heap, (following[0], number, following[1]))
                frequencies_of[number].append(frequency)
            else:
                group = [(number, count)]
                while heap and heap[0][0] == term:  # the same term in later runs, in run order
                    group.append(pop(heap)[1:])
                frequency = 0
                for number, count in group:
                    raw, values = readers[number].postings(count)
                    term_positions.frombytes(raw)
                    codes.extend(map(place, values))
                    frequency += count
                    following = next(iterators[number], None)
                    if following is not None:
                        push(heap, (following[0], number, following[1]))
                for number, _count in group:
                    frequencies_of[number].append(frequency)
            gaps.add(term_positions)
            if len(codes) >= FLUSH_ITEMS:
                codes_out.write_numbers(codes)
                codes = array(code_type)
                if progress is not None:
                    progress(postings)
            if terms_written and terms_written % BLOCK_TERMS == 0:
                offsets.append(coder.size)  # a block of front-coded terms starts
            terms_out.write(coder.add(term))  # UTF-8, as the run holds it
            if coder.size > INT32_MAX:
                raise LimitError(f"the vocabulary would take more than {INT32_MAX:,} bytes; the format stores its "
                                 f"offsets as 32-bit integers (at most {INT32_MAX:,})")
            postings += frequency
            terms_written += 1
            starts.append(postings)
        codes_out.write_numbers(codes)
        if progress is not None:
            progress(postings)
        if terms_written:
            offsets.append(coder.size)
        offsets.flush()
        starts.flush()
        if small is not None:
            small[position_codes.WIDTHS], small[position_codes.BLOCKS] = gaps.finish()
        for name, output in zip((TERMS, position_codes.POSITIONS, frequency_codes.CODES, TERM_OFFSETS, POSTING_STARTS),
                                outputs):
            entries[name] = output.finish()
        return terms_written, postings, frequencies_of, [output.chunk_digests for output in outputs[:3]]
    finally:
        for output in outputs:
            output.close()
        for reader in readers:
            reader.close()


def _tfidf_norms(runs: list[Run], frequencies_of: list[array], count: int, parameters: IndexParameters,
                 sublinear: dict[float, float], progress: Callable[[int], None] | None = None) -> array:
    """Each passage's TF-IDF norm, run after run (passage order), from the
    run's passage-major terms and the IDF of each of its terms."""
    tfidf = tfidf_scorer(parameters)
    norms = array("d")
    idf_of: dict[int, float] = {}
    for run, document_frequencies in zip(runs, frequencies_of):
        for frequency in sorted(set(document_frequencies)):
            if frequency not in idf_of:
                idf_of[frequency] = tfidf_idf(count, frequency)
        idfs = list(map(idf_of.__getitem__, document_frequencies))  # by place in the run's vocabulary
        reader = RunReader(run, 1 << 20)
        try:
            norms.extend(tfidf.norm(tfidf.passage_weights(ids, values, idfs, sublinear))
                         for ids, values in reader.passages())
        finally:
            reader.close()
        if progress is not None:
            progress(len(norms))
    return norms


def commit_written(store, write: Callable[[Path], WrittenGeneration], keep: int | None = None, now=None, *,
                   base: int | None = None, protect=(), allow_clock_skew: bool = False):
    """``IndexStore.commit`` of a generation that ``write(directory)`` writes
    into the new generation's temporary directory, under the writer lock
    (``IndexStore._publish_locked``: the same checks, clean-up on failure and
    commit); returns the ``Publication`` and what ``write`` returned."""
    check_publish_arguments(keep, base, now)
    written: list[WrittenGeneration] = []

    def files(directory: Path) -> WrittenGeneration:
        written.append(write(directory))
        return written[0]

    with store.writer_lock():
        return store._publish_locked(None, files, keep, now, base, frozenset(protect), allow_clock_skew), written[0]


def index_directory(
    directory,
    documents: Sequence[Document],
    analyzer: str | Analyzer = "auto",
    parameters: IndexParameters | None = None,
    *,
    memory_mb: float = DEFAULT_MEMORY_MB,
    workers: int = 1,
    limits: Limits | None = None,
    progress: Callable[[int, int], None] | None = None,
    stages: Callable[[str, int, int], None] | None = None,
    **options,
):
    """Index ``documents`` into the index directory ``directory`` (a path or
    an ``IndexStore``) and publish the generation, analysing in at most about
    ``memory_mb`` MB (10^6 bytes) of buffered analysis: ``regrag index``'s
    build. ``options`` as for ``IndexStore.commit`` (``keep``, ``base``,
    ``protect``, ``now``, ``allow_clock_skew``); ``progress`` and ``stages``
    as for ``write_generation``. Returns the ``Publication``
    and the ``WrittenGeneration``. The generation is byte for byte the one
    ``Index.from_documents(...).save(directory)`` writes."""
    from regrag._version import __version__
    from regrag.index.directory import IndexStore
    from regrag.index.parallel import check_workers

    if isinstance(memory_mb, bool) or not isinstance(memory_mb, (int, float)) or not memory_mb > 0:
        raise InputError(f"memory_mb must be a positive number of megabytes, got {memory_mb!r}")
    memory_bytes = max(1, int(memory_mb * MEGABYTE))
    workers = check_workers(workers)
    if limits is not None and not isinstance(limits, Limits):
        raise InputError(f"limits must be a regrag.limits.Limits, got {type(limits).__name__}")
    analyzer = word_analyzer(analyzer) if isinstance(analyzer, str) else analyzer
    parameters = parameters or IndexParameters()
    store = directory if isinstance(directory, IndexStore) else IndexStore(directory)
    if not isinstance(documents, StreamedDocuments):
        documents = list(documents)
    prepared = prepare(documents, parameters, limits)  # before the lock: nothing is created when refused
    return commit_written(
        store, lambda temporary: write_generation(temporary, prepared, analyzer, parameters, __version__, memory_bytes,
                                           workers, limits, progress, stages), **options)
