"""Tests for regrag.corpus.model: content_hash and passage ids."""

from __future__ import annotations

import dataclasses
import re

import pytest

from regrag.corpus.model import TITLE_SEPARATOR, Document, Passage, Section
from regrag.corpus.passages import split_passages

BASE = Document(
    id="docs/card.md",
    title="Card",
    text="# Card\nIntro.\n## Fees\nFifty dollars.\n",
    sections=(Section("Card", 7, 14), Section(f"Card{TITLE_SEPARATOR}Fees", 22, 37)),
    metadata=(("lang", "en"), ("product", "card")),
    source="docs/card.md",
)


def test_content_hash_is_sha256_hex_and_deterministic():
    digest = BASE.content_hash()
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert BASE.content_hash() == digest
    copy = Document(BASE.id, BASE.title, BASE.text, BASE.sections, BASE.metadata, BASE.source)
    assert copy.content_hash() == digest


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"text": "# Card\nIntro!\n## Fees\nFifty dollars.\n"}, id="text-one-char"),
        pytest.param({"text": "# Card\nIntro.\n## Fees\nFifty dollars.\n\n"}, id="text-trailing-newline"),
        pytest.param({"text": "\ufeff# Card\nIntro.\n## Fees\nFifty dollars."}, id="text-bom"),
        pytest.param({"title": "Card "}, id="title"),
        pytest.param({"title": "card"}, id="title-case"),
        pytest.param({"sections": (Section("Card", 7, 14), Section(f"Card{TITLE_SEPARATOR}Fee", 22, 37))}, id="section-title"),
        pytest.param({"sections": (Section("Card", 7, 14), Section(f"Card{TITLE_SEPARATOR}Fees", 22, 36))}, id="section-end"),
        pytest.param({"sections": (Section("Card", 6, 14), Section(f"Card{TITLE_SEPARATOR}Fees", 22, 37))}, id="section-start"),
        pytest.param({"sections": (Section("Card", 7, 14),)}, id="section-removed"),
        pytest.param({"sections": (Section(f"Card{TITLE_SEPARATOR}Fees", 22, 37), Section("Card", 7, 14))}, id="section-order"),
        pytest.param({"metadata": (("lang", "fr"), ("product", "card"))}, id="metadata-value"),
        pytest.param({"metadata": (("language", "en"), ("product", "card"))}, id="metadata-key"),
        pytest.param({"metadata": (("lang", "en"),)}, id="metadata-removed"),
        pytest.param({"metadata": (("lang", "en"), ("product", "card"), ("year", "2024"))}, id="metadata-added"),
        pytest.param({"metadata": ()}, id="metadata-empty"),
        pytest.param({"id": "docs/card2.md"}, id="id"),
    ],
)
def test_content_hash_changes_when_anything_indexed_changes(changes):
    changed = dataclasses.replace(BASE, **changes)
    assert changed.content_hash() != BASE.content_hash()


# Issue 12: every hit reports ``source``, so the content hash (and with it
# the index id and the corpus root) covers it; when the source is the id (a
# file of a folder) it adds nothing and the hash is what it always was.
BASE_HASH_BEFORE_ISSUE_12 = "639868c087c7f1f90e2ff28c2bcaa80aea2269572c525558b33ca102e1df1743"


def test_content_hash_covers_source_when_it_is_not_the_id():
    hashes = {dataclasses.replace(BASE, source=source).content_hash()
              for source in ["elsewhere/card.md", "", "corpus.jsonl", "/abs/path/card.md", "docs/card.md"]}
    assert len(hashes) == 5


def test_content_hash_of_a_folder_document_is_unchanged():
    assert BASE.source == BASE.id
    assert BASE.content_hash() == BASE_HASH_BEFORE_ISSUE_12
    assert "source" not in BASE.canonical()
    assert dataclasses.replace(BASE, source="corpus.jsonl").canonical()["source"] == "corpus.jsonl"


def test_metadata_order_does_not_change_the_hash():
    """Issue 12: metadata given in another order is stored sorted, so it is the same document."""
    reordered = dataclasses.replace(BASE, metadata=(("product", "card"), ("lang", "en")))
    assert reordered.metadata == BASE.metadata
    assert reordered == BASE
    assert reordered.content_hash() == BASE.content_hash() == BASE_HASH_BEFORE_ISSUE_12
    as_lists = dataclasses.replace(BASE, metadata=[["product", "card"], ["lang", "en"]])
    assert as_lists.metadata == BASE.metadata and as_lists.content_hash() == BASE_HASH_BEFORE_ISSUE_12


def test_duplicate_metadata_keys_are_refused():
    from regrag.errors import InputError

    with pytest.raises(InputError, match=r"document 'docs/card.md': metadata key 'lang' given twice"):
        dataclasses.replace(BASE, metadata=(("lang", "en"), ("product", "card"), ("lang", "fr")))
    with pytest.raises(InputError, match=r"metadata must be \(key, value\) pairs"):
        dataclasses.replace(BASE, metadata=(("lang", "en", "x"),))


def test_metadata_order_does_not_change_the_index_id():
    from regrag import Index

    reordered = dataclasses.replace(BASE, metadata=(("product", "card"), ("lang", "en")))
    assert Index.from_documents([reordered]).index_id == Index.from_documents([BASE]).index_id


def test_content_hash_distinguishes_metadata_split_points():
    one = dataclasses.replace(BASE, metadata=(("a", "bc"),))
    two = dataclasses.replace(BASE, metadata=(("ab", "c"),))
    assert one.content_hash() != two.content_hash()


def test_metadata_dict():
    assert BASE.metadata_dict() == {"lang": "en", "product": "card"}


@pytest.mark.parametrize(
    ("document_id", "number", "expected"),
    [
        ("a.md", 1, "a.md#1"),
        ("sub/dir/file.md", 12, "sub/dir/file.md#12"),
        ("42", 3, "42#3"),
        ("doc with space", 2, "doc with space#2"),
    ],
)
def test_passage_id_format(document_id, number, expected):
    assert Passage(document_id, number, "T", 0, 0).id == expected


def test_split_passage_ids_are_document_id_hash_number():
    passages = split_passages(BASE, 1000)
    assert [p.id for p in passages] == ["docs/card.md#1", "docs/card.md#2"]
    assert [p.number for p in passages] == [1, 2]
    assert [BASE.text[p.start : p.end] for p in passages] == ["Intro.", "Fifty dollars."]
