"""Access groups: a view of an ``Index`` restricted to what a principal may read.

A document's metadata field ``access`` lists the groups that may read it,
separated by ``|`` (``access: research|advisory``). A principal reads a
document when it shares a group with it, or holds the group ``*``. A document
without an ``access`` field is *unlabelled*: readable by every principal
(``unlabelled="public"``, the default) or by ``*`` principals only
(``"private"``).

``AccessView`` satisfies ``regrag.answer.searcher.Searcher`` and is what the
server searches, explains and answers through. Unreadable passages are taken
out of the candidate set **before** ranking and the top-k cut, the entity
step looks only at readable documents' names, and looking up an unreadable
passage or document fails exactly as for one that does not exist, so hits,
totals, explanations and answers cannot name or count an unreadable document.
What corpus-wide statistics still reveal is in docs/serve.md ("What access
control does and does not hide"); ``subset_index`` builds the per-group
statistics mode that hides them too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from regrag.errors import InputError
from regrag.index import document_access
from regrag.retrieval import hybrid
from regrag.retrieval.entities import EntityCatalog
from regrag.retrieval.explanation import explain_position
from regrag.retrieval.hits import build_hit
from regrag.retrieval.options import SearchOptions, check_query
from regrag.retrieval.synonym_query import expand_query
from regrag.provenance import RetrieverResult
from regrag.serve.auth import ALL_GROUPS, Principal

if TYPE_CHECKING:
    from regrag.engine import Index
    from regrag.provenance import Hit
    from regrag.scoring.explain import Explanation

ACCESS_FIELD = "access"
UNLABELLED_CHOICES = ("public", "private")


def document_groups(value: str) -> frozenset[str]:
    """The groups an ``access`` value names (``research|advisory``)."""
    return frozenset(part.strip() for part in value.split("|") if part.strip())


def unreadable_documents(index: "Index", principal: Principal, unlabelled: str = "public") -> frozenset[str]:
    """The ids of the documents ``principal`` may not read."""
    if unlabelled not in UNLABELLED_CHOICES:
        raise InputError(f"unlabelled must be one of {', '.join(UNLABELLED_CHOICES)}, got {unlabelled!r}")
    if principal.reads_everything:
        return frozenset()
    groups = set(principal.groups)
    hidden: set[str] = set()
    labelled: set[str] = set()
    for document in document_access.documents_with_metadata(index.inverted):
        value = document.metadata_dict().get(ACCESS_FIELD)
        if value is None:
            continue
        labelled.add(document.id)
        if not (document_groups(value) & groups):
            hidden.add(document.id)
    if unlabelled == "private":
        every = set(document_access.passage_document_ids(index.inverted))
        hidden |= every - labelled
    return frozenset(hidden)


def subset_index(index: "Index", hidden: frozenset[str]) -> "Index":
    """An in-memory index of only the readable documents: the per-group
    statistics mode (IDF, lengths and N computed over what the principal reads)."""
    from regrag.engine import Index

    documents = [index.document(d) for d in sorted(set(document_access.passage_document_ids(index.inverted)) - hidden)]
    return Index.from_documents(documents, index.analyzer, index.parameters, limits=index.limits)


class AccessView:
    """``index`` as a principal who may not read the documents ``hidden`` sees it."""

    def __init__(self, index: "Index", hidden: frozenset[str] = frozenset(), generation=None) -> None:
        self.index = index
        self.hidden = hidden
        self._generation = generation  # per-group statistics: the generation the subset was made from
        if hidden:
            self._readable: frozenset[int] | None = frozenset(range(index.passage_count)) - \
                document_access.positions_of_documents(index.inverted, hidden)
        else:
            self._readable = None
        self._catalog: EntityCatalog | None = None

    # what the index is -----------------------------------------------------
    @property
    def index_id(self) -> str:
        return self.index.index_id

    @property
    def corpus_root(self) -> str:
        return self.index.corpus_root

    @property
    def analyzer(self):
        return self.index.analyzer

    @property
    def parameters(self):
        return self.index.parameters

    @property
    def limits(self):
        return self.index.limits

    @property
    def generation(self):
        return self._generation if self._generation is not None else self.index.generation

    @property
    def passage_count(self) -> int:
        return self.index.passage_count

    @property
    def readable_passage_count(self) -> int:
        return self.index.passage_count if self._readable is None else len(self._readable)

    @property
    def entity_catalog(self) -> EntityCatalog:
        """Entity names from the readable documents only."""
        if self._readable is None:
            return self.index.entity_catalog
        if self._catalog is None:
            documents = [d for d in document_access.documents_with_metadata(self.index.inverted)
                         if d.id not in self.hidden]
            self._catalog = EntityCatalog(documents, self.index.inverted, self.index.limits)
        return self._catalog

    # lookups that must not reveal a hidden document ---------------------------
    def readable(self, document_id: str) -> bool:
        return document_id not in self.hidden and self.index.has_document(document_id)

    def document(self, document_id: str):
        if document_id in self.hidden:
            raise InputError(f"no document with id {document_id!r}")
        return self.index.document(document_id)

    def document_language(self, document_id: str) -> str:
        self.document(document_id)
        return self.index.document_language(document_id)

    def position_of(self, passage_id: str) -> int:
        if isinstance(passage_id, str) and passage_id.rpartition("#")[0] in self.hidden:
            raise InputError(f"no passage with id {passage_id!r} (passage ids look like 'DOCUMENT_ID#1')")
        return self.index.position_of(passage_id)

    def passage(self, position: int):
        self._check_position(position)
        return self.index.passage(position)

    def passage_id(self, position: int) -> str:
        self._check_position(position)
        return self.index.passage_id(position)

    def passage_terms(self, position: int):
        self._check_position(position)
        return self.index.passage_terms(position)

    def passage_matches(self, position: int, terms: Iterable[str]):
        self._check_position(position)
        return self.index.passage_matches(position, terms)

    def passage_text(self, passage_id: str) -> str:
        """The passage's text (a slice of its document's text)."""
        self.position_of(passage_id)  # refuses a passage this principal may not read
        return self.index.passage_text(passage_id)

    def term_idf(self, term: str) -> float | None:
        return self.index.term_idf(term)

    def analyze_query(self, query: str):
        return self.index.analyze_query(query)

    def _check_position(self, position: int) -> None:
        if self._readable is not None and position not in self._readable:
            raise InputError(f"no passage at position {position}")

    # ranking -------------------------------------------------------------
    def filtered_positions(self, filters) -> frozenset[int] | None:
        """The readable positions that pass ``filters``. A filter on a field
        that only hidden documents have matches nothing (it is not an error,
        which would tell that such a field exists)."""
        if self._readable is None:
            return self.index.filtered_positions(filters)
        options = SearchOptions(filters=filters)
        if not options.filters:
            return self._readable
        known = {key for d in document_access.documents_with_metadata(self.index.inverted)
                 if d.id not in self.hidden for key in d.metadata_dict()}
        if any(f.field not in known for f in options.filters):
            unknown = sorted(f.field for f in options.filters if f.field not in known)
            raise InputError(f"filter: no document has metadata field {unknown[0]!r}")
        allowed = self.index.filtered_positions(options.filters)
        return self._readable if allowed is None else allowed & self._readable

    def rank_positions(self, analyzed, method: str, k: int, allowed: frozenset[int] | None = None,
                       exhaustive: bool = False) -> list[tuple[int, float]]:
        if self._readable is not None:
            allowed = self._readable if allowed is None else allowed & self._readable
        return self.index.rank_positions(analyzed, method, k, allowed, exhaustive)

    def search(self, query: str, *, options: SearchOptions | None = None) -> list["Hit"]:
        """``Index.search`` among the readable passages only."""
        options = options or SearchOptions()
        if self._readable is None:
            return self.index.search(query, options=options)
        analyzed, results, step = self._ranked(query, options)
        details = hybrid.retriever_details(results)
        return [
            build_hit(self.index.inverted, r, position, score,
                      details[position] if details is not None else (RetrieverResult(options.method, r, score),),
                      options.method, analyzed, self.index.passage_matches(position, analyzed.terms), step)
            for r, (position, score, _lists) in enumerate(results, start=1)
        ]

    def ranking(self, query: str, *, options: SearchOptions | None = None) -> list[tuple[str, str, float]]:
        options = options or SearchOptions()
        if self._readable is None:
            return self.index.ranking(query, options=options)
        _analyzed, results, _step = self._ranked(query, options)
        return [(self.index.passage(p).document_id, self.index.passage_id(p), score) for p, score, _r in results]

    def _ranked(self, query: str, options: SearchOptions):
        check_query(query, self.index.limits)
        options.within(self.index.limits)
        analyzed = expand_query(self.index.analyzer, self.index.analyze_query(query), options.synonyms)
        allowed = self.filtered_positions(options.filters)
        step = hybrid.entity_step(self.entity_catalog, query) if options.entities else None
        return (analyzed, *hybrid.ranked(self.index.inverted, analyzed, options, allowed, step))

    def hits(self, query: str, ranked, method: str) -> list["Hit"]:
        ranked = list(ranked)
        for passage_id, _score, _retrievers in ranked:
            self.position_of(passage_id)
        return self.index.hits(query, ranked, method)

    def explain(self, query: str, passage_id: str, synonyms=None) -> "Explanation":
        """``Index.explain`` (expanded by ``synonyms``) for a readable passage (``InputError`` otherwise)."""
        check_query(query, self.index.limits)
        position = self.position_of(passage_id)
        if self._readable is None:
            return self.index.explain(query, passage_id, synonyms)
        analyzed = expand_query(self.index.analyzer, self.index.analyze_query(query), synonyms)
        return explain_position(self.index.inverted, query, analyzed, passage_id, position)

    def ask(self, question: str, options=None):
        """An answer from the readable passages only (``regrag.answer``)."""
        from regrag.answer.extractive import answer_question
        from regrag.answer.options import AskOptions

        options = options or AskOptions()
        if self._readable is None:
            return self.index.ask(question, options=options)
        check_query(question, self.index.limits)
        return answer_question(self, question, options)


def principal_key(principal: Principal) -> tuple[str, ...]:
    """What a view depends on: the principal's groups (``*`` alone when it reads all)."""
    return (ALL_GROUPS,) if principal.reads_everything else principal.groups
