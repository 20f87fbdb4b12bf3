"""Fixtures of the serve tests: the access corpus, its index, a token file,
and running servers (127.0.0.1, port 0, always shut down)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regrag import Index
from regrag.serve.auth import TokenTable, token_entry
from regrag.serve.state import IndexHolder, Served
from tests.serve.support import TOKENS, Running, ServerConfig, write_corpus


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("access-corpus") / "documents")


@pytest.fixture(scope="session")
def index(corpus_dir) -> Index:
    return Index.from_path(corpus_dir)


@pytest.fixture(scope="session")
def token_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tokens") / "tokens.json"
    entries = [token_entry(name, groups, ledger, token) for name, (token, groups, ledger) in sorted(TOKENS.items())]
    path.write_text(json.dumps({"principals": entries}), encoding="utf-8")
    return path


@pytest.fixture
def make_running():
    started: list[Running] = []

    def make(holder: IndexHolder, **config) -> Running:
        running = Running(holder, ServerConfig(port=0, **config))
        started.append(running)
        return running

    yield make
    for running in started:
        running.close()


@pytest.fixture
def server(make_running, index, token_file, tmp_path) -> Running:
    """Authenticated, with a ledger; corpus-wide statistics."""
    return make_running(IndexHolder(index=index), tokens=TokenTable.load(token_file),
                        ledger=str(tmp_path / "ledger.jsonl"), rate=0)


@pytest.fixture
def group_server(make_running, index, token_file, tmp_path) -> Running:
    """As ``server``, with per-group statistics."""
    return make_running(IndexHolder(index=index, served=Served(statistics="group")),
                        tokens=TokenTable.load(token_file), ledger=str(tmp_path / "ledger.jsonl"), rate=0)
