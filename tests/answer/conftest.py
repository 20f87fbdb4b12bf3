"""Shared fixtures for the answer tests: a small index built from a dict of documents."""

from __future__ import annotations

from typing import Callable

import pytest

from regrag import Index


@pytest.fixture(scope="session")
def index_of(tmp_path_factory) -> Callable[[str, dict[str, str]], Index]:
    """Build an Index over `documents` (file name -> text), written to a fresh folder named `name`."""
    def build(name: str, documents: dict[str, str]) -> Index:
        folder = tmp_path_factory.mktemp(name)
        for file_name, text in documents.items():
            (folder / file_name).write_text(text, encoding="utf-8")
        return Index.from_path(folder)
    return build
