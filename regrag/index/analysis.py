"""Analysis of one contiguous range of the id-sorted documents into compact
partial postings: what a build worker computes and sends back.

A range's passages have consecutive positions from ``first_position`` (the
passages of the documents before it), so its postings already hold their
final positions; the postings of a corpus are those of its ranges
concatenated in range order (``merge_ranges``), whatever the ranges are. That
is what makes ``--workers N`` give the same bytes as one process.

Besides the postings (term-major), a range keeps each passage's terms as
ids into its vocabulary with their weighted frequencies (passage-major, for
the TF-IDF norms, which need every IDF first): two flat arrays, 12 bytes a
posting, where a tuple of strings and an array per passage cost about twice
that. Everything is arrays of machine numbers, sent between processes as
their raw bytes (``to_bytes``/``from_bytes``; no pickle of anything read
from disk: these bytes never leave the build).
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, count, repeat
from operator import mul

from regrag.corpus.model import Document, Passage
from regrag.index.id_counts import IdCounter
from regrag.index.parameters import IndexParameters
from regrag.scoring.fields import weighted_count, weighted_frequencies
from regrag.text.analyzer import Analyzer


@dataclass(frozen=True)
class RangeAnalysis:
    """One range of documents analysed: per document its language; per
    passage its weighted length; per term of the range (ids in order of first
    occurrence, which only index ``vocabulary``) its postings; per passage its
    term ids and weighted frequencies, sorted by id (what reads them, the
    TF-IDF norms, is order-free: ``fsum``), between ``term_offsets[i]`` and
    ``term_offsets[i + 1]``."""

    languages: tuple[str, ...]
    lengths: array  # 'd'
    vocabulary: tuple[str, ...]
    positions: tuple[array, ...]  # 'i', per term id: ascending passage positions
    frequencies: tuple[array, ...]  # 'd', per term id, beside positions
    term_ids: array  # 'i', passage-major
    term_frequencies: array  # 'd', passage-major
    term_offsets: array  # 'q', one more than the passages
    content_hashes: tuple[str, ...] = ()  # per document, when computed with the analysis

    @property
    def posting_count(self) -> int:
        return len(self.term_ids)

    def passage_terms(self) -> Iterator[tuple[array, array]]:
        """Each passage's term ids and weighted frequencies."""
        ids, frequencies, offsets = self.term_ids, self.term_frequencies, self.term_offsets
        for start, end in zip(offsets, offsets[1:]):
            yield ids[start:end], frequencies[start:end]


def passage_term_counts(
    document: Document,
    passage: Passage,
    language: str,
    analyzer: Analyzer,
    title_cache: dict[tuple[str, str], Counter] | None = None,
) -> tuple[Counter, Counter]:
    """Body and title term counts of one passage: what indexing counts and
    ``explain`` recounts. ``title_cache`` saves analysing a shared title again."""
    body = analyzer.term_counts(document.text[passage.start : passage.end], language)
    key = (passage.title, language)
    title = title_cache.get(key) if title_cache is not None else None
    if title is None:
        title = analyzer.term_counts(passage.title, language)
        if title_cache is not None:
            title_cache[key] = title
    return body, title


def analyze_range(
    documents: Sequence[Document],
    passages: Sequence[Sequence[Passage]],
    first_position: int,
    analyzer: Analyzer,
    parameters: IndexParameters,
    progress: Callable[[], None] | None = None,
    with_hashes: bool = False,
    max_bytes: int | None = None,
) -> RangeAnalysis:
    """Analyse ``documents`` (id-sorted, with their ``passages``), whose first
    passage has position ``first_position`` in the whole index. Each passage's
    terms are counted by ``IdCounter`` (the counts of ``passage_term_counts``,
    the code ``explain`` recounts with, keyed by term id) and weighted by
    ``weighted_frequencies``, as ``build.analyze_document`` (incremental
    updates) does. ``progress()`` is
    called after each document; ``with_hashes`` computes each document's
    content hash too (in a worker, where it runs in parallel). With
    ``max_bytes``, the analysis stops after the first document at which the
    buffered analysis (``buffered_bytes``) reaches it: the range is then the
    documents analysed (``len(result.languages)``), at least one; the
    bounded build (``regrag.index.bounded_build``) spills it and goes on."""
    weight = parameters.title_weight
    title_cache: dict[tuple[str, str], Counter] = {}
    term_id = defaultdict(count().__next__)  # a new term gets the next id, in C
    counter = IdCounter(analyzer, term_id.__getitem__)
    languages: list[str] = []
    lengths = array("d")
    term_ids = array("i")
    term_frequencies = array("d")
    term_counts = array("q")
    hashes: list[str] = []
    for document, document_passages in zip(documents, passages):
        language = analyzer.language_of(document.title + "\n" + document.text)
        languages.append(language)
        if with_hashes:
            hashes.append(document.content_hash())
        text = document.text
        for passage in document_passages:
            body = counter.counts(text[passage.start : passage.end], language)
            key = (passage.title, language)
            title = title_cache.get(key)
            if title is None:
                title = title_cache[key] = counter.counts(passage.title, language)
            lengths.append(weighted_count(sum(body.values()), sum(title.values()), weight))
            ids, frequencies = weighted_frequencies(body, title, weight)  # sorted by id
            term_ids.extend(ids)
            term_frequencies.extend(frequencies)
            term_counts.append(len(ids))
        if progress is not None:
            progress()
        if max_bytes is not None and buffered_bytes(len(term_ids), len(term_id)) >= max_bytes:
            break
    vocabulary = tuple(sorted(term_id, key=term_id.__getitem__))  # in id order
    offsets = array("q", accumulate(term_counts, initial=0))
    # The postings, term-major, in one pass over the passages once analysed (a
    # separate tight loop: appends interleaved with the analysis cost 4 times as much)
    by_id_positions = [array("i") for _term in vocabulary]
    by_id_frequencies = [array("d") for _term in vocabulary]
    append = array.append
    for position, start, end in zip(range(first_position, first_position + len(term_counts)), offsets, offsets[1:]):
        ids = term_ids[start:end]
        any(map(append, map(by_id_positions.__getitem__, ids), repeat(position)))  # one append per posting, in C
        any(map(append, map(by_id_frequencies.__getitem__, ids), term_frequencies[start:end]))
    if not all(by_id_positions):  # title-only terms under title weight 0: ids given, no posting
        vocabulary, by_id_positions, by_id_frequencies, term_ids = _without_empty_terms(
            vocabulary, by_id_positions, by_id_frequencies, term_ids)
    return RangeAnalysis(tuple(languages), lengths, vocabulary, tuple(by_id_positions), tuple(by_id_frequencies),
                         term_ids, term_frequencies, offsets, tuple(hashes))


