"""The state database a configuration names: Postgres when ``state_url`` is set,
else SQLite in the data dir.

On Postgres every kind of state is a table of one schema (``state.postgres``),
so replicas that share the URL share users, grants, tenants, key digests,
sessions, the ingest ledger and the writer leases. On SQLite the ledger and the
leases live in ``state.sqlite3``, while users, tenants and sessions keep the
files they have always had (``identity.sqlite3``, ``tenants.sqlite3``,
``sessions.sqlite3``), so that a data dir made by an older version opens as it
was: ``registry_source`` tells each registry which of the two to open.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from recall_engine.state.lease import SQLITE_SCHEMA as LEASE_SCHEMA
from recall_engine.state.ledger import SQLITE_SCHEMA as LEDGER_SCHEMA
from recall_engine.state.sql import SqlDatabase

if TYPE_CHECKING:
    from recall_engine.config import RecallConfig

FILE_NAME = "state.sqlite3"


def open_state(config: RecallConfig) -> SqlDatabase:
    """The state database of ``config`` (the caller closes it). A SQLite file is
    created on its first write, never by opening it.

    Raises:
        ConfigError: a bad ``state_url`` (scheme, schema name).
        StoreError: the Postgres server cannot be reached or refused the migration
            (the message shows the URL without its password).
    """
    if config.state_url is not None:
        from recall_engine.state.postgres import PostgresDatabase

        return PostgresDatabase(config.state_url)
    from recall_engine.state.sqlite import SqliteFile

    return SqliteFile(config.data_dir / FILE_NAME, LEDGER_SCHEMA + LEASE_SCHEMA, wal=True)


def registry_source(config: RecallConfig, db: SqlDatabase) -> Path | SqlDatabase:
    """What the identity, tenant and session registries open: the shared database
    on Postgres, the data dir (their own files in it) on SQLite."""
    return db if db.dialect == "postgres" else config.data_dir
