"""The package graph drawn in the README holds: no cycles, no import against a layer.

Imports are read from the source (TYPE_CHECKING blocks and function-local
imports included), so a shortcut hidden behind either still fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("recall_engine", "router", "retrievers", "prompts")

# layer -> module prefixes in it; earlier rules win for a module.
LAYERS = [
    ("core", ("recall_engine.core",)),
    ("router", ("router",)),
    ("prompts", ("prompts",)),
    ("storage", ("recall_engine.storage",)),
    ("read", ("recall_engine.read",)),
    ("retrievers", ("retrievers",)),
    ("pipeline", ("recall_engine.pipeline",)),
    ("tenants", ("recall_engine.tenants",)),
    (
        "engine",
        (
            "recall_engine.engine",
            "recall_engine.api",
            "recall_engine.cli",
            "recall_engine.server",
            "recall_engine.mcp",
            "recall_engine.remote",
            "recall_engine.integrations",
        ),
    ),
]

# layer -> the layers it may import (besides itself). "base" is every other
# module of recall_engine (config, ingest, graph, llm, embedding, ...): the
# ingest side and shared services, which sit on core and storage.
ALLOWED = {
    "core": set(),
    "router": {"core"},
    "prompts": set(),
    "storage": {"core", "base"},
    "read": {"core", "storage", "base"},
    "retrievers": {"core", "read"},
    "pipeline": {"core", "router", "storage", "read", "retrievers", "base", "prompts"},
    "tenants": {"core", "storage", "read", "retrievers", "pipeline", "base", "prompts"},
    "engine": {
        "core",
        "router",
        "storage",
        "read",
        "retrievers",
        "pipeline",
        "tenants",
        "base",
        "prompts",
    },
    "base": {"core", "storage", "base", "prompts"},
}

# Modules of "base" that storage may use (plain records and helpers, no engine).
STORAGE_MAY_USE = {"recall_engine.config"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> str:
    for layer, prefixes in LAYERS:
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return layer
    return "base"


def project_imports(path: Path, known: set[str]) -> set[str]:
    """Modules ``path`` imports; ``from pkg import sub`` names pkg.sub when that is
    a module (the package's own ``__init__`` is not what the code depends on)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{a.name}" for a in node.names}
            modules = subs & known
            found.update(modules)
            if len(modules) < len(subs):
                found.add(node.module)
    return {m for m in found if m.split(".")[0] in PACKAGES}


def modules() -> dict[str, set[str]]:
    known = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = set()
        for imported in project_imports(path, set(known)):
            # "from a.b import c" names module a.b.c when it exists, else a.b.
            while imported not in known and "." in imported:
                imported = imported.rsplit(".", 1)[0]
            if imported in known and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


GRAPH = modules()


def test_every_package_is_found() -> None:
    assert {m.split(".")[0] for m in GRAPH} == set(PACKAGES)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_follow_the_layers(module: str) -> None:
    if module.count(".") == 0 and module == "recall_engine":
        return  # the package root re-exports the public API lazily
    layer = layer_of(module)
    for target in GRAPH[module]:
        if target == "recall_engine":
            pytest.fail(f"{module} imports the package root; import the defining module")
        other = layer_of(target)
        if other == layer:
            continue
        if layer == "storage" and other == "base":
            assert target in STORAGE_MAY_USE, f"{module} (storage) imports {target}"
            continue
        assert other in ALLOWED[layer], f"{module} ({layer}) imports {target} ({other})"


def test_graph_extraction_does_not_use_the_kuzu_adapter() -> None:
    for module, targets in GRAPH.items():
        if module.startswith("recall_engine.graph"):
            assert not any("kuzu" in t for t in targets), (module, targets)


def test_storage_does_not_use_graph_extraction() -> None:
    for module, targets in GRAPH.items():
        if module.startswith("recall_engine.storage"):
            assert not any(t.startswith("recall_engine.graph") for t in targets), module


def test_there_are_no_import_cycles() -> None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(GRAPH[node]):
            if nxt == "recall_engine":
                continue
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(GRAPH):
        if node not in state:
            visit(node)
