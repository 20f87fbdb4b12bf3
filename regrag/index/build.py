"""Build the in-memory inverted index over passages.

Passages are kept sorted by (document id, passage number), so a passage's
position in that list is also its place in the tie-break order. Postings list
passage positions in ascending order with the title-weighted term frequency.
Per-posting BM25 impacts and TF-IDF weights are computed once here, with the
scorers of ``regrag.scoring`` (one batch call per term) that ``explain`` also
uses, so scores and explanations agree bit for bit.
"""

from __future__ import annotations

import math
from array import array
from operator import itemgetter
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from regrag.audit.canonical import sha256_hex
from regrag.audit.merkle import merkle_root
from regrag.corpus.model import Document, Passage
from regrag.corpus.passages import split_passages
from regrag.errors import InputError
from regrag.index.parameters import IndexParameters, bm25_scorer, tfidf_scorer
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits
from regrag.scoring.bm25 import bm25_idf
from regrag.scoring.fields import weighted_count, weighted_frequencies
from regrag.scoring.tfidf import sublinear_table, tfidf_idf
from regrag.index.term_scores import term_scores
from regrag.index.analysis import RangeAnalysis, analyze_range, merge_ranges, passage_term_counts
from regrag.text.analyzer import Analyzer, clear_piece_cache

INDEX_FORMAT_VERSION = "1"


@dataclass
class Postings:
    """One term's postings: passage positions, weighted tf, and precomputed scores."""

    # arrays when built in memory; zero-copy slices of the column files when
    # loaded from an index directory (regrag.index.postings_table)
    passages: Sequence[int]
    frequencies: Sequence[float]
    bm25_impacts: Sequence[float] = field(default_factory=lambda: array("d"))
    tfidf_weights: Sequence[float] = field(default_factory=lambda: array("d"))
    bm25_idf: float = 0.0
    tfidf_idf: float = 0.0
    # filled on first use by pruning (regrag.scoring.pruning)
    max_bm25_impact: float | None = None
    max_tfidf_ratio: float | None = None
    # the numpy kernel's array views of the columns, made on first use (regrag.scoring.vector_kernel.columns)
    vector_columns: dict | None = field(default=None, compare=False, repr=False)


@dataclass
class InvertedIndex:
    """Everything search needs, derived deterministically from the inputs."""

    analyzer: Analyzer
    parameters: IndexParameters
    documents: dict[str, Document]
    passages: list[Passage]
    passage_languages: list[str]
    lengths: array
    average_length: float
    length_norms: array
    postings: Mapping[str, Postings]
    tfidf_norms: array
    index_id: str
    document_languages: dict[str, str]
    content_hashes: dict[str, str] = field(default_factory=dict)
    corpus_root: str = ""

    @property
    def passage_count(self) -> int:
        return len(self.passages)


def compute_index_id(analyzer: Analyzer, parameters: IndexParameters, documents: list[Document]) -> str:
    """SHA-256 over the canonical analyzer identity, parameters and sorted (id, content hash) pairs."""
    leaves = [(d.id, d.content_hash()) for d in sorted(documents, key=lambda d: d.id)]
    return index_id_from_hashes(analyzer, parameters, leaves)


def index_id_from_hashes(analyzer: Analyzer, parameters: IndexParameters, leaves: list[tuple[str, str]]) -> str:
    """The index id from (document id, content hash) pairs sorted by id."""
    return sha256_hex(
        {
            "analyzer": analyzer.identity(),
            "documents": [[key, digest] for key, digest in leaves],
            "format": INDEX_FORMAT_VERSION,
            "parameters": parameters.to_dict(),
        }
    )


def streamed_index_id(analyzer: Analyzer, parameters: IndexParameters, leaves) -> str:
    """``index_id_from_hashes`` hashing the canonical JSON piece by piece
    (the same bytes: the keys are written in their sorted order), so ten
    million documents never become one string and a list of lists."""
    import hashlib

    from regrag.audit.canonical import canonical_bytes

    digest = hashlib.sha256(b'{"analyzer":' + canonical_bytes(analyzer.identity()) + b',"documents":[')
    separator = b""
    for pair in leaves:
        digest.update(separator + canonical_bytes(list(pair)))
        separator = b","
    digest.update(b'],"format":' + canonical_bytes(INDEX_FORMAT_VERSION) + b',"parameters":'
                  + canonical_bytes(parameters.to_dict()) + b"}")
    return digest.hexdigest()


