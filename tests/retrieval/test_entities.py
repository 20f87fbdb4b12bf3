"""The entity step: visible, switchable, before the cut."""

from __future__ import annotations

import json

from regrag import Index
from regrag.corpus.model import Document, Section
from regrag.retrieval.entities import EntityCatalog


def _document(document_id: str, text: str, **metadata: str) -> Document:
    return Document(document_id, "", text, (Section("", 0, len(text)),), tuple(sorted(metadata.items())), "t")


DOCUMENTS = [
    _document("a.md", "Reporting deadline is 30 days for banks.", issuer="Alpha Banking Authority", issuer_short="ABA",
              issuer_aliases="banking authority | Alpha"),
    _document("b.md", "Reporting deadline is 10 days for brokers.", issuer="Beta Securities Commission", issuer_short="BSC"),
    _document("c.md", "Cổ phiếu QMT tăng 5% trong phiên.", tickers="QMT, HLX"),
    _document("d.md", "信用卡年费为680元。", product="金莲白金信用卡", product_aliases="金莲卡"),
]


def test_catalog_matches_names_aliases_and_tickers():
    catalog = EntityCatalog(DOCUMENTS)
    assert [(m.field, m.name, m.documents) for m in catalog.match("What is the ABA reporting deadline?")] == [
        ("issuer_short", "ABA", ("a.md",))
    ]
    # abbreviations in capitals must be written in capitals; other names are case-insensitive
    assert catalog.match("aba deadline") == ()
    assert [m.name for m in catalog.match("the BANKING AUTHORITY deadline")] == ["banking authority"]
    assert [m.name for m in catalog.match("Giá QMT hôm nay")] == ["QMT"]
    assert [m.name for m in catalog.match("金莲白金信用卡的年费")] == ["金莲白金信用卡"]
    # whole words only for Latin names
    assert catalog.match("ABAC deadline") == ()
    # two entities
    assert [m.documents for m in catalog.match("ABA or BSC deadline")] == [("a.md",), ("b.md",)]


def test_step_filters_before_the_cut_and_is_recorded():
    index = Index.from_documents(DOCUMENTS)
    hits = index.search("BSC reporting deadline", k=5, method="bm25")
    assert [h.document_id for h in hits] == ["b.md"]
    step = json.loads(hits[0].to_json())["entities"]
    assert step["applied"] is True and step["documents"] == ["b.md"]
    assert step["matches"] == [{"documents": ["b.md"], "end": 3, "field": "issuer_short", "name": "BSC", "start": 0}]
    # switched off: both documents, no step recorded
    plain = index.search("BSC reporting deadline", k=5, method="bm25", entities=False)
    assert [h.document_id for h in plain] == ["a.md", "b.md"] or [h.document_id for h in plain] == ["b.md", "a.md"]
    assert all(h.entities is None for h in plain)


def test_step_not_applied_when_the_named_documents_do_not_match():
    index = Index.from_documents(DOCUMENTS)
    hits = index.search("QMT reporting deadline", k=5, method="bm25")
    # c.md names QMT but contains none of the other query terms... it contains "qmt" itself, so it matches
    assert hits[0].document_id == "c.md" and hits[0].entities.applied
    hits = index.search("金莲卡 reporting deadline", k=5, method="bm25")
    assert {h.document_id for h in hits} == {"a.md", "b.md"}
    assert hits[0].entities is not None and hits[0].entities.applied is False


def test_no_metadata_no_step(tiny_documents):
    index = Index.from_documents(tiny_documents)
    assert all(h.entities is None for h in index.search("apple"))
