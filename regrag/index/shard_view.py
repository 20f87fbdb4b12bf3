"""One shard of a sharded generation seen as an index of its own passages
that scores with the global statistics (docs/index-format.md, "Sharded
generations", "Searching").

``ShardPostings`` gives, for every term of the global vocabulary, the
shard's postings in local positions with the global N and document
frequency: the same IDFs, impacts and weights as the single index's
postings of those passages (a term the shard lacks has empty postings
with the global IDFs, so a query's TF-IDF norm is the same in every
shard). ``shard_view`` builds the index; ranking each shard's top k and
merging them on (−score, document id, passage number) gives the single
index's top k (``regrag.retrieval.shard_ranking``).
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from regrag.index.build import Postings
from regrag.index.parameters import IndexParameters, bm25_scorer, tfidf_scorer
from regrag.index.postings_table import CACHE_SIZE
from regrag.index.segment_view import CombinedDocuments, Segment
from regrag.index.segmented import SegmentedIndex, assemble
from regrag.scoring.bm25 import bm25_idf
from regrag.scoring.tfidf import sublinear_tf, tfidf_idf
from regrag.text.analyzer import Analyzer


class ShardPostings(Mapping[str, Postings]):
    """Term -> the shard's ``Postings`` (local positions) scored with the global N and df."""

    def __init__(self, vocabulary, document_frequencies: Sequence[int], passage_count: int, segment: Segment,
                 length_norms: Sequence[float], parameters: IndexParameters, average_length: float) -> None:
        self._terms = vocabulary
        self._frequencies = document_frequencies
        self._count = passage_count
        self._segment = segment
        self._length_norms = length_norms
        self._bm25 = bm25_scorer(parameters, average_length)
        self._tfidf = tfidf_scorer(parameters)
        self._sublinear: dict[float, float] = {}
        self._cache: dict[str, Postings] = {}
        self._lock = threading.Lock()

    def __getitem__(self, term: str) -> Postings:
        entry = self.get(term)
        if entry is None:
            raise KeyError(term)
        return entry

    def get(self, term: str, default: Postings | None = None) -> Postings | None:  # type: ignore[override]
        entry = self._cache.get(term)
        if entry is not None:
            return entry
        number = self._terms.number(term)
        if number is None:
            return default
        columns = self._segment.postings.columns(term)
        positions, frequencies = columns if columns is not None else (array("i"), array("d"))
        df = self._frequencies[number]
        bm25, tfidf = bm25_idf(self._count, df), tfidf_idf(self._count, df)
        for value in sorted(set(frequencies).difference(self._sublinear)):
            self._sublinear[value] = sublinear_tf(value)
        entry = Postings(positions, frequencies,
                         array("d", self._bm25.impacts(bm25, positions, frequencies, self._length_norms)),
                         array("d", self._tfidf.weights(frequencies, tfidf, self._sublinear)), bm25, tfidf)
        with self._lock:
            if len(self._cache) >= CACHE_SIZE:
                del self._cache[next(iter(self._cache))]
            self._cache[term] = entry
        return entry

    def __contains__(self, term: object) -> bool:
        return self._terms.number(term) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def __len__(self) -> int:
        return len(self._terms)


@dataclass(frozen=True)
class ShardView:
    """One shard's index (local positions) and the global position of each of its passages."""

    shard: int
    index: SegmentedIndex
    global_positions: array


def shard_view(shard: int, segment: Segment, global_positions: array, norms: tuple[array, array],
               analyzer: Analyzer, parameters: IndexParameters, directory: Path, vocabulary,
               document_frequencies: Sequence[int], passage_count: int, average_length: float, index_id: str,
               corpus_root: str) -> ShardView:
    """The view of shard ``shard`` (one ``segment``, its ``norms``: BM25
    length norms and TF-IDF norms in local order) with the global statistics."""
    deleted = [array("i")]
    combined = CombinedDocuments(directory, [segment], deleted)
    view = assemble(analyzer, parameters, directory, [segment], deleted, combined, vocabulary, document_frequencies,
                    (segment.lengths, norms[0], norms[1]), average_length, index_id, corpus_root)
    view.postings = ShardPostings(vocabulary, document_frequencies, passage_count, segment, norms[0], parameters,
                                  average_length)
    return ShardView(shard, view, global_positions)
