"""Caller-written Cypher on FalkorDB: ``GRAPH.RO_QUERY`` behind the same guard as Kuzu's.

``GRAPH.RO_QUERY`` refuses every query that would write, on the server itself,
so the guard does not rest on a keyword list; ``cypher_guard.check_read_query``
runs first anyway (one statement, no procedure ``CALL``, bounded generators),
and each refusal gets the same message on both backends. A label or type the
graph does not have is refused too (``check_names``), as Kuzu refuses a table
it does not have. The query reaches the
tenant's own graph only: FalkorDB has no clause that opens another graph.

Bounds: the server stops the query at ``timeout_ms`` (at most ``MAX_TIMEOUT_MS``);
at most ``MAX_ROWS + 1`` rows are handed back (the extra row tells the caller
that rows were left out). FalkorDB sends a result whole, so the row bound limits
what the caller holds, not what crosses the wire. Memory per query is the
server's own ``QUERY_MEM_CAPACITY`` (unbounded by default; the test server sets
256 MiB). It bounds writes too, and an ingest is one query: a 10 MB document
(bench.ingest_large) is refused under 256 MiB, so a deployment sets it above
what its largest remember() needs.

Nodes, relationships and paths come back as plain dicts, shaped like Kuzu's:
a node is its properties with ``_id`` and ``_label``; a relationship adds
``_src`` and ``_dst``; a path is ``{"_nodes": [...], "_rels": [...]}``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from recall_engine.core.cells import Cell, Row
from recall_engine.core.errors import InvalidInputError, QueryTimeoutError
from recall_engine.storage import falkordb_schema as fs
from recall_engine.storage.cypher_guard import _mask, check_read_query
from recall_engine.storage.kuzu_readonly import MAX_ROWS, MAX_TIMEOUT_MS

if TYPE_CHECKING:
    from falkordb import Graph  # the client ships no types

_READ_ONLY = "to be executed only on read-only queries"
_MEMORY = "mem consumption exceeded capacity"
# What FalkorDB says about a query it cannot parse or bind.
_INVALID = ("errmsg:", "invalid input", "unknown function", "not defined", "syntax", "unknown")


def run_read_only(
    graph: Graph, query: str, params: dict[str, object] | None, timeout_ms: int
) -> tuple[list[str], list[Row]]:
    """Run one read-only query on a ``falkordb.Graph``; column names and rows.

    Raises:
        InvalidInputError: the query writes, reaches outside the graph, is not
            valid Cypher, fails on its own values, or needs more memory than
            the server allows a query.
        QueryTimeoutError: it ran past ``timeout_ms``.
        redis.ConnectionError / redis.TimeoutError: the server did not answer
            (the store turns these into ``StoreError``).
    """
    import redis

    check_read_query(query)
    check_names(query)
    timeout_ms = min(MAX_TIMEOUT_MS, max(1, int(timeout_ms)))
    try:
        result = graph.ro_query(query, params or {}, timeout=timeout_ms)
    except (TypeError, ValueError) as exc:  # a parameter the client cannot send
        raise InvalidInputError(f"The Cypher query's parameters are not usable: {exc}") from exc
    except redis.ResponseError as exc:
        raise _query_error(str(exc), timeout_ms) from exc
    columns = [str(column[1]) for column in result.header]
    rows = [[plain(value) for value in row] for row in result.result_set[: MAX_ROWS + 1]]
    return columns, rows


_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NODE_LABELS = re.compile(rf"\(\s*(?:{_NAME})?\s*((?::\s*{_NAME}\s*)+)")
_REL_TYPES = re.compile(rf"\[\s*(?:{_NAME})?\s*:\s*({_NAME}(?:\s*\|\s*:?\s*{_NAME})*)")
LABEL_NAMES = frozenset(label.name for label in fs.LABELS)
TYPE_NAMES = frozenset(rel.name for rel in fs.REL_TYPES)


def check_names(query: str) -> None:
    """Refuse a pattern with a label or relationship type the graph does not have.

    FalkorDB keeps no schema, so ``(n:NoSuchTable)`` would just match nothing;
    Kuzu refuses it, and a text-to-Cypher retry needs that refusal to learn.
    Names in backticks are not checked.

    Raises:
        InvalidInputError: naming the unknown name and the known ones.
    """
    text = _mask(query)
    for pattern, known, what in (
        (_NODE_LABELS, LABEL_NAMES, "label"),
        (_REL_TYPES, TYPE_NAMES, "relationship type"),
    ):
        for match in pattern.finditer(text):
            for name in re.findall(_NAME, match.group(1)):
                if name != "_" and name not in known:
                    raise InvalidInputError(
                        f"The query is not valid Cypher: the graph has no {what} {name!r}. "
                        f"Labels: {', '.join(sorted(LABEL_NAMES))}; relationship types: "
                        f"{', '.join(sorted(TYPE_NAMES))}."
                    )


def plain(value: Cell) -> Cell:
    """A result value as plain Python: graph elements become dicts, recursively."""
    from falkordb import Edge, Node, Path

    if isinstance(value, Node):
        labels = value.labels or []
        return {
            "_id": value.id,
            "_label": labels[0] if labels else None,
            **{k: plain(v) for k, v in value.properties.items()},
        }
    if isinstance(value, Edge):
        return {
            "_id": value.id,
            "_label": value.relation,
            "_src": value.src_node,
            "_dst": value.dest_node,
            **{k: plain(v) for k, v in value.properties.items()},
        }
    if isinstance(value, Path):
        return {
            "_nodes": [plain(n) for n in value.nodes()],
            "_rels": [plain(e) for e in value.edges()],
        }
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def _query_error(message: str, timeout_ms: int) -> Exception:
    lower = message.lower()
    if _READ_ONLY in lower:
        return InvalidInputError(
            "Cypher search is read-only: this query tries to change the graph. "
            "Use remember()/forget() to change what is stored."
        )
    if "timed out" in lower or "timeout" in lower:
        return QueryTimeoutError(
            f"The Cypher query ran past its {timeout_ms} ms limit; narrow it "
            "(add LIMIT or a WHERE clause)."
        )
    if _MEMORY in lower:
        return InvalidInputError(
            "The Cypher query needs more memory than the graph server allows one query; "
            "narrow it (add LIMIT, a WHERE clause, or aggregate less)."
        )
    if any(word in lower for word in _INVALID):
        return InvalidInputError(f"The query is not valid Cypher: {message}")
    # Every other answer of the server is about the query's own values (a type
    # mismatch at run time, a division by zero): the caller's to fix as well.
    return InvalidInputError(f"The Cypher query failed on its values: {message}")
