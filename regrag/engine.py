"""The public entry point: ``Index``.

>>> index = Index.from_path("corpus/")          # doctest: +SKIP
>>> hits = index.search("annual fee", k=5)      # doctest: +SKIP
"""

from __future__ import annotations

import bisect
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from regrag.corpus.load import Corpus, load_corpus
from regrag.corpus.model import Document
from regrag.entities import EntityCatalog, EntityStep
from regrag.errors import InputError
from regrag.filters import Filter, coerce_filters
from regrag.fusion import reciprocal_rank_fusion
from regrag.index.build import InvertedIndex, build_index
from regrag.index.parameters import IndexParameters
from regrag.index.statistics import index_scorers, passage_statistics, term_statistics
from regrag.index.update import update_index
from regrag.limits import DEFAULT_LIMITS, LimitError, Limits, check_query_length, check_query_terms, check_search_depth
from regrag.provenance import Hit, RetrieverResult, TermMatch
from regrag.retrieve import AnalyzedQuery, analyze_query, rank, tfidf_query_weights
from regrag.scoring.explain import Explanation, explain_bm25, explain_tfidf
from regrag.text.analyzer import Analyzer

if TYPE_CHECKING:
    from datetime import datetime

    from regrag.answer import Answer
    from regrag.index.store import Generation

METHODS = ("bm25", "tfidf", "hybrid")
DEFAULT_RRF_DEPTH = 100
PASSAGE_CACHE_SIZE = 4096  # analysed passages kept for provenance and answers
DEFAULT_CORPUS = Path(__file__).resolve().parent / "data" / "default_corpus"


