"""Provenance records: offsets that slice the original text, canonical JSON, index id."""

from __future__ import annotations

import json

from regrag import Index
from regrag.text.normalize import normalize_term


def test_every_offset_slices_a_surface_form_of_its_term(default_index):
    for query in ["margin interest rate", "金莲白金信用卡 年费", "LPR 利率", "foreign currency fee overseas"]:
        for hit in default_index.search(query, k=10):
            document = default_index.document(hit.document_id)
            start, end = hit.passage_span
            assert 0 <= start <= end <= len(document.text)
            assert hit.matches, "every hit matches at least one query term"
            for match in hit.matches:
                assert match.term in hit.query_terms
                for s, e in match.offsets:
                    assert start <= s < e <= end
                    analyzed = default_index.analyzer.analyze(document.text[s:e], default_index.inverted.document_languages[hit.document_id])
                    assert [t for t, _a, _b in analyzed] == [match.term]
                for s, e in match.title_offsets:
                    assert 0 <= s < e <= len(hit.section_title)


def test_full_width_surface_is_reported(default_index):
    hits = default_index.search("LPR", k=10, method="bm25")
    surfaces = set()
    for hit in hits:
        text = default_index.document(hit.document_id).text
        for match in hit.matches:
            surfaces.update(text[s:e] for s, e in match.offsets)
    assert "ＬＰＲ" in surfaces and normalize_term("ＬＰＲ") == "lpr"


def test_record_contents_and_canonical_json(default_index):
    (hit,) = default_index.search("margin interest rate", k=1)
    record = json.loads(hit.to_json())
    assert record["index_id"] == default_index.index_id and len(record["index_id"]) == 64
    assert record["analyzer"]["name"] == "auto" and "version" in record["analyzer"]
    assert record["parameters"] == {"b": 0.75, "k1": 1.5, "max_passage_chars": 4000, "title_weight": 3.0}
    assert record["passage_id"] == hit.passage_id and record["source"] == hit.document_id
    assert {r["retriever"] for r in record["retrievers"]} <= {"bm25", "tfidf"}
    text = hit.to_json()
    assert text == json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hit.to_json() == text  # stable


def test_index_id_depends_on_content_analyzer_and_parameters(make_doc):
    from regrag import IndexParameters

    documents = [make_doc("a", "alpha beta"), make_doc("b", "gamma")]
    base = Index.from_documents(documents).index_id
    assert Index.from_documents(list(reversed(documents))).index_id == base
    assert Index.from_documents([make_doc("a", "alpha beta!"), documents[1]]).index_id != base
    assert Index.from_documents(documents, analyzer="zh").index_id != base
    assert Index.from_documents(documents, parameters=IndexParameters(max_passage_chars=500)).index_id != base
    renamed = [make_doc("a", "alpha beta"), make_doc("c", "gamma")]
    assert Index.from_documents(renamed).index_id != base


def test_hand_written_record_forms_list_every_field(default_index):
    """Hit and TermMatch write their dicts out by hand (speed); they must say
    what the generic record form says, field for field."""
    from regrag.audit.canonical import record_dict

    hits = default_index.search("revenue growth guidance", k=10)
    assert hits and any(hit.matches for hit in hits)
    from dataclasses import replace

    for hit in hits + [replace(hits[0], query_vector_sha256="ab" * 32), replace(hits[0], shard=0)]:
        expected = record_dict(hit, analyzer=dict(hit.analyzer), parameters=dict(hit.parameters))
        assert expected.pop("original") is None  # left out when unset (extracted documents only)
        if not hit.query_vector_sha256:  # dense and fused hits only (docs/dense.md)
            del expected["query_vector_sha256"]
        if hit.synonyms is None:  # expanded searches only (docs/synonyms.md)
            del expected["synonyms"]
        if hit.shard is None:  # hits of a sharded index only (docs/index-format.md, "Sharded generations")
            del expected["shard"]
        assert hit.to_dict() == expected
        for match in hit.matches:
            assert match.to_dict() == record_dict(match)
