"""regrag/scoring/ is the bottom layer of ranking: its modules import nothing of
regrag but each other and the canonical JSON form (explain's ``to_json``), so
the formulas cannot come to depend on indexes, queries or ranking."""

from __future__ import annotations

import ast
from pathlib import Path

import regrag.scoring

ALLOWED = ("regrag.scoring", "regrag.audit.canonical")


def test_scoring_imports_only_scoring():
    folder = Path(regrag.scoring.__file__).parent
    found = {}
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in getattr(node, "names", [])] if isinstance(node, ast.Import) else []
            for name in names:
                if name.startswith("regrag") and not any(name == a or name.startswith(a + ".") for a in ALLOWED):
                    found.setdefault(path.name, []).append(name)
    assert found == {}
