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
from itertools import chain, compress, repeat
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
    if numpy is not None:
        lengths, vocabulary, document_frequencies, finish_norms = _pass_numpy(
            numpy, segments, combined.global_positions, count)
    else:
        lengths, vocabulary, document_frequencies, finish_norms = _pass_python(
            segments, combined.global_positions, count)
    average_length = math.fsum(lengths) / count if count else 0.0
    if average_length <= 0.0:
        average_length = 1.0
    length_norms = bm25_scorer(parameters, average_length).length_norms(lengths)
    distinct = sorted(set(document_frequencies))
    tfidf_norms = finish_norms(dict(zip(distinct, (tfidf_idf(count, df) for df in distinct))))
    hashes = [segment.content_hashes() for segment in segments]
    leaves = [(key, hashes[segment_number][local]) for key, (segment_number, local) in zip(combined.ids, combined.owners())]
    return GlobalStatistics(vocabulary, document_frequencies, lengths, average_length, length_norms, tfidf_norms,
                            leaves)


def _sublinear(values: Sequence[float]) -> list[float]:
    return [sublinear_tf(value) for value in values]  # what the build's sublinear_table holds for each


def _pass_python(segments: Sequence[Segment], maps: Sequence[array], count: int):
    """Lengths in global order, live document frequencies, and the function
    that computes the TF-IDF norms once the IDFs are known (pure Python)."""
    lengths = array("d", bytes(8 * count))
    for segment, mapping in zip(segments, maps):
        for local, position in enumerate(mapping):
            if position >= 0:
                lengths[position] = segment.lengths[local]
    columns = [segment.postings.all_columns() for segment in segments]  # terms, starts, positions, codes, values
    frequencies: dict[str, int] = {}
    for (terms, starts, positions, _codes, _values), mapping in zip(columns, maps):
        dead = bytes(p < 0 for p in mapping)
        for number, term in enumerate(terms):
            start, end = starts[number], starts[number + 1]
            live = end - start - (sum(map(dead.__getitem__, positions[start:end])) if 1 in dead else 0)
            if live:
                frequencies[term] = frequencies.get(term, 0) + live
    vocabulary = sorted(frequencies)

    def norms(idf_of_frequency: dict[int, float]) -> array:
        squares: list[list[float]] = [[] for _ in range(count)]
        for (terms, starts, positions, codes, values), mapping in zip(columns, maps):
            sublinear = _sublinear(values)
            for number, term in enumerate(terms):
                frequency = frequencies.get(term)
                if frequency is None:
                    continue  # every posting of it is deleted
                idf = idf_of_frequency[frequency]
                start, end = starts[number], starts[number + 1]
                weights = list(map(mul, map(sublinear.__getitem__, codes[start:end]), repeat(idf)))
                for position, weight in zip(map(mapping.__getitem__, positions[start:end]), weights):
                    if position >= 0:
                        squares[position].append(weight * weight)
        return array("d", (math.sqrt(math.fsum(values)) for values in squares))

    return lengths, vocabulary, array("i", map(frequencies.__getitem__, vocabulary)), norms


def _pass_numpy(numpy, segments: Sequence[Segment], maps: Sequence[array], count: int):
    """``_pass_python`` vectorised: the same lengths and counts, and norms
    from the same products (``sublinear[f] * idf``, then ``w * w``) summed by
    the same ``fsum`` per passage."""
    from regrag.errors import CorruptIndexError

    lengths = numpy.zeros(count, dtype=numpy.float64)
    parts = []
    for segment, mapping in zip(segments, maps):
        terms, starts, positions, codes, values = segment.postings.all_columns(ranges=False)
        local = numpy.asarray(memoryview(positions)).astype(numpy.int64)
        code_array = numpy.asarray(memoryview(codes)).astype(numpy.int64)
        if len(local) and (local.min() < 0 or local.max() >= segment.passage_count):
            raise CorruptIndexError(f"{segment.postings.columns_path}: passage position out of range")
        if len(code_array) and code_array.max() >= len(values):
            raise CorruptIndexError(f"{segment.postings.codes_path}: frequency code out of range")
        global_of = numpy.asarray(memoryview(mapping)).astype(numpy.int64)
        alive = global_of >= 0
        lengths[global_of[alive]] = numpy.asarray(memoryview(segment.lengths))[alive]
        if not len(local):
            continue
        mapped = global_of[local]
        live = mapped >= 0
        starts_array = numpy.asarray(memoryview(starts)).astype(numpy.int64)
        live_counts = numpy.add.reduceat(live.astype(numpy.int64), starts_array[:-1])
        term_of = numpy.repeat(numpy.arange(len(terms)), numpy.diff(starts_array))
        parts.append((terms, live_counts, term_of[live], code_array[live], values, mapped[live]))
    # every segment's terms (each list sorted, so the sort merges runs), once each, in code-point order;
    # a term's number in it is where its segments add their live counts (unique within a segment)
    union = list(dict.fromkeys(sorted(chain.from_iterable(part[0] for part in parts))))
    number_of = dict(zip(union, range(len(union))))
    frequencies = numpy.zeros(len(union), dtype=numpy.int64)
    numbers = []
    for terms, live_counts, *_rest in parts:
        found = numpy.fromiter(map(number_of.__getitem__, terms), dtype=numpy.int64, count=len(terms))
        frequencies[found] += live_counts
        numbers.append(found)
    alive_terms = frequencies > 0  # a term whose every posting is deleted is not in the vocabulary
    vocabulary = list(compress(union, alive_terms.tolist()))
    document_frequencies = array("i", frequencies[alive_terms].tolist())

    def norms(idf_of_frequency: dict[int, float]) -> array:
        idfs = numpy.zeros(len(union), dtype=numpy.float64)  # 0.0 for a dead term: its postings are not live
        if len(idf_of_frequency):
            distinct = numpy.array(sorted(idf_of_frequency), dtype=numpy.int64)
            table = numpy.array([idf_of_frequency[df] for df in distinct.tolist()], dtype=numpy.float64)
            idfs[alive_terms] = table[numpy.searchsorted(distinct, frequencies[alive_terms])]
        found_positions, found_squares = [], []
        for (_terms, _counts, term_of, codes, values, mapped), found in zip(parts, numbers):
            sublinear = numpy.array(_sublinear(values), dtype=numpy.float64)
            weights = sublinear[codes] * idfs[found][term_of]  # sublinear[f] * idf, as the Python path
            found_squares.append(weights * weights)
            found_positions.append(mapped)
        if not found_positions:
            return array("d", bytes(8 * count))
        positions = numpy.concatenate(found_positions)
        # any order within a passage will do (fsum is exact): a radix sort where positions fit 16 bits
        order = numpy.argsort(positions.astype(numpy.uint16), kind="stable") if count <= 65536 \
            else numpy.argsort(positions)
        squares = numpy.concatenate(found_squares)[order].tolist()
        ends = numpy.cumsum(numpy.bincount(positions, minlength=count)).tolist()
        result = array("d")
        start = 0
        for end in ends:
            result.append(math.sqrt(math.fsum(squares[start:end])))
            start = end
        return result

    return array("d", lengths.tobytes()), vocabulary, document_frequencies, norms
