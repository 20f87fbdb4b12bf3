"""Shared fixtures for the answer tests: a small index built from a dict of documents, and the
sample corpora's indexes, built once per session (asking does not change an index)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from regrag import Index

CORPORA = Path(__file__).resolve().parents[2] / "corpora"


@pytest.fixture(scope="session")
def index_of(tmp_path_factory) -> Callable[[str, dict[str, str]], Index]:
    """Build an Index over `documents` (file name -> text), written to a fresh folder named `name`."""
    def build(name: str, documents: dict[str, str]) -> Index:
        folder = tmp_path_factory.mktemp(name)
        for file_name, text in documents.items():
            (folder / file_name).write_text(text, encoding="utf-8")
        return Index.from_path(folder)
    return build


@pytest.fixture(scope="session")
def manuals() -> Index:
    """The product-manuals sample corpus."""
    return Index.from_path(CORPORA / "product-manuals" / "documents")


@pytest.fixture(scope="session")
def regulations() -> Index:
    """The regulations sample corpus (its PDF only with pdfminer.six installed)."""
    return Index.from_path(CORPORA / "regulations" / "documents")


@pytest.fixture(scope="session")
def news() -> Index:
    """The vn-stock-news sample corpus."""
    return Index.from_path(CORPORA / "vn-stock-news" / "documents")
