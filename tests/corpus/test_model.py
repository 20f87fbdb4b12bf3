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


def test_content_hash_does_not_depend_on_source():
    for source in ["elsewhere/card.md", "", "corpus.jsonl", "/abs/path/card.md"]:
        moved = dataclasses.replace(BASE, source=source)
        assert moved.content_hash() == BASE.content_hash()


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
