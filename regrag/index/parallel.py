"""``--workers N``: analyse the id-sorted documents in N processes.

Each worker analyses one contiguous range of the documents
(``regrag.index.analysis.analyze_range``) and sends back compact partial
postings as raw array bytes; the parent takes them in range order, so the
merged postings, and every byte of the index, are those of one process
(tests/index/test_workers.py). The ranges hold about equal amounts of text;
where they are cut never changes a result.

Workers are forked where the platform allows it and the process runs a
single thread (they then inherit the documents without copying); otherwise
they are spawned and the documents are sent to them. A worker that fails
raises its error in the parent; one that dies raises ``WorkerError``, never a hang.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import accumulate

from regrag.corpus.model import Document, Passage
from regrag.errors import InputError, RegragError
from regrag.index.analysis import RangeAnalysis, analyze_range, from_bytes, to_bytes
from regrag.index.parameters import IndexParameters
from regrag.text.analyzer import Analyzer

MAX_WORKERS = 64


class WorkerError(RegragError):
    """An indexing worker process died (killed, out of memory) before it answered."""


def check_workers(workers: object) -> int:
    """``workers`` if it is an integer from 1 to ``MAX_WORKERS``, else ``InputError`` saying so."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise InputError(f"workers must be an integer from 1 to {MAX_WORKERS}, got {workers!r}")
    return workers


def range_bounds(documents: Sequence[Document], workers: int) -> list[tuple[int, int]]:
    """At most ``workers`` contiguous, non-empty ranges ``[start, end)`` of
    ``documents`` holding about equal numbers of characters."""
    return bounds_of_sizes([len(document.text) + len(document.title) + 1 for document in documents], workers)


def bounds_of_sizes(sizes: Sequence[int], workers: int) -> list[tuple[int, int]]:
    """``range_bounds`` from each document's size (title and text characters plus one)."""
    running = list(accumulate(sizes))
    total = running[-1] if running else 0
    cuts = [0]
    for number in range(1, workers):
        cut = bisect_left(running, total * number / workers) + 1
        if cuts[-1] < cut < len(sizes):
            cuts.append(cut)
    cuts.append(len(sizes))
    return list(zip(cuts, cuts[1:]))


# What a worker analyses: set once per worker process (inherited when forked).
_INPUTS: tuple = ()


def _set_inputs(*inputs) -> None:
    global _INPUTS
    _INPUTS = inputs


def _analyze(start: int, end: int, first_position: int) -> tuple:
    documents, passages, analyzer, parameters = _INPUTS
    return to_bytes(analyze_range(documents[start:end], passages[start:end], first_position, analyzer, parameters,
                                  with_hashes=True))


def _context():
    """Fork when it is safe (no other thread whose locks a child could inherit), else spawn."""
    import multiprocessing
    import threading

    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def analyze_in_workers(
    documents: Sequence[Document],
    passages: Sequence[Sequence[Passage]],
    analyzer: Analyzer,
    parameters: IndexParameters,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
) -> list[RangeAnalysis]:
    """The analysed ranges of ``documents`` (id-sorted, with their passages),
    in order, from up to ``workers`` processes. ``progress(done, total)`` is
    called as each range arrives."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    bounds = range_bounds(documents, workers)
    firsts = list(accumulate((sum(map(len, passages[start:end])) for start, end in bounds), initial=0))
    ranges: list[RangeAnalysis] = []
    try:
        with ProcessPoolExecutor(max_workers=len(bounds), mp_context=_context(), initializer=_set_inputs,
                                 initargs=(documents, passages, analyzer, parameters)) as pool:
            futures = [pool.submit(_analyze, start, end, first) for (start, end), first in zip(bounds, firsts)]
            for future, (_start, end) in zip(futures, bounds):  # in range order, whatever finishes first
                ranges.append(from_bytes(future.result()))
                if progress is not None:
                    progress(end, len(documents))
    except BrokenProcessPool as error:
        raise WorkerError(f"an indexing worker process died before it finished ({error}); "
                          "nothing was built (try fewer --workers, or more memory)") from None
    return ranges


def _spill(start: int, end: int, first_position: int, max_bytes: int, directory: str, prefix: str) -> tuple:
    from pathlib import Path

    from regrag.index.spill import spill_documents

    prepared, analyzer, parameters = _INPUTS
    part = spill_documents(prepared, start, end, first_position, analyzer, parameters, max_bytes, Path(directory),
                           prefix)
    return part.runs, part.languages, part.hashes, part.lengths.tobytes(), sorted(part.frequencies)


def spill_in_workers(
    prepared,
    analyzer: Analyzer,
    parameters: IndexParameters,
    workers: int,
    memory_bytes: int,
    directory,
    progress: Callable[[int, int], None] | None = None,
):
    """The bounded build's analysis (``regrag.index.bounded_build``) in up to
    ``workers`` processes: each takes one contiguous range of the id-sorted
    documents of ``prepared`` (a ``regrag.index.prepared.PreparedDocuments``:
    in memory, or streamed from their file, which each worker then reads
    itself) and spills it as runs of at most about ``memory_bytes /
    workers`` into ``directory``; the parent takes the parts in range order
    (a ``regrag.index.spill.SpilledDocuments``)."""
    from array import array
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from regrag.index.spill import SpilledDocuments

    bounds = bounds_of_sizes(prepared.sizes(), workers)
    counts = prepared.passage_counts
    firsts = list(accumulate((sum(counts[start:end]) for start, end in bounds), initial=0))
    share = max(1, memory_bytes // len(bounds))
    result = SpilledDocuments([], [], [], array("d"), set())
    total = len(prepared)
    try:
        with ProcessPoolExecutor(max_workers=len(bounds), mp_context=_context(), initializer=_set_inputs,
                                 initargs=(prepared, analyzer, parameters)) as pool:
            futures = [pool.submit(_spill, start, end, first, share, str(directory), f"run-{number:03d}")
                       for number, ((start, end), first) in enumerate(zip(bounds, firsts))]
            for future, (_start, end) in zip(futures, bounds):  # in range order, whatever finishes first
                runs, languages, hashes, lengths, frequencies = future.result()
                result.runs.extend(runs)
                result.languages.extend(languages)
                result.hashes.extend(hashes)
                result.lengths.frombytes(lengths)
                result.frequencies.update(frequencies)
                if progress is not None:
                    progress(end, total)
    except BrokenProcessPool as error:
        raise WorkerError(f"an indexing worker process died before it finished ({error}); "
                          "nothing was built (try fewer --workers, or a smaller --memory)") from None
    return result