@dataclass(frozen=True)
class AnalyzedDocument:
    """One document as indexing sees it: its language, its passages, and each
    passage's weighted length and (term, weighted frequency) pairs sorted by
    term. Everything an index holds is assembled from these records, so a
    record recovered from an index and one recomputed from the text are
    interchangeable (that is what makes incremental updates exact)."""

    document: Document
    language: str
    passages: tuple[Passage, ...]
    lengths: tuple[float, ...]
    # per passage: its terms (sorted) and their weighted frequencies, side by
    # side (a tuple of strings and a float array: compact at scale)
    terms: tuple[tuple[tuple[str, ...], array], ...]


def analyze_document(
    document: Document,
    analyzer: Analyzer,
    parameters: IndexParameters,
    title_cache: dict[tuple[str, str], Counter] | None = None,
    limits: Limits | None = None,
) -> AnalyzedDocument:
    """Split ``document`` into passages (at most ``limits.passages_per_document``)
    and count each passage's terms."""
    weight = parameters.title_weight
    language = analyzer.language_of(document.title + "\n" + document.text)
    passages = tuple(split_passages(document, parameters.max_passage_chars, limits or DEFAULT_LIMITS))
    lengths: list[float] = []
    terms: list[tuple[tuple[str, ...], array]] = []
    for passage in passages:
        body, title = passage_term_counts(document, passage, language, analyzer, title_cache)
        lengths.append(weighted_count(sum(body.values()), sum(title.values()), weight))
        terms.append(weighted_frequencies(body, title, weight))
    return AnalyzedDocument(document, language, passages, tuple(lengths), tuple(terms))


