"""The Postgres driver of the state seam: one schema of a server that every
replica shares (``RECALL_ENGINE_STATE_URL=postgresql://user:pass@host:5432/db``).

``?schema=NAME`` in the URL picks the schema (default ``public``); it is
created and migrated on open (``state.migrate``). Connections come from a small
pool (threads of a server read and write at once, and a pool replaces a
connection the server dropped); every connection's ``search_path`` is the
schema. Errors name the URL without its password.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from recall_engine.core.errors import ConfigError, StoreError
from recall_engine.state.migrate import migrate
from recall_engine.state.sql import Cursor, Dialect
from recall_engine.state.urls import POSTGRES_SCHEMES, check_url, redacted, scrub

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

CONNECT_TIMEOUT_S = 5
POOL_TIMEOUT_S = 10.0
POOL_MAX = 8
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def split_schema(url: str) -> tuple[str, str]:
    """``(libpq URL, schema)``: the ``schema`` query parameter taken out of ``url``.

    Raises:
        ConfigError: a schema name that is not lowercase letters, digits and ``_``.
    """
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = "public"
    rest = []
    for key, value in query:
        if key == "schema":
            schema = value
        else:
            rest.append((key, value))
    if not _SCHEMA_NAME.match(schema):
        raise ConfigError(
            f"state URL {redacted(url)!r}: schema {schema!r} must be lowercase letters, digits "
            "and '_' (at most 63, not starting with a digit)."
        )
    return urlunsplit(parts._replace(query=urlencode(rest))), schema


class _Conn:
    """A psycopg connection that takes the seam's ``?`` placeholders."""

    def __init__(self, conn: Connection[TupleRow]) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[object] = (), /) -> Cursor:
        return self._conn.execute(sql.replace("%", "%%").replace("?", "%s"), tuple(params))


class PostgresDatabase:
    """Every kind of state, as tables of one Postgres schema."""

    dialect: Dialect = "postgres"

    def __init__(self, url: str) -> None:
        """Connect, migrate the schema, and open the pool.

        Raises:
            ConfigError: a URL that is not ``postgresql://``, or a bad schema name.
            StoreError: the server cannot be reached or refused the migration.
        """
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = check_url(url, schemes=POSTGRES_SCHEMES, what="state URL")
        conninfo, self.schema = split_schema(self.url)
        options = f"-c search_path={self.schema}"
        try:
            with psycopg.connect(
                conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, options=options
            ) as conn:
                migrate(conn, self.schema)
        except psycopg.Error as exc:
            raise self._error("could not be opened", exc) from None
        self._pool = ConnectionPool(
            conninfo,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S, "options": options},
            min_size=1,
            max_size=POOL_MAX,
            timeout=POOL_TIMEOUT_S,
            check=ConnectionPool.check_connection,
            open=True,
        )
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"PostgresDatabase({redacted(self.url)!r}, schema={self.schema!r})"

    def _error(self, what: str, exc: BaseException) -> StoreError:
        reason = scrub(str(exc).strip() or type(exc).__name__, self.url)
        return StoreError(f"The state store at {redacted(self.url)} {what}: {reason}")

    @contextmanager
    def _connection(self) -> Iterator[Connection[TupleRow]]:
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise self._error("cannot be reached", exc) from None
        except psycopg.Error as exc:
            raise self._error("failed", exc) from None

    @contextmanager
    def read(self) -> Iterator[_Conn]:
        current = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        with self._connection() as conn:
            yield _Conn(conn)

    @contextmanager
    def write(self) -> Iterator[_Conn]:
        current = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        with self._connection() as conn, conn.transaction():
            self._local.conn = _Conn(conn)
            try:
                yield self._local.conn
            finally:
                self._local.conn = None

    def data_version(self) -> int:
        with self.read() as conn:
            return int(conn.execute("SELECT n FROM registry_version WHERE id = 1").fetchone()[0])

    def close(self) -> None:
        self._pool.close()
