"""Fixtures of the integration tests: the bundled corpus as an index
directory, and ``python -m regrag mcp`` run over it as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from regrag import Index

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def index_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("integrations") / "index"
    Index.from_path().save(directory)
    return directory


def server_command(index_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "regrag", "mcp", "--index", str(index_dir), *extra]


def server_environment(**extra: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPO), **extra)


def exchange(index_dir: Path, lines: list[bytes | str | dict], *extra: str, **environment: str
             ) -> tuple[int, list[bytes], bytes]:
    """Send ``lines`` to a fresh server (a dict as its JSON), close its input;
    (exit status, each line of standard output, standard error)."""
    payload = b"".join((json.dumps(line).encode() if isinstance(line, dict)
                        else line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line) + b"\n"
                       for line in lines)
    process = subprocess.run(server_command(index_dir, *extra), input=payload, capture_output=True,
                             env=server_environment(**environment), cwd=REPO, timeout=120)
    return process.returncode, process.stdout.splitlines(), process.stderr


def initialize(version: str = "2025-11-25", identifier: int = 0) -> dict:
    return {"jsonrpc": "2.0", "id": identifier, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}


def call(identifier: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": identifier, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
