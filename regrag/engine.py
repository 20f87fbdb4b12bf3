"""The public entry point: ``Index``, a thin facade over the layers below it: building
``regrag.index``, ranking ``regrag.retrieval``, answers ``regrag.answer`` (through its ``Searcher``)."""

from __future__ import annotations

from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from regrag._version import __version__
from regrag.corpus.load import Corpus, load_corpus
from regrag.corpus.model import Document, Passage
from regrag.errors import InputError
from regrag.index.build import InvertedIndex, build_index
from regrag.index.document_access import position_identifiers
from regrag.index.parameters import IndexParameters
from regrag.index.update import changes_between, update_index
from regrag.limits import LimitError, Limits, check_query_terms, checked_limits
from regrag.provenance import Hit, RetrieverResult, TermMatch
from regrag.retrieval import hybrid
from regrag.retrieval.entities import EntityCatalog, EntityStep, catalog_for
from regrag.retrieval.filters import coerce_filters
from regrag.retrieval.hits import build_hit
from regrag.retrieval.methods import DEFAULT_RRF_DEPTH, LEXICAL_METHODS
from regrag.retrieval.options import FilterSpec, SearchOptions, check_query, options_from
from regrag.retrieval.passage_text import passage_text
from regrag.retrieval.passages import allowed_positions, analyze_passage, passage_matches, passage_position
from regrag.retrieval.query import AnalyzedQuery, analyze_query
from regrag.retrieval.synonym_query import SynonymSet, expand_query
from regrag.retrieval.ranking import rank
from regrag.retrieval.explanation import explain_position
from regrag.scoring.explain import Explanation
from regrag.text.analyzer import Analyzer
from regrag.text.underthesea_words import word_analyzer

if TYPE_CHECKING:
    from datetime import datetime

    from regrag.answer.extractive import Answer
    from regrag.answer.options import AskOptions
    from regrag.index.directory import IndexStore, PublishedGeneration
    from regrag.index.publishing import Publication

PASSAGE_CACHE_SIZE = 4096  # analysed passages kept for provenance and answers
DEFAULT_CORPUS = Path(__file__).resolve().parent / "data" / "default_corpus"
_EXHAUSTIVE_MOVED = ("exhaustive is no longer a setting of the Index (it is immutable): pass exhaustive=True "
                     "to search, ranking or ask, or SearchOptions(exhaustive=True)")


