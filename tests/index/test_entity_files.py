"""The entity table a generation stores (``regrag.index.entity_files``): every
publishing path stores the table its documents give, an opened index matches
with it exactly as with a table computed from the documents, and a damaged
or forged table is refused, naming its file."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrag import Index
from regrag.audit.canonical import canonical_bytes
from regrag.corpus.model import Document, Section
from regrag.errors import CorruptIndexError
from regrag.index import codec
from regrag.index.bounded_build import index_directory
from regrag.index.checks import state_checksum
from regrag.index.document_access import documents_with_metadata
from regrag.index.entity_files import DOCUMENTS, FOLDER, NAMES, table_files
from regrag.index.entity_table import build_entity_table
from regrag.index.parameters import IndexParameters
from regrag.index.sharded import build_sharded, publish_sharded
from regrag.limits import Limits
from regrag.retrieval.entities import EntityCatalog
from regrag.text.analyzer import Analyzer

NAME_POOL = ["Acme Bank", "ACME", "VNM", "Calderway", "the", "of", "fee", "IT", "Go", "岚安人寿", "朔云", "ab",
             "Zephyrion Holdings", "Zephyrion", "interest rate", "Ngân hàng Á Châu", "ACB", "x" * 201]
FIELDS = ["issuer", "issuer_short", "issuer_aliases", "product", "ticker", "tickers"]
WORDS = ["fee", "rate", "annual", "card", "Acme", "bank", "VNM", "lãi", "suất", "年费", "the", "of", "Zephyrion"]
QUERIES = ["Acme Bank annual fee", "ACME card", "acme card", "VNM rate", "岚安人寿 年费", "Zephyrion Holdings fee",
           "Ngân hàng Á Châu lãi suất", "interest rate of the card", "nothing here"]


def document(number: int, words: list[str], metadata: list[tuple[str, str]]) -> Document:
    text = " ".join(words) + "."
    key = f"d{number:03d}"
    return Document(key, "Title", text, (Section("Title", 0, len(text)),), tuple(metadata), f"{key}.md")


@st.composite
def corpora(draw):
    count = draw(st.integers(1, 12))
    documents = []
    for number in range(count):
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))
        fields = draw(st.lists(st.sampled_from(FIELDS), max_size=3, unique=True))
        metadata = []
        for field in sorted(fields):
            names = draw(st.lists(st.sampled_from(NAME_POOL), min_size=1, max_size=3, unique=True))
            metadata.append((field, ("|" if field.endswith("aliases") else ",").join(names)
                             if field in ("issuer_aliases", "tickers") else names[0]))
        documents.append(document(number, words, metadata))
    return documents


def fixed_corpus() -> list[Document]:
    issuers = ["Acme Bank", "Calderway", "Zephyrion Holdings"]
    return [document(n, [WORDS[(n * 7 + i) % len(WORDS)] for i in range(n % 9 + 2)],
                     [("issuer", issuers[n % 3]), ("tickers", "VNM,ACB" if n % 2 else "ACME"), ("product", "Go")])
            for n in range(40)]


def generation(root: Path, number: int | None = None) -> Path:
    """The folder of generation ``number`` (default: the current one)."""
    number = number or Index.open(root).generation.number
    return root / "generations" / f"{number:06d}"


def stored_files(root: Path, number: int | None = None) -> dict[str, bytes]:
    folder = generation(root, number) / FOLDER
    return {f"{FOLDER}/{name}": (folder / name).read_bytes() for name in sorted((DOCUMENTS, NAMES))}


def expected_files(documents: list[Document]) -> dict[str, bytes]:
    inverted = Index.from_documents(documents).inverted
    table = build_entity_table(documents_with_metadata(inverted), inverted)
    return table_files(table, len(documents), Limits().entity_names_per_document)


def test_every_publishing_path_stores_the_table_of_its_documents(tmp_path):
    documents = fixed_corpus()
    expected = expected_files(documents)
    assert b"zephyrion holdings" in expected[f"{FOLDER}/{NAMES}"]
    Index.from_documents(documents).save(tmp_path / "memory")
    index_directory(tmp_path / "bounded", list(reversed(documents)), memory_mb=0.01)
    Index.from_documents(documents).save(tmp_path / "sharded-commit", shards=3)
    files, statistics = build_sharded(documents, Analyzer(), IndexParameters(), 4)
    publish_sharded(tmp_path / "sharded", files, statistics, Analyzer(), IndexParameters())
    # an update (segments kept, one document replaced and one deleted) and then back again
    Index.from_documents(documents[:-1]).save(tmp_path / "updated")
    before = Index.open(tmp_path / "updated")
    before.updated(upserts=[documents[-1]]).save(tmp_path / "updated")
    for name in ("memory", "bounded", "sharded-commit", "sharded", "updated"):
        assert stored_files(tmp_path / name) == expected, name
    assert stored_files(tmp_path / "updated", 1) == expected_files(documents[:-1]) != expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(corpora())
def test_an_opened_index_matches_as_the_documents_table_does(tmp_path_factory, documents):
    root = tmp_path_factory.mktemp("table") / "index"
    Index.from_documents(documents).save(root)
    opened = Index.open(root)
    computed = EntityCatalog(documents_with_metadata(opened.inverted), opened.inverted)
    assert opened.entity_catalog.rejected == computed.rejected
    for query in QUERIES:
        assert opened.entity_catalog.match(query) == computed.match(query)
        assert [h.to_dict() for h in opened.search(query, k=5)] == \
            [h.to_dict() for h in Index.from_documents(documents).search(query, k=5)]
    stored = (generation(root) / FOLDER).exists()
    assert stored == bool(computed.table)  # written exactly when there is something to store
    if stored:
        assert stored_files(root) == expected_files(documents)


def test_a_corpus_without_entity_metadata_stores_nothing(tmp_path):
    documents = [document(n, ["fee", "rate"], []) for n in range(3)]
    Index.from_documents(documents).save(tmp_path / "plain")
    folder = generation(tmp_path / "plain")
    assert not (folder / FOLDER).exists()
    assert "attachments" not in json.loads((folder / codec.MANIFEST).read_text())


def test_another_limit_computes_its_own_table(tmp_path):
    documents = fixed_corpus()
    Index.from_documents(documents).save(tmp_path / "index")
    tight = Limits(entity_names_per_document=2)  # every document has 4 names: none is used
    opened = Index.open(tmp_path / "index", limits=tight)
    assert opened.entity_catalog.table.entries == ()
    assert len(opened.entity_catalog.rejected) == sum(2 + len(d.metadata_dict()["tickers"].split(",")) for d in documents)
    assert Index.open(tmp_path / "index").entity_catalog.table.entries != ()


def forge(root: Path, name: str, data: bytes) -> Path:
    """Replace ``entities/name`` and re-seal the manifest and CURRENT (a consistent forgery)."""
    folder = generation(root)
    (folder / FOLDER / name).write_bytes(data)
    manifest = json.loads((folder / codec.MANIFEST).read_text())
    manifest["attachments"][f"{FOLDER}/{name}"] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    sealed = (json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode()
    (folder / codec.MANIFEST).write_bytes(sealed)
    state = json.loads((root / "CURRENT").read_text())
    state["generations"][-1]["manifest_sha256"] = hashlib.sha256(sealed).hexdigest()
    del state["checksum"]
    state["checksum"] = state_checksum(state)
    (root / "CURRENT").write_bytes(canonical_bytes(state) + b"\n")
    return folder / FOLDER / name


def test_a_damaged_table_is_refused_naming_its_file(tmp_path):
    Index.from_documents(fixed_corpus()).save(tmp_path / "index")
    path = generation(tmp_path / "index") / FOLDER / NAMES
    path.write_bytes(path.read_bytes().replace(b"zephyrion", b"zephyriom"))
    with pytest.raises(CorruptIndexError, match="names.json: SHA-256 does not match"):
        Index.open(tmp_path / "index").search("Zephyrion Holdings fee")
    assert Index.open(tmp_path / "index").search("Zephyrion Holdings fee", entities=False)  # the rest still works


def test_a_forged_document_list_is_refused_when_matched(tmp_path):
    root = tmp_path / "index"
    Index.from_documents(fixed_corpus()).save(root)
    documents = (generation(root) / FOLDER / DOCUMENTS).read_bytes()
    assert documents.startswith(b'["d')  # the first list: the longest name's, Zephyrion Holdings'
    path = forge(root, DOCUMENTS, b"[x" + documents[2:])  # same size, not JSON any more
    catalog = Index.open(root).entity_catalog  # the names are read; no document list yet
    with pytest.raises(CorruptIndexError, match=f"{path}: malformed document list"):
        catalog.match("Zephyrion Holdings fee")


def test_verify_recomputes_the_table(tmp_path):
    from regrag.index.verify import verify_store

    root = tmp_path / "index"
    Index.from_documents(fixed_corpus()).save(root)
    assert verify_store(root).ok
    names = json.loads((generation(root) / FOLDER / NAMES).read_text())
    names["rejected"] = sorted(names["rejected"] + [["d001", "issuer", "Fake", "forged"]])
    forge(root, NAMES, canonical_bytes(names) + b"\n")
    assert verify_store(root, full=False).ok  # sizes and hashes agree: the forgery is consistent
    report = verify_store(root)
    assert not report.ok and "names.json: differs from the entity table of the stored documents" in report.problems[0][1]


def test_the_entity_key_pattern_finds_every_entity_field_as_canonical_json_writes_it():
    from regrag.index.entity_files import ENTITY_KEY
    from regrag.index.entity_table import ENTITY_FIELDS

    for field in ENTITY_FIELDS:
        assert ENTITY_KEY.search(canonical_bytes([[0, [["date", "2026"], [field, "Acme"]]]])), field
    assert not ENTITY_KEY.search(canonical_bytes([[0, [["date", "2026"], ["source", "issuer: Acme"]]]]))


def test_metadata_without_entity_fields_is_never_parsed_for_the_catalog(tmp_path, monkeypatch):
    from regrag.index.stored_documents import StoredDocuments

    documents = [document(n, ["fee", "rate"], [("date", "2026-01-0%d" % (n + 1)), ("source", "issuer Acme")])
                 for n in range(3)]
    Index.from_documents(documents).save(tmp_path / "plain")
    assert not (generation(tmp_path / "plain") / FOLDER).exists()

    def parsed(_self):
        raise AssertionError("metadata.json was parsed")

    monkeypatch.setattr(StoredDocuments, "metadata", parsed)
    catalog = Index.open(tmp_path / "plain").entity_catalog
    assert catalog.table.entries == () and catalog.rejected == ()


def test_damaged_metadata_is_refused_even_when_it_names_no_entity(tmp_path):
    documents = [document(n, ["fee", "rate"], [("date", "2026-01-0%d" % (n + 1))]) for n in range(3)]
    Index.from_documents(documents).save(tmp_path / "plain")
    path = generation(tmp_path / "plain") / "metadata.json"
    path.write_bytes(path.read_bytes().replace(b"2026-01-02", b"2026-01-09"))
    with pytest.raises(CorruptIndexError, match="metadata.json"):
        Index.open(tmp_path / "plain").entity_catalog


def test_a_caller_cannot_attach_files_of_its_own_under_entities(tmp_path):
    index = Index.from_documents(fixed_corpus())
    with pytest.raises(ValueError, match="not a name an attachment may have: 'entities/names.json'"):
        index.save(tmp_path / "index", attached={"entities/names.json": b"{}"})
    assert not (tmp_path / "index" / "generations").exists() or not any((tmp_path / "index" / "generations").iterdir())