def build_index(
    documents: list[Document] | tuple[Document, ...],
    analyzer: Analyzer | None = None,
    parameters: IndexParameters | None = None,
    limits: Limits | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> InvertedIndex:
    """Index ``documents`` (in any order: the result depends only on their content).
    ``LimitError`` beyond ``limits.passages_per_document``, ``index_passages``
    or ``index_postings``. ``progress(done, total)`` is called as documents are
    analysed (for the CLI's progress line; it cannot change the result).
    ``workers`` > 1 analyses contiguous ranges of the id-sorted documents in
    that many processes (``regrag.index.parallel``); the bytes are the same."""
    analyzer = analyzer or Analyzer()
    parameters = parameters or IndexParameters()
    limits = limits or DEFAULT_LIMITS
    by_id = unique_documents(documents, limits)
    ordered = [by_id[key] for key in sorted(by_id)]
    del by_id
    passages = [tuple(split_passages(document, parameters.max_passage_chars, limits)) for document in ordered]
    check_index_size(sum(map(len, passages)), 0, limits)  # before int32 positions could overflow
    if workers > 1 and len(ordered) > 1:
        from regrag.index.parallel import analyze_in_workers

        ranges = analyze_in_workers(ordered, passages, analyzer, parameters, workers, progress)
    else:
        done = itertools.count(1)
        tell = None if progress is None else (lambda: progress(next(done), len(ordered)))
        ranges = [analyze_range(ordered, passages, 0, analyzer, parameters, tell)]
    clear_piece_cache()  # its job is done; assembly is the memory peak, so make room
    check_index_size(sum(map(len, passages)), sum(analysed.posting_count for analysed in ranges), limits)
    return assemble_ranges(ordered, passages, ranges, analyzer, parameters, limits)


def unique_documents(documents, limits: Limits | None = None) -> dict[str, Document]:
    """Documents by id; a repeated id is an ``InputError``, an id longer than
    ``limits.document_id_bytes`` a ``LimitError`` (documents built by a caller, not a loader)."""
    from regrag.corpus.checks import id_length_error
    from regrag.jsonl import printable

    limits = limits or DEFAULT_LIMITS
    by_id: dict[str, Document] = {}
    for document in documents:
        too_long = id_length_error(document.id, f"{printable(document.source[:200])}: document '{printable(document.id[:40])}…': field 'id'", limits)
        if too_long is not None:
            raise too_long
        if document.id in by_id:
            raise InputError(f"duplicate document id {document.id!r}")
        by_id[document.id] = document
    return by_id


def checked_changes(
    index: "InvertedIndex", upserts, deletions, limits: Limits | None = None,
) -> tuple[dict[str, Document], set[str]]:
    """An update's upserts by id and its deletions, checked against ``index``
    (what both update paths, one segment or many, accept)."""
    changed = unique_documents(upserts, limits)
    removed = set(deletions)
    for document_id in sorted(removed):
        if document_id not in index.documents:
            raise InputError(f"cannot delete {document_id!r}: no document with that id in the index")
        if document_id in changed:
            raise InputError(f"document {document_id!r} is both replaced and deleted")
    return changed, removed


def assemble_ranges(
    documents: list[Document],
    passages: list[tuple[Passage, ...]],
    ranges: list[RangeAnalysis],
    analyzer: Analyzer,
    parameters: IndexParameters,
    limits: Limits | None = None,
) -> InvertedIndex:
    """The index of id-sorted ``documents`` with their ``passages``, analysed
    in contiguous ``ranges`` (consumed: emptied as they are used). Corpus-wide
    numbers are computed by ``finish_index``, which incremental updates share,
    so a fresh build and an update give the same bytes."""
    languages = [language for analysed in ranges for language in analysed.languages]
    document_languages = {document.id: language for document, language in zip(documents, languages)}
    all_passages = [passage for document_passages in passages for passage in document_passages]
    passage_languages = [language for language, document_passages in zip(languages, passages)
                         for _passage in document_passages]
    lengths = array("d")
    for analysed in ranges:
        lengths.extend(analysed.lengths)
    hashes = {document.id: digest for document, digest in
              zip(documents, (digest for analysed in ranges for digest in analysed.content_hashes))}
    term_postings = merge_ranges(ranges)
    return finish_index(
        analyzer, parameters, {document.id: document for document in documents}, document_languages, all_passages,
        passage_languages, lengths, term_postings, ranges, hashes, limits,
    )


def append_passages(
    record: AnalyzedDocument, passages: list[Passage], passage_languages: list[str], lengths: array
) -> Iterator[tuple[int, tuple[str, ...], array]]:
    """Append ``record``'s passages, languages and lengths; yield each passage's
    new position with its terms and weighted frequencies (for its postings)."""
    for passage, length, (terms, frequencies) in zip(record.passages, record.lengths, record.terms):
        position = len(passages)
        passages.append(passage)
        passage_languages.append(record.language)
        lengths.append(length)
        yield position, terms, frequencies


INT32_MAX = 2**31 - 1  # passage positions and document frequencies are stored as int32


def check_index_size(passages: int, postings: int, limits: Limits | None = None) -> None:
    """``LimitError`` when an index would hold more passages or postings than
    ``limits`` (default ``DEFAULT_LIMITS``) allow, or than int32 storage holds."""
    limits = limits or DEFAULT_LIMITS
    for count, name in ((passages, "index_passages"), (postings, "index_postings")):
        cap = min(getattr(limits, name), INT32_MAX)
        if count > cap:
            raise LimitError(f"the index would hold {count:,} {name[6:]}; the limit is {cap:,} "
                             f"(regrag.limits.Limits.{name}; the index format stores them as 32-bit integers)")


def finish_index(
    analyzer: Analyzer,
    parameters: IndexParameters,
    documents: dict[str, Document],
    document_languages: dict[str, str],
    passages: list[Passage],
    passage_languages: list[str],
    lengths: array,
    term_postings: dict[str, tuple[array, array]],
    passage_terms: list[RangeAnalysis] | None,
    known_hashes: dict[str, str],
    limits: Limits | None = None,
) -> InvertedIndex:
    """Everything corpus-wide, from passages in tie order and each term's
    ascending positions and weighted frequencies (``term_postings`` is
    emptied). ``passage_terms`` (the build's analysed ranges, consumed)
    speeds up the TF-IDF norms; without them they are summed from the
    postings (``fsum``: the same value)."""
    check_index_size(len(passages), sum(map(len, map(itemgetter(0), term_postings.values()))), limits)
    count = len(passages)
    average_length = math.fsum(lengths) / count if count else 0.0
    if average_length <= 0.0:
        average_length = 1.0
    bm25 = bm25_scorer(parameters, average_length)
    tfidf = tfidf_scorer(parameters)
    length_norms = bm25.length_norms(lengths)
    distinct_frequencies: set[float] = set()
    if passage_terms is not None:  # the same frequencies as the postings', passage-major: a few long arrays
        for analysed in passage_terms:
            distinct_frequencies.update(analysed.term_frequencies)
    else:
        any(map(distinct_frequencies.update, map(itemgetter(1), term_postings.values())))
    sublinear = sublinear_table(distinct_frequencies)
    terms = sorted(term_postings)
    columns = list(map(term_postings.__getitem__, terms))
    term_postings.clear()  # the arrays now belong to the postings
    positions = list(map(itemgetter(0), columns))
    frequencies = list(map(itemgetter(1), columns))
    del columns
    document_frequencies = list(map(len, positions))
    distinct = sorted(set(document_frequencies))  # few: one IDF call each, then lookups in C
    bm25_by_frequency = dict(zip(distinct, (bm25_idf(count, df) for df in distinct)))
    tfidf_by_frequency = dict(zip(distinct, (tfidf_idf(count, df) for df in distinct)))
    bm25_idfs = list(map(bm25_by_frequency.__getitem__, document_frequencies))
    tfidf_idfs = list(map(tfidf_by_frequency.__getitem__, document_frequencies))
    weight_idfs = dict(zip(terms, tfidf_idfs))
    # Each passage's TF-IDF norm, first (the passages' term lists are then
    # freed before the impacts and weights double the postings): the same
    # weights as in the postings, and fsum does not depend on their order.
    if passage_terms is not None:
        tfidf_norms = array("d")
        while passage_terms:
            analysed = passage_terms.pop(0)
            idfs = list(map(weight_idfs.__getitem__, analysed.vocabulary))  # by term id
            tfidf_norms.extend(tfidf.norm(tfidf.passage_weights(ids, frequencies, idfs, sublinear))
                               for ids, frequencies in analysed.passage_terms())
            del analysed
    del weight_idfs
    # one batch call per distinct document frequency (regrag.index.term_scores): a call per term would
    # dominate indexing time on a large vocabulary, and one per posting even more so
    impacts, weights = term_scores(positions, frequencies, bm25_by_frequency, tfidf_by_frequency, bm25, tfidf,
                                   length_norms, sublinear)
    postings: dict[str, Postings] = dict(zip(terms, map(Postings, positions, frequencies, impacts, weights,
                                                        bm25_idfs, tfidf_idfs)))
    del positions, frequencies, impacts, weights
    if passage_terms is None:
        passage_weights: list[list[float]] = [[] for _ in range(count)]
        for entry in postings.values():
            for position, value in zip(entry.passages, entry.tfidf_weights):
                passage_weights[position].append(value)
        tfidf_norms = array("d", (tfidf.norm(values) for values in passage_weights))
    hashes = {key: known_hashes.get(key) or documents[key].content_hash() for key in documents}
    leaves = [(key, hashes[key]) for key in sorted(documents)]
    return InvertedIndex(
        analyzer=analyzer,
        parameters=parameters,
        documents=documents,
        passages=passages,
        passage_languages=passage_languages,
        lengths=lengths,
        average_length=average_length,
        length_norms=length_norms,
        postings=postings,
        tfidf_norms=tfidf_norms,
        index_id=index_id_from_hashes(analyzer, parameters, leaves),
        document_languages=document_languages,
        content_hashes=hashes,
        corpus_root=merkle_root(leaves),
    )
