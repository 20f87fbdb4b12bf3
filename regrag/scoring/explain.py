"""Per-term breakdowns whose sums are exactly the scores search reports.

The contributions come from the same scorers indexing used
(``BM25Scorer``, ``TfidfScorer``), so they are the same bits as the stored
impacts and weights. This module knows nothing of indexes or queries: the
caller (``Index.explain``) gives it the passage's term counts and statistics
(``PassageStatistics``) and the query terms' statistics (``TermStatistics``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from regrag.audit.canonical import canonical_json
from regrag.scoring.bm25 import BM25Scorer
from regrag.scoring.fields import weighted_count
from regrag.scoring.tfidf import TfidfScorer


@dataclass(frozen=True)
class PassageStatistics:
    """What explaining one passage needs of it: its body and title term counts,
    its weighted length and BM25 length norm, and its TF-IDF norm (as stored)."""

    passage_id: str
    body_counts: Mapping[str, int]
    title_counts: Mapping[str, int]
    weighted_length: float
    length_norm: float
    tfidf_norm: float


@dataclass(frozen=True)
class TermStatistics:
    """One query term the index knows, with its two IDFs (as stored)."""

    term: str
    bm25_idf: float
    tfidf_idf: float


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


def explain_bm25(scorer: BM25Scorer, passage: PassageStatistics, terms: Sequence[TermStatistics]) -> BM25Explanation:
    """BM25 contributions of the query ``terms`` the index knows (in term order)."""
    rows = []
    score = 0.0
    for statistics in terms:
        term = statistics.term
        body_frequency, title_frequency = passage.body_counts.get(term, 0), passage.title_counts.get(term, 0)
        frequency = weighted_count(body_frequency, title_frequency, scorer.title_weight)
        if frequency <= 0:
            continue
        contribution = scorer.impact(statistics.bm25_idf, frequency, passage.length_norm)
        score += contribution
        rows.append(BM25Term(term, statistics.bm25_idf, body_frequency, title_frequency, frequency, contribution))
    return BM25Explanation(
        passage.passage_id, passage.weighted_length, scorer.average_length, scorer.k1, scorer.b,
        scorer.title_weight, tuple(rows), score,
    )


def explain_tfidf(
    scorer: TfidfScorer, passage: PassageStatistics, terms: Sequence[TermStatistics],
    query_weights: Sequence[tuple[str, float]],
) -> TfidfExplanation:
    """TF-IDF products of the query's (term, weight) pairs (in term order, as
    ranking computed them) with this passage's weights, and the cosine."""
    idfs = {statistics.term: statistics.tfidf_idf for statistics in terms}
    query_norm = scorer.norm(w for _t, w in query_weights) if query_weights else 0.0
    rows = []
    dot = 0.0
    matched = False
    for term, query_weight in query_weights:
        frequency = weighted_count(passage.body_counts.get(term, 0), passage.title_counts.get(term, 0), scorer.title_weight)
        if frequency <= 0:
            continue
        matched = True
        passage_weight = scorer.weight(frequency, idfs[term])
        product = query_weight * passage_weight
        dot += product
        rows.append(TfidfTerm(term, idfs[term], query_weight, passage_weight, product))
    passage_norm = passage.tfidf_norm
    score = scorer.cosine(dot, query_norm, passage_norm) if matched else 0.0
    return TfidfExplanation(passage.passage_id, tuple(rows), dot, query_norm, passage_norm, score)
