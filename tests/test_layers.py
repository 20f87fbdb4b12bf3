"""The package's imports go one way: no cycle among regrag's modules, and no
module imports a layer above its own (docs/architecture.md, "Layers").

The graph is read from the source (``ast``), not by importing: every
``import regrag...`` and ``from regrag... import ...`` counts, including those
inside functions, so a cycle hidden behind a late import fails too. Imports
under ``if TYPE_CHECKING:`` run only for type checkers and are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "regrag"

# Lowest first; a module may import its own layer and the layers below it.
# A module belongs to the layer of the longest prefix that matches its name.
# The scoring formulas sit below the index because the build calls them; the
# ledger's file format is a base module (index publishing reads ledgers).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("regrag._version", "regrag.errors", "regrag.validation", "regrag.limits", "regrag.io", "regrag.atomic",
     "regrag.jsonl", "regrag.source_check", "regrag.progress", "regrag.audit.canonical", "regrag.audit.merkle",
     "regrag.audit.ledger", "regrag.audit.ledger_entry", "regrag.audit.ledger_lock", "regrag.audit.ledger_read"),
    ("regrag.text",),
    ("regrag.corpus",),
    ("regrag.scoring",),
    ("regrag.index",),
    ("regrag.retrieval", "regrag.provenance"),
    ("regrag.answer",),
    ("regrag.engine",),
    ("regrag.adapters", "regrag.audit", "regrag.eval", "regrag.pipeline", "regrag.integrations",
     "regrag.dense", "regrag.distributed"),
    ("regrag.serve",),
    ("regrag.cli", "regrag.__main__", "regrag"),
)
# Known exceptions, each being removed by another part of issue 13; the tests
# fail when one is no longer needed, so this list can only shrink.
KNOWN_UPWARD: set[tuple[str, str]] = set()
KNOWN_CYCLE_EDGES: set[tuple[str, str]] = set()
# The adapters' protocols may be imported anywhere above the core; the
# adapters themselves (which import optional libraries) only inside functions.
ADAPTER_PROTOCOLS = "regrag.adapters.base"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(name: str, path: Path, known: set[str]) -> list[tuple[str, bool]]:
    """(imported regrag module, imported at module level) for each import in ``path``."""
    found: list[tuple[str, bool]] = []
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit_one(other, top)
                continue
            visit_one(child, top)

    def visit_one(node: ast.AST, top: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend((alias.name, top) for alias in node.names if alias.name.split(".")[0] == "regrag")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] == "regrag":
                for alias in node.names:
                    candidate = f"{base}.{alias.name}"
                    found.append((candidate if candidate in known else base, top))
        else:
            inner = top and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(node, inner)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), True)
    return found


def graph() -> dict[str, dict[str, bool]]:
    """module -> {imported module: True when some import of it runs at module level}."""
    found = modules()
    known = set(found)
    edges: dict[str, dict[str, bool]] = {}
    for name, path in found.items():
        targets = edges.setdefault(name, {})
        for target, top in imports(name, path, known):
            if target in known and target != name:
                targets[target] = targets.get(target, False) or top
    return edges


def layer_of(name: str) -> int:
    best = None
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or name.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (number, len(prefix))
    assert best is not None, f"{name} is in no layer of tests/test_layers.py"
    return best[0]


def find_cycle(edges: dict[str, dict[str, bool]]) -> list[str] | None:
    """One import cycle (a list of modules, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for target in sorted(edges.get(name, {})):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(edges):
        if name not in state:
            cycle = visit(name)
            if cycle:
                return cycle
    return None


def test_no_import_cycle() -> None:
    edges = graph()
    assert all(target in edges.get(name, {}) for name, target in KNOWN_CYCLE_EDGES), "a known cycle is gone: shrink KNOWN_CYCLE_EDGES"
    for name, target in KNOWN_CYCLE_EDGES:
        del edges[name][target]
    cycle = find_cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b": True}, "b": {"c": False}, "c": {"a": True}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": True}, "b": {}}) is None


def test_every_module_is_in_a_layer() -> None:
    for name in modules():
        layer_of(name)


def test_imports_go_down_the_layers() -> None:
    upward = [
        f"{name} (layer {layer_of(name)}) imports {target} (layer {layer_of(target)})"
        for name, targets in sorted(graph().items())
        for target in sorted(targets)
        if layer_of(target) > layer_of(name) and (name, target) not in KNOWN_UPWARD
    ]
    assert upward == []
    edges = graph()
    gone = sorted(pair for pair in KNOWN_UPWARD if pair[1] not in edges.get(pair[0], {}))
    assert gone == [], "known upward imports gone: shrink KNOWN_UPWARD"


def test_adapters_are_imported_only_inside_functions() -> None:
    eager = [
        f"{name} imports {target} at module level"
        for name, targets in sorted(graph().items())
        if not name.startswith("regrag.adapters")
        for target, top in sorted(targets.items())
        if top and target.startswith("regrag.adapters") and target != ADAPTER_PROTOCOLS
    ]
    assert eager == []
