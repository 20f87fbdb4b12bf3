"""``explain``: one passage's per-term BM25 and TF-IDF breakdowns for a query,
from the index's own statistics and the scorers indexing used, so each sums,
in the order shown, to exactly the score ``search`` gives."""

from __future__ import annotations

from regrag.index.build import InvertedIndex
from regrag.index.statistics import index_scorers, passage_statistics, term_statistics
from regrag.retrieval.query import AnalyzedQuery
from regrag.retrieval.ranking import tfidf_query_weights
from regrag.scoring.explain import Explanation, explain_bm25, explain_tfidf


def explain_position(index: InvertedIndex, query: str, analyzed: AnalyzedQuery, passage_id: str,
                     position: int) -> Explanation:
    """The explanation of the passage at ``position`` (named ``passage_id``) for ``analyzed``
    (for a sharded index, by the shard that holds it: the same values)."""
    owning_shard = getattr(index, "owning_shard", None)
    if owning_shard is not None:
        index, position = owning_shard(position)
    bm25, tfidf = index_scorers(index)
    passage = passage_statistics(index, position)
    terms = term_statistics(index, analyzed.terms)
    return Explanation(
        query=query,
        query_terms=analyzed.terms,
        passage_id=passage_id,
        index_id=index.index_id,
        bm25=explain_bm25(bm25, passage, terms),
        tfidf=explain_tfidf(tfidf, passage, terms, tfidf_query_weights(index, analyzed)),
    )
