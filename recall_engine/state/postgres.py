"""The Postgres driver of the state seam: one schema of a server that every
replica shares (``RECALL_ENGINE_STATE_URL=postgresql://user:pass@host:5432/db``).

``?schema=NAME`` in the URL picks the schema (default ``public``); it is
created and migrated on open (``state.migrate``). Connections come from a small
pool (threads of a server read and write at once, and a pool replaces a
connection the server dropped); every connection's ``search_path`` is the
schema. Errors name the URL without its password.

Every wait is bounded, so a server that is down or stops answering fails a
call instead of hanging it: connecting (``CONNECT_TIMEOUT_S``), waiting for a
pooled connection (``POOL_TIMEOUT_S``), and each statement: the server stops
one that runs (or waits for a lock) longer than ``timeout_s`` and ends the
session of a client idle inside a transaction that long (a replica that
stalled mid-transaction frees its row locks), and the client cuts a
connection whose answer has not come a second later (``state.deadline``).
Once the server is back, the next call connects again: the pool's attempts
to reconnect in the background give up within half of ``POOL_TIMEOUT_S`` (the
next call starts them afresh) instead of backing off for minutes.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from recall_engine.core.errors import ConfigError, StoreError
from recall_engine.state.deadline import Watchdog
from recall_engine.state.migrate import migrate
from recall_engine.state.sql import Cursor, Dialect
from recall_engine.state.urls import POSTGRES_SCHEMES, check_url, redacted, scrub

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

CONNECT_TIMEOUT_S = 5
POOL_TIMEOUT_S = 10.0
STATEMENT_TIMEOUT_S = 10.0
CUT_GRACE_S = 1.0
"""How long after the server's own statement timeout the client gives up on an answer."""
POOL_MAX = 8
HINT = "Check that the server runs and answers, and that RECALL_ENGINE_STATE_URL names it."
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
    """A psycopg connection that takes the seam's ``?`` placeholders, each
    statement bounded by its database's deadline."""

    def __init__(self, conn: Connection[TupleRow], db: PostgresDatabase) -> None:
        self._conn = conn
        self._db = db

    def execute(self, sql: str, params: Sequence[object] = (), /) -> Cursor:
        with self._db.bounded(self._conn):
            return self._conn.execute(sql.replace("%", "%%").replace("?", "%s"), tuple(params))


class PostgresDatabase:
    """Every kind of state, as tables of one Postgres schema."""

    dialect: Dialect = "postgres"

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = STATEMENT_TIMEOUT_S,
        pool_timeout_s: float = POOL_TIMEOUT_S,
    ) -> None:
        """Connect, migrate the schema, and open the pool.

        Args:
            timeout_s: the longest a statement may run or wait for a lock, and the
                longest a session may sit idle inside a transaction (the client
                gives up on an answer ``CUT_GRACE_S`` later).
            pool_timeout_s: the longest a call waits for a connection.

        Raises:
            ConfigError: a URL that is not ``postgresql://``, or a bad schema name.
            StoreError: the server cannot be reached or refused the migration.
        """
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = check_url(url, schemes=POSTGRES_SCHEMES, what="state URL")
        conninfo, self.schema = split_schema(self.url)
        server_ms = max(1, round(timeout_s * 1000))
        options = (
            f"-c search_path={self.schema} -c statement_timeout={server_ms} "
            f"-c idle_in_transaction_session_timeout={server_ms}"
        )
        self._cut_s = timeout_s + CUT_GRACE_S
        self._watchdog = Watchdog("state-store")
        try:
            with (
                psycopg.connect(
                    conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, options=options
                ) as conn,
                self.bounded(conn),
            ):
                migrate(conn, self.schema)
        except psycopg.Error as exc:
            self._watchdog.close()
            raise self._error("could not be opened", exc) from None
        except BaseException:
            self._watchdog.close()
            raise
        self._pool = ConnectionPool(
            conninfo,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S, "options": options},
            min_size=1,
            max_size=POOL_MAX,
            timeout=pool_timeout_s,
            # Background reconnection gives up (and the next call starts it afresh)
            # within half a call's wait: its backoff would otherwise grow to minutes
            # during an outage and fail every call for as long after the server is back.
            reconnect_timeout=pool_timeout_s / 2,
            check=self._check,
            open=True,
        )
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"PostgresDatabase({redacted(self.url)!r}, schema={self.schema!r})"

    def _error(self, what: str, exc: BaseException) -> StoreError:
        """One line naming the server (without its password) and the reason; what
        to check when the cause is the connection or a timeout."""
        import psycopg
        from psycopg_pool import PoolTimeout

        reason = " ".join(scrub(str(exc), self.url).split()) or type(exc).__name__
        if not reason.endswith((".", "?", "!")):
            reason += "."
        hint = f" {HINT}" if isinstance(exc, psycopg.OperationalError | PoolTimeout) else ""
        return StoreError(f"The state store at {redacted(self.url)} {what}: {reason}{hint}")

    @contextmanager
    def bounded(self, conn: Connection[TupleRow]) -> Iterator[None]:
        """The block's calls on ``conn`` fail (``StoreError``) once the server has not
        answered for ``timeout_s`` plus ``CUT_GRACE_S`` seconds."""
        import psycopg

        with self._watchdog.guard(conn.pgconn.socket, self._cut_s) as guard:
            try:
                yield
            except psycopg.Error:
                if guard.expired:
                    raise StoreError(
                        f"The state store at {redacted(self.url)} did not answer within "
                        f"{self._cut_s:g} s; the connection was dropped. {HINT}"
                    ) from None
                raise

    def _check(self, conn: Connection[TupleRow]) -> None:
        """The pool's check of a connection before it lends it (bounded)."""
        with self.bounded(conn):
            conn.execute("")

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
            yield _Conn(conn, self)

    @contextmanager
    def write(self) -> Iterator[_Conn]:
        current = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        import psycopg

        with self._connection() as raw:
            # BEGIN and COMMIT as statements, so that each is bounded like the rest.
            conn = _Conn(raw, self)
            conn.execute("BEGIN")
            self._local.conn = conn
            try:
                yield conn
            except BaseException:
                self._local.conn = None
                if not raw.broken:
                    with contextlib.suppress(psycopg.Error, StoreError):
                        conn.execute("ROLLBACK")
                raise
            self._local.conn = None
            conn.execute("COMMIT")

    def data_version(self) -> int:
        with self.read() as conn:
            return int(conn.execute("SELECT n FROM registry_version WHERE id = 1").fetchone()[0])

    def close(self) -> None:
        self._pool.close()
        self._watchdog.close()
