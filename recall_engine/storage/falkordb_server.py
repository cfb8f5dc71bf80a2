"""The FalkorDB server of ``RecallConfig.graph_url``, shared by every tenant of an engine.

``falkordb://[:password@]host:port[/db][?prefix=NAME]`` (or ``redis://``,
``rediss://``): each tenant's graph is the FalkorDB graph
``recall-engine:[NAME:]graph:<store name>`` on that server (the store name is the
tenant's folder name, ``config.dir_name``), so two deployments, or two tests,
on one server never meet. The ``falkordb`` client is the optional
``recall-engine[distributed]`` extra (MIT); the FalkorDB server itself is
SSPL-licensed and runs apart from this library.

Two connection pools: reads retry a dropped connection; writes never re-send
(a re-sent ingest could run twice), and wait long enough for a large ingest.
No message names the URL: errors name ``host:port`` only, and the password is
cut out of whatever the client says.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from recall_engine.core.errors import ConfigError, StoreError
from recall_engine.core.key_prefix import KEY_ROOT, take_prefix

if TYPE_CHECKING:
    from falkordb import FalkorDB  # the client ships no types

ROOT_PREFIX = KEY_ROOT
CONNECT_TIMEOUT_S = 3.0
READ_TIMEOUT_S = 70.0
"""Longer than ``read_only_query``'s own bound (60 s), which the server enforces."""
WRITE_TIMEOUT_S = 600.0
SETTING = "graph_url ($RECALL_ENGINE_GRAPH_URL)"
_SCHEMES = {"falkordb": "redis", "redis": "redis", "rediss": "rediss"}


class FalkorServer:
    """Clients of one FalkorDB server and the names of its tenants' graphs;
    safe to share between threads."""

    def __init__(self, url: str) -> None:
        """Connect and check that the server runs FalkorDB.

        Raises:
            ConfigError: not a falkordb://, redis:// or rediss:// URL, a bad
                prefix, or a server without the FalkorDB module.
            StoreError: the server does not answer.
        """
        conn_url, self.prefix, self.where = _split(url)
        self._password = urlsplit(url).password
        try:
            self.reads = self._client(conn_url, timeout=READ_TIMEOUT_S, retries=2)
            self.writes = self._client(conn_url, timeout=WRITE_TIMEOUT_S, retries=0)
            with self.calls("checking the server"):
                modules = self.reads.connection.execute_command("MODULE", "LIST")
        except BaseException:
            self.close()
            raise
        if not any("graph" in str(entry).lower() for entry in modules):
            self.close()
            raise ConfigError(
                f"{SETTING} names {self.where}, which runs no FalkorDB module: point it at "
                "a FalkorDB server (redis-server --loadmodule falkordb.so; `make services`)."
            )

    def __repr__(self) -> str:
        return f"FalkorServer({self.where!r}, prefix={self.prefix!r})"

    def _client(self, conn_url: str, *, timeout: float, retries: int) -> FalkorDB:
        try:
            from falkordb import FalkorDB
            from redis.backoff import ExponentialBackoff
            from redis.retry import Retry
        except ImportError:
            raise ConfigError(
                f"{SETTING} needs the falkordb client: pip install 'recall-engine[distributed]'."
            ) from None
        with self.calls("connecting"):
            try:
                return FalkorDB.from_url(
                    conn_url,
                    socket_connect_timeout=CONNECT_TIMEOUT_S,
                    socket_timeout=timeout,
                    retry=Retry(ExponentialBackoff(cap=1.0, base=0.05), retries),
                    health_check_interval=30,
                )
            except (ValueError, TypeError) as exc:
                raise ConfigError(f"{SETTING} is not usable: {self.scrub(str(exc))}") from None

    def graph_name(self, store_name: str) -> str:
        """The FalkorDB graph of one tenant store."""
        return f"{self.prefix}graph:{store_name}"

    def drop_graph(self, store_name: str) -> None:
        """Delete the graph of one tenant store (nothing happens when there is none).

        Raises:
            StoreError: the server does not answer.
        """
        with self.calls("deleting a graph"):
            self.writes.connection.delete(self.graph_name(store_name))

    def scrub(self, message: str) -> str:
        """``message`` without the URL's password, wherever the client quoted it."""
        return message.replace(self._password, "***") if self._password else message

    @contextmanager
    def calls(self, what: str) -> Iterator[None]:
        """Turns a connection failure inside the block into a ``StoreError`` that
        says ``what`` failed and names the server by host and port only."""
        import redis

        try:
            yield
        except (redis.ConnectionError, redis.TimeoutError, redis.AuthenticationError) as exc:
            reason = self.scrub(str(exc).strip().rstrip(".") or type(exc).__name__)
            raise StoreError(
                f"FalkorDB at {self.where} failed ({what}): {reason}. Check that the server "
                f"runs and that {SETTING} names it."
            ) from None

    def close(self) -> None:
        for client in (getattr(self, "reads", None), getattr(self, "writes", None)):
            if client is not None:
                client.close()


def _split(url: str) -> tuple[str, str, str]:
    """(redis-py URL, graph name prefix, ``host:port`` to show) of a graph URL.

    Raises:
        ConfigError: another scheme, a bad port or a bad prefix.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port or 6379
    except ValueError:
        raise ConfigError(f"{SETTING} is not a valid URL (a port must be a number).") from None
    scheme = _SCHEMES.get(parts.scheme)
    if scheme is None:
        raise ConfigError(f"{SETTING} must start with falkordb://, redis:// or rediss://.")
    where = f"{parts.hostname or 'localhost'}:{port}"
    parts, prefix = take_prefix(parts, what=f"{SETTING} at {where}")
    return urlunsplit(parts._replace(scheme=scheme)), prefix, where
