"""Build the in-memory inverted index over passages.

Passages are kept sorted by (document id, passage number), so a passage's
position in that list is also its place in the tie-break order. Postings list
passage positions in ascending order with the title-weighted term frequency.
Per-posting BM25 impacts and TF-IDF weights are computed once here, with the
same pure functions ``explain`` uses, so scores and explanations agree bit
for bit.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from dataclasses import dataclass, field

from regrag.audit.canonical import sha256_hex
from regrag.corpus.model import Document, Passage
from regrag.corpus.passages import split_passages
from regrag.errors import InputError
from regrag.index.parameters import IndexParameters, weighted_count
from regrag.scoring.bm25 import bm25_idf, bm25_length_norm, bm25_term_score
from regrag.scoring.tfidf import tfidf_idf, tfidf_weight, vector_norm
from regrag.text.analyzer import Analyzer

INDEX_FORMAT_VERSION = "1"


@dataclass
class Postings:
    """One term's postings: passage positions, weighted tf, and precomputed scores."""

    passages: array
    frequencies: array
    bm25_impacts: array = field(default_factory=lambda: array("d"))
    tfidf_weights: array = field(default_factory=lambda: array("d"))
    bm25_idf: float = 0.0
    tfidf_idf: float = 0.0


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
    postings: dict[str, Postings]
    tfidf_norms: array
    index_id: str
    document_languages: dict[str, str]

    @property
    def passage_count(self) -> int:
        return len(self.passages)


def compute_index_id(analyzer: Analyzer, parameters: IndexParameters, documents: list[Document]) -> str:
    """SHA-256 over the canonical analyzer identity, parameters and sorted (id, content hash) pairs."""
    return sha256_hex(
        {
            "analyzer": analyzer.identity(),
            "documents": [[d.id, d.content_hash()] for d in sorted(documents, key=lambda d: d.id)],
            "format": INDEX_FORMAT_VERSION,
            "parameters": parameters.to_dict(),
        }
    )


def passage_term_counts(
    document: Document,
    passage: Passage,
    language: str,
    analyzer: Analyzer,
    title_cache: dict[tuple[str, str], Counter] | None = None,
) -> tuple[Counter, Counter]:
    """Body and title term counts of one passage: what indexing counts and
    ``explain`` recounts. ``title_cache`` saves analysing a shared title again."""
    body = Counter(term for term, _s, _e in analyzer.analyze(document.text[passage.start : passage.end], language))
    key = (passage.title, language)
    title = title_cache.get(key) if title_cache is not None else None
    if title is None:
        title = Counter(term for term, _s, _e in analyzer.analyze(passage.title, language))
        if title_cache is not None:
            title_cache[key] = title
    return body, title


def build_index(
    documents: list[Document] | tuple[Document, ...],
    analyzer: Analyzer | None = None,
    parameters: IndexParameters | None = None,
) -> InvertedIndex:
    """Index ``documents`` (in any order: the result depends only on their content)."""
    analyzer = analyzer or Analyzer()
    parameters = parameters or IndexParameters()
    by_id: dict[str, Document] = {}
    for document in documents:
        if document.id in by_id:
            raise InputError(f"duplicate document id {document.id!r}")
        by_id[document.id] = document
    ordered = [by_id[key] for key in sorted(by_id)]
    weight = parameters.title_weight

    passages: list[Passage] = []
    passage_languages: list[str] = []
    document_languages: dict[str, str] = {}
    lengths = array("d")
    term_passages: dict[str, list[int]] = {}
    term_frequencies: dict[str, list[float]] = {}
    title_cache: dict[tuple[str, str], Counter] = {}
    for document in ordered:
        language = analyzer.language_of(document.title + "\n" + document.text)
        document_languages[document.id] = language
        for passage in split_passages(document, parameters.max_passage_chars):
            position = len(passages)
            passages.append(passage)
            passage_languages.append(language)
            body, title = passage_term_counts(document, passage, language, analyzer, title_cache)
            lengths.append(weighted_count(sum(body.values()), sum(title.values()), weight))
            for term in sorted(body.keys() | title.keys()):
                frequency = weighted_count(body.get(term, 0), title.get(term, 0), weight)
                if frequency <= 0:
                    continue
                if term not in term_passages:
                    term_passages[term] = []
                    term_frequencies[term] = []
                term_passages[term].append(position)
                term_frequencies[term].append(frequency)

    count = len(passages)
    average_length = math.fsum(lengths) / count if count else 0.0
    if average_length <= 0.0:
        average_length = 1.0
    length_norms = array(
        "d", (bm25_length_norm(length, average_length, parameters.k1, parameters.b) for length in lengths)
    )
    postings: dict[str, Postings] = {}
    passage_weights: list[list[float]] = [[] for _ in range(count)]
    for term in sorted(term_passages):
        positions = term_passages[term]
        frequencies = term_frequencies[term]
        document_frequency = len(positions)
        entry = Postings(array("i", positions), array("d", frequencies))
        entry.bm25_idf = bm25_idf(count, document_frequency)
        entry.tfidf_idf = tfidf_idf(count, document_frequency)
        entry.bm25_impacts = array(
            "d",
            (
                bm25_term_score(entry.bm25_idf, frequency, length_norms[position], parameters.k1)
                for position, frequency in zip(positions, frequencies)
            ),
        )
        entry.tfidf_weights = array("d", (tfidf_weight(frequency, entry.tfidf_idf) for frequency in frequencies))
        for position, value in zip(positions, entry.tfidf_weights):
            passage_weights[position].append(value)
        postings[term] = entry
    tfidf_norms = array("d", (vector_norm(values) for values in passage_weights))
    return InvertedIndex(
        analyzer=analyzer,
        parameters=parameters,
        documents=by_id,
        passages=passages,
        passage_languages=passage_languages,
        lengths=lengths,
        average_length=average_length,
        length_norms=length_norms,
        postings=postings,
        tfidf_norms=tfidf_norms,
        index_id=compute_index_id(analyzer, parameters, ordered),
        document_languages=document_languages,
    )
