"""An entity's aliases and lookup keys, stored in Kuzu as text, never as ``STRING[]``.

Kuzu 0.11.3 corrupts a list column that is updated in place: once a row's list
is ``SET`` (an entity gaining an alias or a seen date rewrites its row), rows
appended later in the same node group, by ``COPY`` or ``CREATE``, can read back
another row's list (the first rows' values), in memory and after a checkpoint.
A DATE entity then held the keys of a person of another dataset, the
name-key lookup (``entity_candidates``) missed it, and the next ingest that
named it again inserted it a second time: ``Found duplicated primary key``.
Lists that are only inserted and deleted (``Chunk.message_ids``) are not hit,
and neither are ``STRING`` columns, updated or not.

So the two mutable lists are ``STRING`` columns: ``aliases`` a JSON array (any
text round-trips), ``keys`` the normalised keys joined by ``KEY_SEP`` (split by
``string_split`` in Cypher and by Arrow in ``entity_candidates``).
``migrate`` turns a store written with list columns into this layout once, on
open, recomputing each entity's keys from its name, type and aliases.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Protocol

from recall_engine.core.graph import Entity, EntityType, lookup_keys

KEY_SEP = "\x1f"
"""Separates lookup keys in ``Entity.keys`` (the ASCII unit separator, which
normalised names never hold; one inside a key is turned into a space)."""


class Connection(Protocol):
    def execute(self, query: str, params: dict[str, object] | None = None) -> Any: ...


def encode_keys(keys: Iterable[str]) -> str:
    """``keys``, sorted and deduplicated, as one ``KEY_SEP``-joined string."""
    return KEY_SEP.join(sorted({k.replace(KEY_SEP, " ") for k in keys if k}))


def entity_keys(entity: Entity) -> str:
    """The encoded lookup keys of ``entity`` (``core.graph.lookup_keys``)."""
    return encode_keys(lookup_keys(entity))


def encode_aliases(aliases: Iterable[str]) -> str:
    """``aliases`` as a JSON array."""
    return json.dumps(list(aliases), ensure_ascii=False)


def migrate(conn: Connection) -> bool:
    """Convert ``Entity.aliases``/``Entity.keys`` from ``STRING[]`` to text, keys
    recomputed; return whether anything was converted.

    Steps, each committed and checkpointed before the next (Kuzu 0.11.3 crashes
    in the checkpoint after a column that was just filled is dropped with the
    old one): add and fill ``aliases_text``/``keys_text`` in one transaction,
    drop the list columns, rename the new ones. Each step is decided from the
    catalogue, so a conversion cut short resumes on the next open: while the
    ``aliases`` list is there the text columns are filled (again), and once it
    is dropped they were filled before it.

    Raises:
        whatever Kuzu raises; the step in progress is then rolled back.
    """
    types = _columns(conn)
    if types.get("keys") == "STRING" and "keys_text" not in types:
        return False
    lists_left = [c for c in ("aliases", "keys") if types.get(c) == "STRING[]"]
    if lists_left:
        if types.get("aliases") == "STRING[]":
            _fill(conn)
            conn.execute("CHECKPOINT")
        for column in lists_left:
            conn.execute(f"ALTER TABLE Entity DROP {column}")
        conn.execute("CHECKPOINT")
    types = _columns(conn)
    if "aliases" not in types:
        conn.execute("ALTER TABLE Entity RENAME aliases_text TO aliases")
    if "keys" not in types:
        conn.execute("ALTER TABLE Entity RENAME keys_text TO keys")
    conn.execute("CHECKPOINT")
    return True


def _columns(conn: Connection) -> dict[str, str]:
    return dict(conn.execute("CALL table_info('Entity') RETURN name, type").get_all())


def _fill(conn: Connection) -> None:
    """Write every entity's aliases and recomputed keys into the text columns."""
    rows = conn.execute(
        "MATCH (e:Entity) RETURN e.id, e.name, e.normalized_name, e.type, e.namespace, e.aliases"
    ).get_all()
    updates = []
    for eid, name, normalized, type_, namespace, aliases in rows:
        entity = Entity(
            id=eid,
            name=name,
            normalized_name=normalized,
            type=EntityType(type_),
            namespace=namespace,
            aliases=tuple(aliases or ()),
        )
        updates.append(
            {"id": eid, "aliases": encode_aliases(entity.aliases), "keys": entity_keys(entity)}
        )
    conn.execute("BEGIN TRANSACTION")
    try:
        conn.execute("ALTER TABLE Entity ADD IF NOT EXISTS aliases_text STRING")
        conn.execute("ALTER TABLE Entity ADD IF NOT EXISTS keys_text STRING")
        for start in range(0, len(updates), 2048):
            conn.execute(
                "UNWIND $rows AS r MATCH (e:Entity {id: r.id}) "
                "SET e.aliases_text = r.aliases, e.keys_text = r.keys",
                {"rows": updates[start : start + 2048]},
            )
        conn.execute("COMMIT")
    except Exception:
        conn.execute("ROLLBACK")
        raise
