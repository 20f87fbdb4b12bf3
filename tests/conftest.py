"""Shared fixtures: the bundled corpus index and a tiny hand-checkable corpus."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from regrag import Index
from regrag.corpus.model import Document, Section


# CI runs a fixed sequence of hypothesis examples (derandomized, no example
# database), so a green run is reproducible; local runs explore new examples.
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


def make_document(document_id: str, text: str, title: str = "", metadata: dict | None = None) -> Document:
    """A one-section document, as the JSONL/BEIR loaders build them."""
    return Document(
        document_id,
        title,
        text,
        (Section(title, 0, len(text)),),
        tuple(sorted((metadata or {}).items())),
        "test",
    )


@pytest.fixture(scope="session")
def default_index() -> Index:
    return Index.from_path()


@pytest.fixture
def make_doc():
    """The ``make_document`` helper, as a fixture (test modules cannot import conftest)."""
    return make_document


@pytest.fixture
def tiny_documents() -> list[Document]:
    return [
        make_document("d1", "apple apple banana"),
        make_document("d2", "banana cherry"),
        make_document("d3", "apple cherry cherry cherry"),
    ]
