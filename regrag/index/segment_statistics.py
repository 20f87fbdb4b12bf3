"""The global statistics of a segmented generation, from all live passages
of all its segments: what a fresh build of the same documents computes.

``global_statistics`` returns the vocabulary of live terms with their
document frequencies, every live passage's length in global order, the
average length (``fsum``: correctly rounded, so whatever the segmentation
it is a rebuild's), the BM25 length norms, the TF-IDF norms
``sqrt(fsum(w²))`` with ``w = sublinear_tf(tf) · tfidf_idf(N, df)`` (one
pass over every live posting; vectorised with numpy when it is importable,
the same products and the same ``fsum``, so the same bits) and the
(document id, content hash) leaves of the index id and Merkle root.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import mul

from regrag.index.parameters import IndexParameters, bm25_scorer
from regrag.index.segment_view import CombinedDocuments, Segment
from regrag.scoring.tfidf import sublinear_tf, tfidf_idf


@dataclass(frozen=True)
class GlobalStatistics:
    terms: list[str]
    document_frequencies: array
    lengths: array
    average_length: float
    length_norms: array
    tfidf_norms: array
    leaves: list[tuple[str, str]]


def _numpy():
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def global_statistics(segments: Sequence[Segment], combined: CombinedDocuments, parameters: IndexParameters,
                      vectorised: bool | None = None) -> GlobalStatistics:
    """Everything corpus-wide of the live passages of ``segments`` (ordered
    and mapped by ``combined``). ``vectorised``: use numpy (default: when
    importable); both paths give the same bits (tested)."""
    numpy = _numpy() if vectorised is not False else None
    if vectorised and numpy is None:
        raise ImportError("numpy is not installed")
    count = combined.passage_starts[-1]
    lengths = array("d", bytes(8 * count))
    for segment, mapping in zip(segments, combined.global_positions):
        for local, position in enumerate(mapping):
            if position >= 0:
                lengths[position] = segment.lengths[local]
    average_length = math.fsum(lengths) / count if count else 0.0
    if average_length <= 0.0:
        average_length = 1.0
    length_norms = bm25_scorer(parameters, average_length).length_norms(lengths)
    columns = [segment.postings.all_columns() for segment in segments]  # terms, starts, positions, codes, values
    frequencies: dict[str, int] = {}
    for (terms, starts, positions, _codes, _values), mapping in zip(columns, combined.global_positions):
        dead = bytes(p < 0 for p in mapping)
        for number, term in enumerate(terms):
            start, end = starts[number], starts[number + 1]
            live = end - start - (sum(map(dead.__getitem__, positions[start:end])) if 1 in dead else 0)
            if live:
                frequencies[term] = frequencies.get(term, 0) + live
    vocabulary = sorted(frequencies)
    document_frequencies = array("i", map(frequencies.__getitem__, vocabulary))
    distinct = sorted(set(document_frequencies))
    by_frequency = dict(zip(distinct, (tfidf_idf(count, df) for df in distinct)))
    idfs = {term: by_frequency[df] for term, df in frequencies.items()}
    if numpy is not None:
        tfidf_norms = _norms_numpy(numpy, columns, combined.global_positions, idfs, count)
    else:
        tfidf_norms = _norms_python(columns, combined.global_positions, idfs, count)
    leaves = []
    hashes = [segment.content_hashes() for segment in segments]
    for number in range(len(combined.ids)):
        segment_number, local = combined.owner(number)
        leaves.append((combined.ids[number], hashes[segment_number][local]))
    return GlobalStatistics(vocabulary, document_frequencies, lengths, average_length, length_norms, tfidf_norms,
                            leaves)


def _sublinear(values: Sequence[float]) -> list[float]:
    return [sublinear_tf(value) for value in values]  # what the build's sublinear_table holds for each


def _norms_python(columns, maps, idfs: dict[str, float], count: int) -> array:
    squares: list[list[float]] = [[] for _ in range(count)]
    for (terms, starts, positions, codes, values), mapping in zip(columns, maps):
        sublinear = _sublinear(values)
        for number, term in enumerate(terms):
            idf = idfs.get(term)
            if idf is None:
                continue  # every posting of it is deleted
            start, end = starts[number], starts[number + 1]
            weights = list(map(mul, map(sublinear.__getitem__, codes[start:end]), repeat(idf)))
            for position, weight in zip(map(mapping.__getitem__, positions[start:end]), weights):
                if position >= 0:
                    squares[position].append(weight * weight)
    return array("d", (math.sqrt(math.fsum(values)) for values in squares))


def _norms_numpy(numpy, columns, maps, idfs: dict[str, float], count: int) -> array:
    found_positions, found_squares = [], []
    for (terms, starts, positions, codes, values), mapping in zip(columns, maps):
        if not len(positions):
            continue
        starts_array = numpy.asarray(memoryview(starts)).astype(numpy.int64)
        term_of = numpy.repeat(numpy.arange(len(terms)), numpy.diff(starts_array))
        term_idfs = numpy.array([idfs.get(term, 0.0) for term in terms], dtype=numpy.float64)
        sublinear = numpy.array(_sublinear(values), dtype=numpy.float64)
        codes = numpy.asarray(memoryview(codes)).astype(numpy.int64)
        weights = sublinear[codes] * term_idfs[term_of]  # sublinear[f] * idf, as the Python path
        squares = weights * weights
        mapped = numpy.asarray(memoryview(mapping))[numpy.asarray(memoryview(positions))]
        live = mapped >= 0
        found_positions.append(mapped[live])
        found_squares.append(squares[live])
    if not found_positions:
        return array("d", bytes(8 * count))
    positions = numpy.concatenate(found_positions)
    order = numpy.argsort(positions, kind="stable")
    squares = numpy.concatenate(found_squares)[order].tolist()
    ends = numpy.cumsum(numpy.bincount(positions, minlength=count)).tolist()
    norms = array("d")
    start = 0
    for end in ends:
        norms.append(math.sqrt(math.fsum(squares[start:end])))
        start = end
    return norms
