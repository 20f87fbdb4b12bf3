"""What ``regrag.scoring.explain`` needs from an index, gathered from it:
one passage's term counts and stored statistics, the query terms' IDFs, and
the index's two scorers."""

from __future__ import annotations

from regrag.index.build import InvertedIndex, passage_term_counts
from regrag.index.parameters import bm25_scorer, tfidf_scorer
from regrag.scoring.bm25 import BM25Scorer
from regrag.scoring.explain import PassageStatistics, TermStatistics
from regrag.scoring.tfidf import TfidfScorer


def index_scorers(index: InvertedIndex) -> tuple[BM25Scorer, TfidfScorer]:
    """The scorers the index was built with."""
    return bm25_scorer(index.parameters, index.average_length), tfidf_scorer(index.parameters)


def passage_statistics(index: InvertedIndex, position: int) -> PassageStatistics:
    """The passage at ``position``: its term counts (recounted from its text,
    as indexing counted them) and its stored length, length norm and TF-IDF norm."""
    passage = index.passages[position]
    document = index.documents[passage.document_id]
    body, title = passage_term_counts(document, passage, index.passage_languages[position], index.analyzer)
    return PassageStatistics(
        passage.id, body, title, index.lengths[position], index.length_norms[position], index.tfidf_norms[position],
    )


def term_statistics(index: InvertedIndex, terms: tuple[str, ...]) -> tuple[TermStatistics, ...]:
    """The stored IDFs of those of ``terms`` that the index holds, in the given order."""
    found = []
    for term in terms:
        postings = index.postings.get(term)
        if postings is not None:
            found.append(TermStatistics(term, postings.bm25_idf, postings.tfidf_idf))
    return tuple(found)
