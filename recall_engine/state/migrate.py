"""Versioned migrations of the Postgres state schema.

Each file in ``state/migrations`` is one version (``0001_initial.sql``, ...),
applied once, in order, inside one transaction that first takes an advisory
lock, so two replicas starting at once apply each version exactly once (the
second waits, then finds nothing left to do). ``schema_version`` records what
was applied. Files are never edited once released: a change is a new file.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Every migration shipped with the package, oldest first."""
    found = []
    for entry in resources.files("recall_engine.state").joinpath("migrations").iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"state migrations must be numbered 1, 2, ... without gaps: {versions}")
    return found


def lock_key(schema: str) -> int:
    """The advisory lock of ``schema``'s migrations (a signed 64-bit number)."""
    digest = hashlib.sha256(f"recall_engine.state.migrate:{schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def migrate(conn: Connection[TupleRow], schema: str) -> list[int]:
    """Bring ``schema`` up to the newest version; returns the versions applied now.

    ``conn``: a psycopg connection in autocommit mode whose ``search_path``
    starts with ``schema``.
    """
    from psycopg import sql

    applied_now: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(schema),))
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
            "name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        done = {row[0] for row in conn.execute("SELECT version FROM schema_version").fetchall()}
        for migration in migrations():
            if migration.version in done:
                continue
            conn.execute(migration.sql)
            conn.execute(
                "INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                (migration.version, migration.name),
            )
            applied_now.append(migration.version)
    return applied_now
