"""Issue 12: corpus metadata must not capture queries (docs/entities.md, "Which names are used")."""

from __future__ import annotations

import shutil
import time

from regrag import Index
from regrag.cli import main
from regrag.corpus.load import load_corpus
from regrag.corpus.model import Document, Section
from regrag.retrieval.entities import EntityCatalog
from regrag.limits import Limits

COMMON = "the|of|is|what|fee|rate|account|interest|monthly"


def _document(document_id: str, text: str, **metadata: str) -> Document:
    return Document(document_id, "", text, (Section("", 0, len(text)),), tuple(sorted(metadata.items())), "t")


def _hostile_default_corpus(aliases: str = COMMON) -> list[Document]:
    documents = list(load_corpus("regrag/data/default_corpus").documents)
    return documents + [_document("zz-hostile.md", "This is what the weather was like.", product="Weather Notes",
                                  product_aliases=aliases)]


def test_common_words_as_aliases_do_not_capture_the_query():
    index = Index.from_documents(_hostile_default_corpus())
    answer = index.ask("what is the interest rate")
    # before the fix: restricted to zz-hostile.md and answered from it with confidence 1.00
    assert answer.hits[0].entities is None
    assert answer.hits[0].document_id != "zz-hostile.md"
    assert "weather" not in answer.text
    rejected = {(r.name, r.reason.split(":")[0]) for r in index.entity_catalog.rejected}
    assert ("the", "only function or question words") in rejected
    assert ("what", "only function or question words") in rejected
    assert ("interest", "a common term") in rejected and ("fee", "a common term") in rejected
    assert ("of", "shorter than 3 characters (the least for a name)") in rejected
    # the distinctive name of the same document is still used
    assert [m.name for m in index.entity_catalog.match("weather notes?")] == ["weather notes"]


def test_alias_list_is_not_evidence_and_a_match_alone_gives_no_confidence():
    # a multi-word alias survives the rules; restricting to its document must not make a confident answer
    index = Index.from_documents(_hostile_default_corpus("interest rate"))
    answer = index.ask("what is the interest rate")
    assert answer.hits[0].entities is not None and answer.hits[0].entities.applied
    assert answer.confidence.covered_terms == () and answer.refused
    plain = index.ask("what is the interest rate", entities=False)
    assert answer.confidence.value <= plain.confidence.value


def test_rejections_are_listed_and_noted_on_the_command_line(tmp_path, capsys):
    folder = tmp_path / "corpus"
    shutil.copytree("regrag/data/default_corpus", folder)
    (folder / "zz-hostile.md").write_text(f"product_aliases: {COMMON}\n\nThis is what the weather was like.\n",
                                          encoding="utf-8")
    assert main(["search", "what is the interest rate", "--corpus", str(folder), "-k", "1"]) == 0
    captured = capsys.readouterr()
    assert "regrag: note: 9 entity name(s) in the metadata not used (docs/entities.md)" in captured.err
    assert "entities:" not in captured.out


def test_names_per_document_is_a_limit_with_every_name_listed():
    documents = [_document("a.md", "alpha text", product_aliases="|".join(f"Name{n:03d}" for n in range(101))),
                 _document("b.md", "beta text", product="Zephyrine")]
    catalog = EntityCatalog(documents)
    assert len(catalog.rejected) == 101
    assert "Limits.entity_names_per_document" in catalog.rejected[0].reason
    assert catalog.match("Name005 text") == () and [m.name for m in catalog.match("zephyrine")] == ["zephyrine"]
    assert len(EntityCatalog(documents, limits=Limits(entity_names_per_document=101)).rejected) == 0


def test_matching_is_linear_in_the_query_whatever_the_number_of_names():
    # before the fix: 2,000 documents x 100 aliases took 47-90 s on a 10,000-character query
    documents = [_document(f"n{i:04d}.md", f"filler {i}", product_aliases="|".join(f"alias{i}x{j}" for j in range(100)))
                 for i in range(2000)]
    catalog = EntityCatalog(documents)
    started = time.perf_counter()
    matches = catalog.match(("fee rate alias7x7 " * 600)[:10_000])
    assert time.perf_counter() - started < 3.0
    assert {m.name for m in matches} == {"alias7x7"}


def test_no_name_of_the_bundled_or_sample_corpora_is_rejected():
    for path in ("regrag/data/default_corpus", "corpora/product-manuals/documents", "corpora/regulations/documents",
                 "corpora/vn-stock-news/documents"):
        index = Index.from_path(path)
        assert index.entity_catalog and index.entity_catalog.rejected == (), path


def test_function_word_tickers_and_short_names_are_rejected_with_reasons():
    documents = [_document("a.md", "alpha", tickers="ON, IT, QMT", product="Go", product_aliases="Nova|的是")]
    catalog = EntityCatalog(documents)
    reasons = {r.name: r.reason for r in catalog.rejected}
    assert set(reasons) == {"ON", "IT", "Go", "的是"}
    assert reasons["Go"].startswith("shorter than 3 characters") and reasons["ON"] == "only function or question words"
    assert [m.name for m in catalog.match("QMT or nova, ON IT")] == ["QMT", "nova"]