class Index:
    """An immutable, deterministic index over a corpus of documents.

    What it was made from is fixed when it is made: the data, the ``limits``
    its queries are checked against, the files the corpus loader ``skipped``
    and the stored ``generation`` it was opened from (None otherwise)."""

    def __init__(
        self,
        inverted: InvertedIndex,
        skipped: tuple[tuple[str, str], ...] = (),
        generation: "PublishedGeneration | None" = None,
        limits: Limits | None = None,
    ) -> None:
        self._index = inverted
        self._limits = checked_limits(limits)
        self._skipped = tuple(skipped)
        self._generation = generation
        # caches of derived data (the index they derive from never changes)
        self._passage_ids: tuple[list[str], list[str]] | None = None
        self._catalog: EntityCatalog | None = None
        self._stored_table: Callable[[], Any] | None = None  # Index.open: the generation's entity table
        self._passage_terms = lru_cache(maxsize=PASSAGE_CACHE_SIZE)(partial(analyze_passage, inverted))
        self._matches = lru_cache(maxsize=PASSAGE_CACHE_SIZE)(partial(passage_matches, inverted))

    # construction -------------------------------------------------------
    @classmethod
    def from_documents(cls, documents: Iterable[Document], analyzer: str | Analyzer = "auto",
                       parameters: IndexParameters | None = None, limits: Limits | None = None,
                       progress: Callable[[int, int], None] | None = None,
                       skipped: tuple[tuple[str, str], ...] = (), workers: int = 1) -> "Index":
        """Index the given documents; their order does not matter. ``limits``
        caps the passages (per document and in all) and postings (``LimitError``
        beyond them); the index keeps them for its queries and ``updated``.
        ``progress(done, total)`` is told of each analysed document; ``skipped``
        (the ``(path, reason)`` pairs a corpus loader left out) is kept as is.
        ``workers`` > 1 analyses the documents in that many processes: the
        same index, byte for byte (not part of the index id; docs/performance.md)."""
        from regrag.index.parallel import check_workers

        limits = checked_limits(limits)
        workers = check_workers(workers)
        if isinstance(analyzer, str):
            analyzer = word_analyzer(analyzer)  # a built-in analyzer, or underthesea's words (regrag[vi])
        inverted = build_index(list(documents), analyzer, parameters, limits=limits, progress=progress,
                               workers=workers)
        return cls(inverted, skipped=skipped, limits=limits)

    @classmethod
    def from_path(cls, path: str | Path = DEFAULT_CORPUS, analyzer: str | Analyzer = "auto",
                  parameters: IndexParameters | None = None, limits: Limits | None = None,
                  progress: Callable[[int, int], None] | None = None, workers: int = 1) -> "Index":
        """Load a folder of .md/.txt files, a JSONL file or a BEIR folder and
        index it, both under ``limits`` (which the index keeps); ``workers`` as
        in ``from_documents``."""
        limits = checked_limits(limits)
        corpus: Corpus = load_corpus(path, limits=limits)
        return cls.from_documents(corpus.documents, analyzer, parameters, limits=limits, progress=progress,
                                  skipped=corpus.skipped, workers=workers)

    @classmethod
    def open(cls, directory: str | Path, generation: int | None = None, as_of: "str | datetime | None" = None,
             memory_map: bool = True, limits: Limits | None = None) -> "Index":
        """Open an index directory written by ``save`` (or ``regrag index``):
        its current generation, generation ``generation``, or the one that
        was current at time ``as_of``. Every byte is checked against the
        manifest before use (small files on open, the large ones chunk by
        chunk when first read); damage raises ``CorruptIndexError`` naming
        the file. With ``memory_map`` (the default) documents and postings
        are read in place, parsed only when a query needs them; ``False``
        reads and hashes every file on open (docs/index-format.md).
        ``limits`` apply to its queries and to ``updated``."""
        from regrag.index import entity_files
        from regrag.index.directory import IndexStore

        limits = checked_limits(limits)
        store = IndexStore(directory, memory_map=memory_map)
        entry, inverted = store.load(generation, as_of)
        index = cls(inverted, generation=entry, limits=limits)
        index._stored_table = entity_files.reader(store.generation_path(entry.number), entry, inverted, limits)
        return index

    def save(self, directory: str | Path, keep: int | None = None, **options: Any) -> "PublishedGeneration":
        """Publish this index as a new generation of ``directory`` (created if
        needed), atomically; keep the newest ``keep`` generations (default all).
        ``options`` (``base``, ``protect``, ``limits``, ``allow_clock_skew``):
        as for ``regrag.index.directory.IndexStore.commit``."""
        from regrag.index.directory import IndexStore

        return IndexStore(directory).publish(self._index, __version__, keep=keep, **options)

    def commit_to(self, store: "IndexStore", keep: int | None = None, **options: Any) -> "Publication":
        """``save`` into an open ``IndexStore``, returning what the commit did
        (``Publication``: the generation and the generations pruned)."""
        return store.commit(self._index, __version__, keep=keep, **options)

    def updated(self, upserts: Iterable[Document] = (), deletions: Iterable[str] = (),
                limits: Limits | None = None) -> "Index":
        """A new index with ``upserts`` added (or replacing documents with the
        same id) and ``deletions`` removed; bit-for-bit identical to indexing
        the resulting corpus afresh, but only the changed documents are analysed.
        ``limits`` (default: this index's) apply to the update and are kept.
        The new index has no ``generation`` (it is not published yet) and no
        ``skipped`` files (its new documents were not loaded by it)."""
        limits = self._limits if limits is None else checked_limits(limits)
        return Index(update_index(self._index, list(upserts), list(deletions), limits=limits), limits=limits)

    def changes_to(self, documents: Iterable[Document]) -> tuple[list[Document], list[str]]:
        """What turns this index's corpus into ``documents``: the documents to
        add or replace (new ids, or any field changed) and the ids to delete."""
        return changes_between(self._index, documents)

    # what it was made from --------------------------------------------------
    @property
    def limits(self) -> Limits:
        """The caps this index was built or opened with (``DEFAULT_LIMITS``
        unless the caller gave others); every query check uses them."""
        return self._limits

    @property
    def skipped(self) -> tuple[tuple[str, str], ...]:
        """The ``(path, reason)`` pairs the corpus loader left out (``from_path``)."""
        return self._skipped

    @property
    def generation(self) -> "PublishedGeneration | None":
        """The stored generation this index was opened from (``open``), else None."""
        return self._generation

    def _no_exhaustive(self, _value: bool = False) -> bool:
        raise AttributeError(_EXHAUSTIVE_MOVED)

    exhaustive = property(_no_exhaustive, _no_exhaustive, doc="Moved: a search option (``SearchOptions.exhaustive``).")

    @property
    def corpus_root(self) -> str:
        """Merkle root over (document id, content hash) pairs (docs/merkle.md)."""
        return self._index.corpus_root

    @property
    def index_id(self) -> str:
        """SHA-256 over analyzer identity, parameters and (document id, content hash) pairs."""
        return self._index.index_id

    @property
    def analyzer(self) -> Analyzer:
        return self._index.analyzer

    @property
    def parameters(self) -> IndexParameters:
        return self._index.parameters

    @property
    def document_count(self) -> int:
        return len(self._index.documents)

    @property
    def passage_count(self) -> int:
        return self._index.passage_count

    @property
    def inverted(self) -> InvertedIndex:
        """The underlying data: an escape hatch for tests and benchmarks, not a stable
        API (no module of regrag uses it; answers and pipelines use the methods below)."""
        return self._index

    @property
    def entity_catalog(self) -> EntityCatalog:
        """Entity names from the documents' metadata: the table stored in the
        generation (``Index.open``), else built on first use."""
        if self._catalog is None:
            self._catalog = catalog_for(self._index, self._limits, self._stored_table)
        return self._catalog

    # documents and passages ---------------------------------------------------
    def document(self, document_id: str) -> Document:
        try:
            return self._index.documents[document_id]
        except KeyError:
            raise InputError(f"no document with id {document_id!r}") from None

    def has_document(self, document_id: str) -> bool:
        return document_id in self._index.documents

    def document_language(self, document_id: str) -> str:
        """The language the document's text was analysed as."""
        return self._index.document_languages[document_id]

    def passage(self, position: int) -> Passage:
        """The passage at index position ``position``."""
        return self._index.passages[position]

    def passage_id(self, position: int) -> str:
        return self._identifiers()[1][position]

    def passage_text(self, passage_id: str) -> str:
        """The passage's text, verbatim: ``document.text[start:end]`` of its span (``hit.passage_span``)."""
        return passage_text(self._index, self.position_of(passage_id))

    def content_hashes(self) -> dict[str, str]:
        """Document id -> content hash (what the Merkle root is built over)."""
        return dict(self._index.content_hashes)

    def term_idf(self, term: str) -> float | None:
        """The BM25 IDF of an indexed term; None for a term in no passage."""
        postings = self._index.postings.get(term)
        return None if postings is None else postings.bm25_idf

    def position_of(self, passage_id: str) -> int:
        """The index position of a passage id (``InputError`` if unknown)."""
        return passage_position(self._index, passage_id)

    def filtered_positions(self, filters: FilterSpec) -> frozenset[int] | None:
        """The positions of the passages whose document passes every filter (None
        without filters), with the checks ``search`` makes (e.g. an unknown field)."""
        return allowed_positions(self._index, coerce_filters(filters))

    def passage_terms(self, position: int) -> tuple[tuple[tuple[str, int, int], ...], tuple[tuple[str, int, int], ...]]:
        """Body terms with offsets into the document text, and title terms with offsets into the title (LRU)."""
        return self._passage_terms(position)

    def passage_matches(self, position: int, terms: Iterable[str]) -> tuple[TermMatch, ...]:
        """Where each of ``terms`` occurs in the passage body and title (cached, LRU)."""
        return self._matches(position, tuple(terms))

    def _identifiers(self) -> tuple[list[str], list[str]]:
        """Document ids and passage ids by position, built once (``Passage.id`` formats a string each call)."""
        if self._passage_ids is None:
            self._passage_ids = position_identifiers(self._index)  # type: ignore[assignment]
        return self._passage_ids

    # search -----------------------------------------------------------------
    def search(self, query: str, k: int = 10, method: str = "hybrid", filters: FilterSpec = None,
               rrf_depth: int = DEFAULT_RRF_DEPTH, entities: bool = True, exhaustive: bool = False, *,
               options: SearchOptions | None = None) -> list[Hit]:
        """The top ``k`` passages for ``query``, each with its provenance.

        ``method`` is ``bm25``, ``tfidf`` or ``hybrid`` (RRF of the two, each
        list ``max(k, rrf_depth)`` deep). Filters, and the entity step when
        the query names a known issuer, product or ticker (``entities``), are
        applied before the cut. ``options`` (a ``SearchOptions``) may be given
        instead of the keyword arguments.
        """
        check_query(query, self._limits)
        options = options_from(options, k, method, filters, rrf_depth, entities, exhaustive)
        analyzed, results, step = self._ranked(query, options)
        details = hybrid.retriever_details(results)
        method = options.method
        return [
            self._hit(r, position, score,
                      details[position] if details is not None else (RetrieverResult(method, r, score),),
                      method, analyzed, step)
            for r, (position, score, _lists) in enumerate(results, start=1)
        ]

    def ranking(self, query: str, k: int = 10, method: str = "hybrid", filters: FilterSpec = None,
                rrf_depth: int = DEFAULT_RRF_DEPTH, entities: bool = True, exhaustive: bool = False, *,
                options: SearchOptions | None = None) -> list[tuple[str, str, float]]:
        """The same ranking as ``search`` as bare ``(document id, passage id,
        score)`` triples, without building provenance (for evaluation)."""
        check_query(query, self._limits)
        options = options_from(options, k, method, filters, rrf_depth, entities, exhaustive)
        documents, identifiers = self._identifiers()
        if options.method in LEXICAL_METHODS:  # one retriever: its two result lists, no tuple per result between
            analyzed, allowed, step = self._prepared(query, options)
            (positions, scores), _step = hybrid.ranked_columns(self._index, analyzed, options, allowed, step)
            return list(zip(map(documents.__getitem__, positions), map(identifiers.__getitem__, positions), scores))
        _analyzed, results, _step = self._ranked(query, options)
        return [(documents[p], identifiers[p], score) for p, score, _r in results]

    def rank_positions(self, analyzed: AnalyzedQuery, method: str, k: int, allowed: frozenset[int] | None = None,
                       exhaustive: bool = False) -> list[tuple[int, float]]:
        """One retriever's (``bm25`` or ``tfidf``) top ``k`` (position, score)
        among ``allowed`` (all when None), for callers that fuse their own lists."""
        return rank(self._index, analyzed, method, k, allowed, exhaustive)

    def _ranked(self, query: str, options: SearchOptions):
        analyzed, allowed, step = self._prepared(query, options)
        results, step = hybrid.ranked(self._index, analyzed, options, allowed, step)
        return analyzed, results, step

    def _prepared(self, query: str, options: SearchOptions):
        """What a ranking starts from: the analysed query, the allowed positions, the entity step."""
        options.within(self._limits)
        analyzed = self._analyze_checked(query, options.synonyms)
        allowed = allowed_positions(self._index, options.filters)
        step = hybrid.entity_step(self.entity_catalog, query) if options.entities else None
        return analyzed, allowed, step

    def explain(self, query: str, passage_id: str, synonyms: SynonymSet | None = None) -> Explanation:
        """Per-term BM25 and TF-IDF breakdowns of ``passage_id`` for ``query`` (expanded by ``synonyms``,
        as ``search`` expands it); each sums, in the order shown, to exactly the score ``search`` gives."""
        check_query(query, self._limits)
        position = self.position_of(passage_id)
        analyzed = self._analyze_checked(query, synonyms)
        return explain_position(self._index, query, analyzed, passage_id, position)

    def ask(self, question: str, k: int = 5, method: str = "hybrid", filters: FilterSpec = None,
            max_sentences: int = 3, entities: bool = True, threshold: float | None = None,
            rrf_depth: int = DEFAULT_RRF_DEPTH, exhaustive: bool = False, *,
            options: "AskOptions | None" = None) -> "Answer":
        """An extractive, cited answer with a confidence; refused below
        ``threshold`` (default ``regrag.answer.confidence.REFUSAL_THRESHOLD``).
        ``options`` (an ``AskOptions``) may be given instead of the keyword
        arguments. See ``regrag.answer``."""
        from regrag.answer.extractive import answer_question
        from regrag.answer.options import ask_options_from

        options = ask_options_from(options, self._limits, question, k, method, filters, max_sentences, entities,
                                   threshold, rrf_depth, exhaustive)
        return answer_question(self, question, options)

    # helpers ----------------------------------------------------------------
    def analyze_query(self, query: str) -> AnalyzedQuery:
        """The query's language, distinct terms and counts (limits checked)."""
        check_query(query, self._limits)
        return self._analyze_checked(query)

    def _analyze_checked(self, query: str, synonyms: SynonymSet | None = None) -> AnalyzedQuery:
        """``analyze_query`` (expanded by ``synonyms``), then ``LimitError`` for too many distinct terms."""
        typed = analyze_query(self._index, query)
        check_query_terms(len(typed.terms), self._limits)
        analyzed = expand_query(self._index.analyzer, typed, synonyms)
        check_query_terms(len(analyzed.terms), self._limits, len(typed.terms))
        return analyzed

    def hits(self, query: str, ranked: Iterable[tuple[str, float, tuple[RetrieverResult, ...]]], method: str) -> list[Hit]:
        """Provenance records for passages ranked by a caller (e.g. a pipeline
        fusing dense and lexical lists): ``ranked`` holds (passage id, score,
        retrievers) in rank order; matches, spans and ids are as ``search``
        gives them. The query is analysed once for all of them. More than
        ``limits.k`` entries raise ``LimitError``."""
        check_query(query, self._limits)
        analyzed = self._analyze_checked(query)
        hits = []
        for rank_number, (passage_id, score, retrievers) in enumerate(ranked, start=1):
            if rank_number > self._limits.k:
                raise LimitError(f"more than {self._limits.k:,} ranked passages; the limit is "
                                 f"{self._limits.k:,} (regrag.limits.Limits.k)")
            hits.append(self._hit(rank_number, self.position_of(passage_id), score, retrievers, method, analyzed))
        return hits

    def _hit(self, rank_number: int, position: int, score: float, retrievers: tuple[RetrieverResult, ...],
             method: str, analyzed: AnalyzedQuery, step: EntityStep | None = None) -> Hit:
        return build_hit(self._index, rank_number, position, score, retrievers, method, analyzed,
                         self.passage_matches(position, analyzed.terms), step)

