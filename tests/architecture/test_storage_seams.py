"""The storage seams hold: only ``storage/`` talks to a database client, and only
``read/`` and ``storage/`` write Cypher.

- ``recall_engine/server`` and ``recall_engine/tenants`` never import
  ``recall_engine.storage`` (they reach data through the engine and the read API);
- nothing outside ``recall_engine/storage`` imports ``kuzu`` or ``lancedb``;
- no module outside ``recall_engine/read`` and ``recall_engine/storage`` holds a
  string literal that is Cypher (``MATCH (...) ... RETURN``, ``MERGE (``,
  ``CREATE (``, a relationship pattern). The CYPHER search type's own query is
  the caller's data, never a literal, so it does not count; docstrings do not
  count either.

Imports are read from the source, TYPE_CHECKING blocks and function-local
imports included. Each rule is a function of a module's source, and a test
feeds it a bad module, so a rule that could never fail is caught too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
import regex

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ("recall_engine", "retrievers", "router", "prompts")
PRODUCT = (*LIBRARY, "bench", "examples")
DB_CLIENTS = ("kuzu", "lancedb", "falkordb")

# Cypher clauses as this codebase writes them: upper-case keywords before a node
# pattern, or a relationship pattern ``)-[...]->(``.
_CYPHER = (
    regex.compile(r"\b(?:OPTIONAL\s+)?MATCH\s*\(.*?\bRETURN\b", regex.DOTALL),
    regex.compile(r"\bMERGE\s*\("),
    regex.compile(r"\bCREATE\s*\("),
    regex.compile(r"\bDETACH\s+DELETE\b"),
    regex.compile(r"\)\s*<?-\[[^\]]*\]->?\s*\("),
)


def imported_modules(source: str) -> set[str]:
    """Every module a source imports (absolute imports), wherever the import stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def storage_imports(source: str) -> list[str]:
    """Imports of ``recall_engine.storage`` (the package or any module of it)."""
    return sorted(
        m for m in imported_modules(source) if m.split(".")[:2] == ["recall_engine", "storage"]
    )


def client_imports(source: str) -> list[str]:
    """Imports of a database client (``kuzu``, ``lancedb``)."""
    return sorted(m for m in imported_modules(source) if m.split(".")[0] in DB_CLIENTS)


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _literals(tree: ast.AST) -> Iterator[ast.Constant | ast.JoinedStr]:
    """String literals; an f-string counts once, as its text parts."""
    inside_fstring = {
        id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
        for part in node.values
    }  # fmt: skip
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in inside_fstring
        ):
            yield node


def _text(node: ast.Constant | ast.JoinedStr) -> str:
    if isinstance(node, ast.Constant):
        return str(node.value)
    return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)


def cypher_literals(source: str) -> list[str]:
    """The string literals of a source that are Cypher text (docstrings aside)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    out = []
    for node in _literals(tree):
        if id(node) in skip:
            continue
        text = _text(node)
        if any(pattern.search(text) for pattern in _CYPHER):
            out.append(text[:80])
    return out


def _files(packages: tuple[str, ...]) -> list[str]:
    return sorted(
        p.relative_to(ROOT).as_posix()
        for pkg in packages
        if (ROOT / pkg).is_dir()
        for p in (ROOT / pkg).rglob("*.py")
    )


def _source(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


SEAM_SIDE = [f for f in _files(LIBRARY) if f.startswith(("recall_engine/server/", "recall_engine/tenants/"))]  # fmt: skip
NOT_STORAGE = [f for f in _files(PRODUCT) if not f.startswith("recall_engine/storage/")]
NO_CYPHER = [
    f for f in _files(LIBRARY) if not f.startswith(("recall_engine/read/", "recall_engine/storage/"))
]  # fmt: skip


def test_the_scanned_trees_are_found() -> None:
    assert "recall_engine/server/app.py" in SEAM_SIDE
    assert "recall_engine/tenants/ids.py" in SEAM_SIDE
    assert "retrievers/cypher.py" in NO_CYPHER and "bench/locomo.py" in NOT_STORAGE


@pytest.mark.parametrize("path", SEAM_SIDE)
def test_server_and_tenants_do_not_import_storage(path: str) -> None:
    assert storage_imports(_source(path)) == [], f"{path} imports the storage package"


@pytest.mark.parametrize("path", NOT_STORAGE)
def test_only_storage_imports_a_database_client(path: str) -> None:
    assert client_imports(_source(path)) == [], f"{path} imports a database client"


@pytest.mark.parametrize("path", NO_CYPHER)
def test_only_read_and_storage_write_cypher(path: str) -> None:
    assert cypher_literals(_source(path)) == [], f"{path} builds Cypher text"


# every rule can fail


BAD_STORAGE = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from recall_engine.storage.tenant import TenantStore

def later():
    import recall_engine.storage.lexical
    from recall_engine import storage
"""


def test_the_storage_rule_catches_every_kind_of_import() -> None:
    found = storage_imports(BAD_STORAGE)
    assert "recall_engine.storage.tenant" in found
    assert "recall_engine.storage.lexical" in found
    assert "recall_engine.storage" in found
    assert storage_imports("from recall_engine.read.api import ReadAPI\n") == []


def test_the_client_rule_catches_kuzu_and_lancedb() -> None:
    assert client_imports("import kuzu\n") == ["kuzu"]
    assert client_imports("def f():\n    from lancedb.table import Table\n") == [
        "lancedb.table",
        "lancedb.table.Table",
    ]
    assert client_imports("import kuzudb_notes\nfrom lance_helpers import x\n") == []


BAD_CYPHER = '''
"""A docstring may show MATCH (n:Entity) RETURN n.name as an example."""
LABEL = "Entity"
FIND = "MATCH (e:Entity) WHERE e.id = $id RETURN e.name"
SPLIT = (
    "MATCH (a:Entity)-[r:RELATES]->(b:Entity) "
    "RETURN r.id"
)
WRITE = f"MERGE (n:{LABEL} {{id: $id}})"
MAKE = "CREATE (c:Chunk {id: $id})"
PATH = f"WITH a, b MATCH (a)-[:MENTIONS]->(b) WHERE b.x = {1} RETURN a"
'''


def test_the_cypher_rule_catches_literals_and_f_strings() -> None:
    found = cypher_literals(BAD_CYPHER)
    assert len(found) == 5, found
    assert not any("docstring" in f for f in found)


def test_the_cypher_rule_lets_prose_and_sql_through() -> None:
    fine = """
MESSAGE = "No match (nothing returned); create a dataset first."
SQL = "SELECT id FROM notes WHERE notes MATCH ? ORDER BY rank"
TABLE = "CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY)"
"""
    assert cypher_literals(fine) == []