class Index:
    """An immutable, deterministic index over a corpus of documents."""

    def __init__(
        self,
        inverted: InvertedIndex,
        skipped: tuple[tuple[str, str], ...] = (),
        generation: "Generation | None" = None,
        limits: Limits | None = None,
    ) -> None:
        self._index = inverted
        self._limits = _checked_limits(limits)
        self.skipped = skipped
        self.generation = generation  # set when opened from an index directory
        self._passage_ids: tuple[list[str], list[str]] | None = None
        # True: score every posting (no rank-safe pruning); results are the same bits either way
        self.exhaustive = False
        self._catalog: EntityCatalog | None = None
        self._passage_terms = lru_cache(maxsize=PASSAGE_CACHE_SIZE)(self._analyze_passage)

    @property
    def entity_catalog(self) -> EntityCatalog:
        """Entity names from the documents' metadata (built on first use)."""
        if self._catalog is None:
            self._catalog = EntityCatalog([self._index.documents[key] for key in sorted(self._index.documents)],
                                          self._index, self._limits)
        return self._catalog

    # construction -------------------------------------------------------
    @classmethod
    def from_documents(
        cls,
        documents: Iterable[Document],
        analyzer: str | Analyzer = "auto",
        parameters: IndexParameters | None = None,
        limits: Limits | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> "Index":
        """Index the given documents; their order does not matter. ``limits``
        caps the passages (per document and in all) and postings (``LimitError``
        beyond them); the index keeps them for its queries and ``updated``.
        ``progress(done, total)`` is told of each analysed document."""
        limits = _checked_limits(limits)
        if isinstance(analyzer, str):
            analyzer = Analyzer(analyzer)
        return cls(build_index(list(documents), analyzer, parameters, limits=limits, progress=progress), limits=limits)

    @classmethod
    def from_path(
        cls,
        path: str | Path = DEFAULT_CORPUS,
        analyzer: str | Analyzer = "auto",
        parameters: IndexParameters | None = None,
        limits: Limits | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> "Index":
        """Load a folder of .md/.txt files, a JSONL file or a BEIR folder and
        index it, both under ``limits`` (which the index keeps)."""
        limits = _checked_limits(limits)
        corpus: Corpus = load_corpus(path, limits=limits)
        index = cls.from_documents(corpus.documents, analyzer, parameters, limits=limits, progress=progress)
        index.skipped = corpus.skipped
        return index

    @classmethod
    def open(
        cls,
        directory: str | Path,
        generation: int | None = None,
        as_of: "str | datetime | None" = None,
        memory_map: bool = True,
        limits: Limits | None = None,
    ) -> "Index":
        """Open an index directory written by ``save`` (or ``regrag index``):
        its current generation, generation ``generation``, or the one that
        was current at time ``as_of``. Every file's size and SHA-256 are
        checked first; damage raises ``CorruptIndexError`` naming the file.
        With ``memory_map`` (the default) the posting columns are read in
        place from the verified files instead of copied into memory.
        ``limits`` apply to its queries and to ``updated``."""
        from regrag.index.store import IndexStore

        limits = _checked_limits(limits)
        entry, inverted = IndexStore(directory, memory_map=memory_map).load(generation, as_of)
        return cls(inverted, generation=entry, limits=limits)

    def save(self, directory: str | Path, keep: int | None = None, **options: Any) -> "Generation":
        """Publish this index as a new generation of ``directory`` (created if
        needed), atomically; keep the newest ``keep`` generations (default all).
        ``options`` (``base``, ``protect``, ``limits``, ``allow_clock_skew``):
        as for ``regrag.index.store.IndexStore.commit``."""
        from regrag import __version__
        from regrag.index.store import IndexStore

        return IndexStore(directory).publish(self._index, __version__, keep=keep, **options)

    def updated(self, upserts: Iterable[Document] = (), deletions: Iterable[str] = (),
                limits: Limits | None = None) -> "Index":
        """A new index with ``upserts`` added (or replacing documents with the
        same id) and ``deletions`` removed; bit-for-bit identical to indexing
        the resulting corpus afresh, but only the changed documents are analysed.
        ``limits`` (default: this index's) apply to the update and are kept."""
        limits = self._limits if limits is None else _checked_limits(limits)
        return Index(update_index(self._index, list(upserts), list(deletions), limits=limits), limits=limits)

    def changes_to(self, documents: Iterable[Document]) -> tuple[list[Document], list[str]]:
        """What turns this index's corpus into ``documents``: the documents to
        add or replace (new ids, or any field changed) and the ids to delete."""
        current = self._index.documents
        wanted: dict[str, Document] = {}
        for document in documents:
            if document.id in wanted:
                raise InputError(f"duplicate document id {document.id!r}")
            wanted[document.id] = document
        upserts = [wanted[key] for key in sorted(wanted) if current.get(key) != wanted[key]]
        deletions = [key for key in sorted(current) if key not in wanted]
        return upserts, deletions

    # properties -----------------------------------------------------------
    @property
    def limits(self) -> Limits:
        """The caps this index was built or opened with (``DEFAULT_LIMITS``
        unless the caller gave others); every query check uses them."""
        return self._limits

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
        """The underlying data (for tools and tests; not a stable API)."""
        return self._index

    def document(self, document_id: str) -> Document:
        try:
            return self._index.documents[document_id]
        except KeyError:
            raise InputError(f"no document with id {document_id!r}") from None

    # search -----------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        method: str = "hybrid",
        filters: Iterable[Filter | str] | Mapping[str, str] | None = None,
        rrf_depth: int = DEFAULT_RRF_DEPTH,
        entities: bool = True,
    ) -> list[Hit]:
        """The top ``k`` passages for ``query``, each with its provenance.

        ``method`` is ``bm25``, ``tfidf`` or ``hybrid`` (RRF of the two, each
        list ``max(k, rrf_depth)`` deep). Filters, and the entity step when
        the query names a known issuer, product or ticker (``entities``), are
        applied before the cut.
        """
        analyzed, results, step = self._ranked(query, k, method, filters, rrf_depth, entities)
        details = self._retriever_details(results)
        return [
            self._hit(r, position, score,
                      details[position] if details is not None else (RetrieverResult(method, r, score),),
                      method, analyzed, step)
            for r, (position, score, _lists) in enumerate(results, start=1)
        ]

    def ranking(
        self,
        query: str,
        k: int = 10,
        method: str = "hybrid",
        filters: Iterable[Filter | str] | Mapping[str, str] | None = None,
        rrf_depth: int = DEFAULT_RRF_DEPTH,
        entities: bool = True,
    ) -> list[tuple[str, str, float]]:
        """The same ranking as ``search`` as bare ``(document id, passage id,
        score)`` triples, without building provenance (for evaluation)."""
        _analyzed, results, _step = self._ranked(query, k, method, filters, rrf_depth, entities)
        documents, identifiers = self._identifiers()
        return [(documents[p], identifiers[p], score) for p, score, _r in results]

    def _identifiers(self) -> tuple[list[str], list[str]]:
        """Document ids and passage ids by position, built once (``Passage.id``
        formats a string each call)."""
        if self._passage_ids is None:
            passages = self._index.passages
            self._passage_ids = ([p.document_id for p in passages], [p.id for p in passages])
        return self._passage_ids

    def _ranked(self, query, k, method, filters, rrf_depth, entities=True):
        _check_search_arguments(query, k, method, rrf_depth, self._limits)
        analyzed = self._analyze_checked(query)
        allowed = self._allowed(coerce_filters(filters))
        step = self._entity_step(query) if entities else None
        if step is not None:
            wanted = set(step.documents)
            narrowed = frozenset(
                p for p, passage in enumerate(self._index.passages)
                if passage.document_id in wanted and (allowed is None or p in allowed)
            )
            results = self._rank_allowed(analyzed, k, method, rrf_depth, narrowed)
            if results:
                return analyzed, results, step
            step = EntityStep(step.matches, False, step.documents)
        return analyzed, self._rank_allowed(analyzed, k, method, rrf_depth, allowed), step

    def _entity_step(self, query: str) -> EntityStep | None:
        matches = self.entity_catalog.match(query)
        if not matches:
            return None
        documents = tuple(sorted({d for match in matches for d in match.documents}))
        return EntityStep(matches, True, documents)

    def _rank_allowed(self, analyzed, k, method, rrf_depth, allowed):
        if method != "hybrid":
            # retrievers are left None here and filled in by ``search`` (ranking() never needs them)
            ranked = rank(self._index, analyzed, method, k, allowed, self.exhaustive)
            return [(position, score, None) for position, score in ranked]
        depth = max(k, rrf_depth)
        lists = {name: rank(self._index, analyzed, name, depth, allowed, self.exhaustive) for name in ("bm25", "tfidf")}
        fused = reciprocal_rank_fusion([[p for p, _s in lists[name]] for name in ("bm25", "tfidf")])
        # each result's retrievers are built when a Hit needs them (ranking() never does)
        return [(position, score, lists) for position, score, _best in fused[:k]]

    @staticmethod
    def _retriever_details(results) -> dict[int, tuple[RetrieverResult, ...]] | None:
        """For hybrid results: each position's rank and score in each fused list."""
        if not results or results[0][2] is None:
            return None
        lists = results[0][2]
        found: dict[int, list[RetrieverResult]] = {}
        for name in ("bm25", "tfidf"):
            for rank_number, (position, score) in enumerate(lists[name], start=1):
                found.setdefault(position, []).append(RetrieverResult(name, rank_number, score))
        return {position: tuple(items) for position, items in found.items()}

    def explain(self, query: str, passage_id: str) -> Explanation:
        """Per-term BM25 and TF-IDF breakdowns of ``passage_id`` for ``query``;
        each sums, in the order shown, to exactly the score ``search`` gives."""
        _check_query(query, self._limits)
        position = self._position(passage_id)
        analyzed = self._analyze_checked(query)
        bm25, tfidf = index_scorers(self._index)
        passage = passage_statistics(self._index, position)
        terms = term_statistics(self._index, analyzed.terms)
        return Explanation(
            query=query,
            query_terms=analyzed.terms,
            passage_id=passage_id,
            index_id=self.index_id,
            bm25=explain_bm25(bm25, passage, terms),
            tfidf=explain_tfidf(tfidf, passage, terms, tfidf_query_weights(self._index, analyzed)),
        )

    def ask(
        self,
        question: str,
        k: int = 5,
        method: str = "hybrid",
        filters: Iterable[Filter | str] | Mapping[str, str] | None = None,
        max_sentences: int = 3,
        entities: bool = True,
        threshold: float | None = None,
        rrf_depth: int = DEFAULT_RRF_DEPTH,
    ) -> "Answer":
        """An extractive, cited answer with a confidence; refused below
        ``threshold`` (default ``regrag.confidence.REFUSAL_THRESHOLD``). See ``regrag.answer``."""
        from regrag.answer import answer_question
        from regrag.confidence import REFUSAL_THRESHOLD

        if threshold is None:
            threshold = REFUSAL_THRESHOLD
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
            raise InputError(f"threshold must be a number between 0 and 1, got {threshold!r}")
        if isinstance(max_sentences, bool) or not isinstance(max_sentences, int) or max_sentences < 1:
            raise InputError(f"max_sentences must be a positive integer, got {max_sentences!r}")
        return answer_question(self, question, k=k, method=method, filters=filters, max_sentences=max_sentences,
                               entities=entities, threshold=float(threshold), rrf_depth=rrf_depth)

    # helpers ----------------------------------------------------------------
    def analyze_query(self, query: str) -> AnalyzedQuery:
        """The query's language, distinct terms and counts (limits checked)."""
        _check_query(query, self._limits)
        return self._analyze_checked(query)

    def _analyze_checked(self, query: str) -> AnalyzedQuery:
        """``analyze_query``, then ``LimitError`` for too many distinct terms."""
        analyzed = analyze_query(self._index, query)
        check_query_terms(len(analyzed.terms), self._limits)
        return analyzed

    def _position(self, passage_id: str) -> int:
        """Binary search: passages are sorted by (document id, number)."""
        if not isinstance(passage_id, str):
            raise InputError(f"a passage id must be a string such as 'DOCUMENT_ID#1', got {passage_id!r}")
        document_id, _, number = passage_id.rpartition("#")
        if (document_id in self._index.documents and number.isascii() and number.isdigit()
                and not number.startswith("0") and len(number) <= _MAX_PASSAGE_NUMBER_DIGITS):
            passages = self._index.passages
            wanted = (document_id, int(number))
            position = bisect.bisect_left(passages, wanted, key=lambda p: (p.document_id, p.number))
            if position < len(passages) and (passages[position].document_id, passages[position].number) == wanted:
                return position
        raise InputError(f"no passage with id {passage_id!r} (passage ids look like 'DOCUMENT_ID#1')")

    def _allowed(self, filters: tuple[Filter, ...]) -> frozenset[int] | None:
        if not filters:
            return None
        documents = self._index.documents
        for condition in filters:
            if not any(condition.field in dict(d.metadata) for d in documents.values()):
                raise InputError(f"filter {condition}: no document has metadata field {condition.field!r}")
        matching = {
            document_id
            for document_id, document in documents.items()
            if all(condition.matches(document.metadata_dict()) for condition in filters)
        }
        return frozenset(p for p, passage in enumerate(self._index.passages) if passage.document_id in matching)

    def passage_terms(self, position: int) -> tuple[tuple[tuple[str, int, int], ...], tuple[tuple[str, int, int], ...]]:
        """The analysed passage: body terms with offsets into the document
        text, and title terms with offsets into the title. Cached (LRU)."""
        return self._passage_terms(position)

    def _analyze_passage(self, position: int):
        index = self._index
        passage = index.passages[position]
        document = index.documents[passage.document_id]
        language = index.passage_languages[position]
        offset = passage.start
        body = tuple(
            (term, offset + start, offset + end)
            for term, start, end in index.analyzer.analyze(document.text[passage.start : passage.end], language)
        )
        return body, tuple(index.analyzer.analyze(passage.title, language))

    def passage_matches(self, position: int, terms: Iterable[str]) -> tuple[TermMatch, ...]:
        """Where each of ``terms`` occurs in the passage body and title."""
        wanted = set(terms)
        body_terms, title_terms = self.passage_terms(position)
        body: dict[str, list[tuple[int, int]]] = {}
        for term, start, end in body_terms:
            if term in wanted:
                body.setdefault(term, []).append((start, end))
        title: dict[str, list[tuple[int, int]]] = {}
        for term, start, end in title_terms:
            if term in wanted:
                title.setdefault(term, []).append((start, end))
        return tuple(
            TermMatch(term, tuple(body.get(term, ())), tuple(title.get(term, ())))
            for term in sorted(body.keys() | title.keys())
        )

    def hits(self, query: str, ranked: Iterable[tuple[str, float, tuple[RetrieverResult, ...]]], method: str) -> list[Hit]:
        """Provenance records for passages ranked by a caller (e.g. a pipeline
        fusing dense and lexical lists): ``ranked`` holds (passage id, score,
        retrievers) in rank order; matches, spans and ids are as ``search``
        gives them. The query is analysed once for all of them. More than
        ``limits.k`` entries raise ``LimitError``."""
        _check_query(query, self._limits)
        analyzed = self._analyze_checked(query)
        hits = []
        for rank_number, (passage_id, score, retrievers) in enumerate(ranked, start=1):
            if rank_number > self._limits.k:
                raise LimitError(f"more than {self._limits.k:,} ranked passages; the limit is "
                                 f"{self._limits.k:,} (regrag.limits.Limits.k)")
            hits.append(self._hit(rank_number, self._position(passage_id), score, retrievers, method, analyzed))
        return hits

    def position_of(self, passage_id: str) -> int:
        """The index position of a passage id (``InputError`` if unknown)."""
        return self._position(passage_id)

    def filtered_positions(self, filters: Iterable[Filter | str] | Mapping[str, str] | None) -> frozenset[int] | None:
        """The positions of the passages whose document passes every filter (None
        without filters), with the checks ``search`` makes (e.g. an unknown field)."""
        return self._allowed(coerce_filters(filters))

    def _hit(self, rank_number, position, score, retrievers, method, analyzed: AnalyzedQuery, step=None) -> Hit:
        index = self._index
        passage = index.passages[position]
        document = index.documents[passage.document_id]
        return Hit(
            rank=rank_number,
            score=score,
            method=method,
            document_id=document.id,
            passage_id=passage.id,
            source=document.source,
            section_title=passage.title,
            passage_span=(passage.start, passage.end),
            matches=self.passage_matches(position, analyzed.terms),
            retrievers=retrievers,
            query=analyzed.text,
            query_terms=analyzed.terms,
            index_id=index.index_id,
            analyzer=tuple(sorted(index.analyzer.identity().items())),
            parameters=tuple(sorted(index.parameters.to_dict().items())),
            entities=step,
            corpus_root=index.corpus_root,
        )


# A passage number has at most this many digits (passages are counted in 32 bits);
# longer digit strings are not converted (int() refuses more than 4,300 digits).
_MAX_PASSAGE_NUMBER_DIGITS = 10


def _checked_limits(limits: Limits | None) -> Limits:
    """``limits``, or ``DEFAULT_LIMITS`` for None; ``InputError`` for anything else."""
    if limits is None:
        return DEFAULT_LIMITS
    if not isinstance(limits, Limits):
        raise InputError(f"limits must be a regrag.limits.Limits, got {type(limits).__name__}")
    return limits


def _check_query(query: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """``InputError`` unless ``query`` is a str of valid Unicode text, and
    ``LimitError`` when it is longer than ``limits.query_characters``."""
    if not isinstance(query, str):
        raise InputError("query must be a string")
    check_query_length(query, limits)  # before encoding: a huge query is refused without copying it
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError("the query is not valid Unicode text (it holds a lone surrogate or undecodable bytes)") from None


def _check_search_arguments(query: str, k: int, method: str, rrf_depth: int, limits: Limits = DEFAULT_LIMITS) -> None:
    _check_query(query, limits)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}")
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if isinstance(rrf_depth, bool) or not isinstance(rrf_depth, int) or rrf_depth < 1:
        raise InputError(f"rrf_depth must be a positive integer, got {rrf_depth!r}")
    check_search_depth(k, rrf_depth if method == "hybrid" else None, limits)  # rrf_depth is used by hybrid only
