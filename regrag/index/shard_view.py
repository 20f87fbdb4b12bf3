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

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from regrag.index.build import Postings
from regrag.index.parameters import IndexParameters, bm25_scorer, tfidf_scorer
from regrag.index.postings_cache import CachedPostings
from regrag.index.postings_table import scored_postings
from regrag.index.segment_view import CombinedDocuments, Segment
from regrag.index.segmented import SegmentedIndex, assemble
from regrag.text.analyzer import Analyzer


class ShardPostings(CachedPostings):
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
        super().__init__()

    def _made(self, term: str) -> Postings | None:
        number = self._terms.number(term)
        if number is None:
            return None
        columns = self._segment.postings.columns(term)
        positions, frequencies = columns if columns is not None else (array("i"), array("d"))
        return self._remember(term, scored_postings(positions, frequencies, self._count, self._length_norms,
                                                    self._bm25, self._tfidf, self._sublinear,
                                                    document_frequency=self._frequencies[number]))


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
