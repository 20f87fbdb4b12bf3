"""Provenance from ``Analyzer.matches`` (only the query's terms; new pieces
holding none passed over) equals ``term_matches`` of the full analysis, for
every labelled query of every sample corpus (its top 30 hybrid passages and,
for every sixth query, every passage), with the piece caches cleared every
few queries. (XQuAD vi/zh were checked the same way once, outside the suite:
docs/performance.md.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regrag import Index
from regrag.retrieval.passages import analyze_passage, passage_matches, term_matches
from regrag.text.analyzer import clear_piece_cache

REPO = Path(__file__).resolve().parents[2]


def _queries(folder: Path) -> list[str]:
    with open(folder / "queries.jsonl", encoding="utf-8") as lines:
        return [json.loads(line)["text"] for line in lines if line.strip()]


def _differences(index: Index, queries: list[str], depth: int, every_passage: int | None) -> tuple[int, list]:
    inverted = index._index
    compared, differing = 0, []
    for number, query in enumerate(queries):
        if number % 4 == 0:
            clear_piece_cache()
        terms = index.analyze_query(query).terms
        positions = {index.position_of(passage_id) for _d, passage_id, _s in index.ranking(query, k=depth)}
        if every_passage and number % every_passage == 0:
            positions = range(index.passage_count)
        for position in sorted(positions):
            compared += 1
            if passage_matches(inverted, position, terms) != term_matches(*analyze_passage(inverted, position), terms):
                differing.append((query, position))
    return compared, differing


@pytest.mark.parametrize("corpus", ["product-manuals", "regulations", "vn-stock-news"])
def test_sample_corpora(corpus):
    folder = REPO / "corpora" / corpus
    index = Index.from_path(folder / "documents")
    compared, differing = _differences(index, _queries(folder), 30, 6)
    assert differing == [] and compared > 1000


def test_search_provenance_is_cached_and_equal_to_the_full_analysis():
    index = Index.from_path(REPO / "corpora" / "vn-stock-news" / "documents")
    query = _queries(REPO / "corpora" / "vn-stock-news")[0]
    first = index.search(query, k=10)
    again = index.search(query, k=10)
    assert [hit.to_json() for hit in first] == [hit.to_json() for hit in again]
    for hit in first:
        position = index.position_of(hit.passage_id)
        assert hit.matches == term_matches(*index.passage_terms(position), hit.query_terms)
