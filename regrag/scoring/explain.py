"""Per-term breakdowns whose sums are exactly the scores search reports."""

from __future__ import annotations

from dataclasses import dataclass

from regrag.audit.canonical import canonical_json
from regrag.index.build import InvertedIndex, passage_term_counts
from regrag.index.parameters import weighted_count
from regrag.retrieval.ranking import AnalyzedQuery, tfidf_query_weights
from regrag.scoring.bm25 import bm25_term_score
from regrag.scoring.tfidf import cosine, tfidf_weight, vector_norm


@dataclass(frozen=True)
class BM25Term:
    """One query term's part of a BM25 score."""

    term: str
    idf: float
    body_frequency: int
    title_frequency: int
    weighted_frequency: float
    contribution: float


@dataclass(frozen=True)
class BM25Explanation:
    passage_id: str
    weighted_length: float
    average_length: float
    k1: float
    b: float
    title_weight: float
    terms: tuple[BM25Term, ...]
    score: float


@dataclass(frozen=True)
class TfidfTerm:
    term: str
    idf: float
    query_weight: float
    passage_weight: float
    product: float


@dataclass(frozen=True)
class TfidfExplanation:
    passage_id: str
    terms: tuple[TfidfTerm, ...]
    dot: float
    query_norm: float
    passage_norm: float
    score: float


@dataclass(frozen=True)
class Explanation:
    """Both retrievers' breakdowns of one passage for one query."""

    query: str
    query_terms: tuple[str, ...]
    passage_id: str
    index_id: str
    bm25: BM25Explanation
    tfidf: TfidfExplanation

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)

    def to_json(self) -> str:
        return canonical_json(self.to_dict())


def explain_bm25(index: InvertedIndex, query: AnalyzedQuery, position: int) -> BM25Explanation:
    passage = index.passages[position]
    document = index.documents[passage.document_id]
    body, title = passage_term_counts(document, passage, index.passage_languages[position], index.analyzer)
    parameters = index.parameters
    terms = []
    score = 0.0
    for term in query.terms:
        postings = index.postings.get(term)
        body_frequency, title_frequency = body.get(term, 0), title.get(term, 0)
        frequency = weighted_count(body_frequency, title_frequency, parameters.title_weight)
        if postings is None or frequency <= 0:
            continue
        contribution = bm25_term_score(postings.bm25_idf, frequency, index.length_norms[position], parameters.k1)
        score += contribution
        terms.append(BM25Term(term, postings.bm25_idf, body_frequency, title_frequency, frequency, contribution))
    return BM25Explanation(
        passage.id, index.lengths[position], index.average_length, parameters.k1, parameters.b,
        parameters.title_weight, tuple(terms), score,
    )


def explain_tfidf(index: InvertedIndex, query: AnalyzedQuery, position: int) -> TfidfExplanation:
    passage = index.passages[position]
    document = index.documents[passage.document_id]
    body, title = passage_term_counts(document, passage, index.passage_languages[position], index.analyzer)
    weights = tfidf_query_weights(index, query)
    query_norm = vector_norm(w for _t, w in weights) if weights else 0.0
    terms = []
    dot = 0.0
    matched = False
    for term, query_weight in weights:
        postings = index.postings[term]
        frequency = weighted_count(body.get(term, 0), title.get(term, 0), index.parameters.title_weight)
        if frequency <= 0:
            continue
        matched = True
        passage_weight = tfidf_weight(frequency, postings.tfidf_idf)
        product = query_weight * passage_weight
        dot += product
        terms.append(TfidfTerm(term, postings.tfidf_idf, query_weight, passage_weight, product))
    passage_norm = index.tfidf_norms[position]
    score = cosine(dot, query_norm, passage_norm) if matched else 0.0
    return TfidfExplanation(passage.id, tuple(terms), dot, query_norm, passage_norm, score)
