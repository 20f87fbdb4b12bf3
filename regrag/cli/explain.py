"""``regrag explain QUERY PASSAGE_ID``: the BM25 and TF-IDF terms of one
passage's scores, and the query words it lacks; with ``--synonyms``, of the
query as ``search --synonyms`` expands it (the added terms are query terms)."""

from __future__ import annotations

import argparse

from regrag.cli.options import add_index_options, add_synonyms_option, load_index, synonyms_of
from regrag.cli.status import ExitStatus
from regrag.engine import Index


def register(commands) -> None:
    explain = commands.add_parser("explain", help="per-term score breakdown of one passage")
    explain.add_argument("query")
    explain.add_argument("passage_id", help="passage id as printed by search, e.g. 'guide.md#2'")
    add_index_options(explain)
    add_synonyms_option(explain, "none")
    explain.add_argument("--json", action="store_true", help="canonical JSON output")
    explain.set_defaults(handler=run_explain)


def run_explain(arguments: argparse.Namespace) -> int:
    synonyms = synonyms_of(arguments)  # a bad file is reported before the index is loaded
    index = load_index(arguments)
    explanation = index.explain(arguments.query, arguments.passage_id, synonyms)
    if arguments.json:
        print(explanation.to_json())
        return ExitStatus.OK
    bm25, tfidf = explanation.bm25, explanation.tfidf
    print(f"passage {explanation.passage_id}  ·  index {explanation.index_id[:16]}")
    print(f"query terms: {' '.join(explanation.query_terms) or '(none)'}")
    print()
    print(f"BM25  k1={bm25.k1!r} b={bm25.b!r} title_weight={bm25.title_weight!r} "
          f"length={bm25.weighted_length!r} average_length={bm25.average_length!r}")
    print(f"  {'term':<20} {'idf':>20} {'body':>5} {'title':>5} {'weighted tf':>12} {'contribution':>22}")
    for term in bm25.terms:
        print(f"  {term.term:<20} {term.idf!r:>20} {term.body_frequency:>5} {term.title_frequency:>5} "
              f"{term.weighted_frequency!r:>12} {term.contribution!r:>22}")
    print(f"  score = {bm25.score!r} (sum of the contributions, top to bottom)")
    absent_line = _absent_terms(index, explanation)
    if absent_line:
        print(f"  {absent_line}")
    print()
    print(f"TF-IDF  query_norm={tfidf.query_norm!r} passage_norm={tfidf.passage_norm!r}")
    print(f"  {'term':<20} {'idf':>20} {'query weight':>20} {'passage weight':>20} {'product':>22}")
    for part in tfidf.terms:
        print(f"  {part.term:<20} {part.idf!r:>20} {part.query_weight!r:>20} {part.passage_weight!r:>20} {part.product!r:>22}")
    print(f"  score = dot / (query_norm × passage_norm) = {tfidf.dot!r} / ({tfidf.query_norm!r} × {tfidf.passage_norm!r}) = {tfidf.score!r}")
    return ExitStatus.OK


def _absent_terms(index: Index, explanation) -> str:
    """Which query words the passage lacks (as typed), and, when it lacks
    them all, that this is why its score is zero; empty if it has them all."""
    from regrag.answer.confidence import surface_words

    if not explanation.query_terms:
        return "the score is zero: the query has no terms after analysis"
    present = {term.term for term in explanation.bm25.terms}
    absent = [term for term in explanation.query_terms if term not in present]
    if not absent:
        return ""
    language = index.analyze_query(explanation.query).language
    # the set is a membership test only: the words come out in the query's order
    words = ", ".join(repr(word) for word in surface_words(index.analyzer, explanation.query, language, frozenset(absent)))
    if not present:
        return f"the score is zero: no query term occurs in this passage (absent: {words})"
    return f"not in this passage (they add nothing): {words}"