def _without_empty_terms(vocabulary: tuple[str, ...], positions: list[array], frequencies: list[array],
                         term_ids: array) -> tuple[tuple[str, ...], list[array], list[array], array]:
    """The range's terms that have postings, renumbered in the same order
    (``IdCounter`` numbers every term it counts, also one whose weighted
    frequency is 0 and so never posted; the index keeps no such term)."""
    kept = [number for number, column in enumerate(positions) if column]
    renumbered = {old: new for new, old in enumerate(kept)}
    return (tuple(vocabulary[number] for number in kept), [positions[number] for number in kept],
            [frequencies[number] for number in kept], array("i", map(renumbered.__getitem__, term_ids)))


# What the analysis of a range holds, estimated for the memory budget: per
# posting 12 bytes passage-major (term id, frequency) and 12 term-major
# (position, frequency, built once the range is analysed); per distinct term
# its string, its dictionary entry and two arrays (measured: about 250 bytes
# for short terms).
POSTING_BYTES = 24
TERM_BYTES = 250


def buffered_bytes(postings: int, terms: int) -> int:
    """The estimated memory of a range's analysis with ``postings`` postings and ``terms`` distinct terms."""
    return POSTING_BYTES * postings + TERM_BYTES * terms


def merge_ranges(ranges: Sequence[RangeAnalysis]) -> dict[str, tuple[array, array]]:
    """Each term's positions and weighted frequencies over all ``ranges``
    (in range order, so positions stay ascending): the single-process
    assembly, bit for bit. The ranges' arrays are reused (extended), not copied."""
    if not ranges:
        return {}
    first = ranges[0]
    merged = dict(zip(first.vocabulary, zip(first.positions, first.frequencies)))  # in C
    get = merged.get
    for analysed in ranges[1:]:
        for term, positions, frequencies in zip(analysed.vocabulary, analysed.positions, analysed.frequencies):
            found = get(term)
            if found is None:
                merged[term] = (positions, frequencies)
            else:
                found[0].extend(positions)
                found[1].extend(frequencies)
    return merged


# Transfer between processes: a small header and raw array bytes.

def to_bytes(analysed: RangeAnalysis) -> tuple:
    """``analysed`` as strings and raw array bytes (the per-term arrays joined,
    with their lengths), cheap to send through a pipe."""
    lengths = array("q", map(len, analysed.positions))
    return (
        analysed.languages,
        analysed.content_hashes,
        analysed.vocabulary,
        analysed.lengths.tobytes(),
        lengths.tobytes(),
        b"".join(map(array.tobytes, analysed.positions)),
        b"".join(map(array.tobytes, analysed.frequencies)),
        analysed.term_ids.tobytes(),
        analysed.term_frequencies.tobytes(),
        analysed.term_offsets.tobytes(),
    )


def _array(typecode: str, data) -> array:
    values = array(typecode)
    values.frombytes(data)
    return values


def _arrays(typecode: str, data: bytes, ends: list[int]) -> tuple[array, ...]:
    """The arrays of ``typecode`` stored back to back in ``data``, the i-th
    ending at item ``ends[i + 1]`` (``ends[0]`` is 0): one C call each, no loop in bytecode."""
    size = array(typecode).itemsize
    bounds = map(slice, map(mul, ends, repeat(size)), map(mul, ends[1:], repeat(size)))
    return tuple(map(array, repeat(typecode), map(data.__getitem__, bounds)))


def from_bytes(sent: tuple) -> RangeAnalysis:
    """The ``RangeAnalysis`` that ``to_bytes`` sent."""
    (languages, hashes, vocabulary, lengths, sizes, positions, frequencies, term_ids, term_frequencies,
     offsets) = sent
    ends = list(accumulate(_array("q", sizes), initial=0))
    return RangeAnalysis(
        tuple(languages), _array("d", lengths), tuple(vocabulary), _arrays("i", positions, ends),
        _arrays("d", frequencies, ends), _array("i", term_ids), _array("d", term_frequencies), _array("q", offsets),
        tuple(hashes),
    )
