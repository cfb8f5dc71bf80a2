"""One Redis server that replicas share (``RECALL_ENGINE_REDIS_URL``), with the
key prefix every key of this deployment starts with.

``?prefix=NAME`` in the URL puts the keys under ``recall-engine:NAME:`` (two
deployments, or tests, on one server never meet); without it they are under
``recall-engine:``. Calls time out after a few seconds, so a server that is
down answers an error instead of hanging a request; errors name the URL
without its password.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from recall_engine.core.errors import ConfigError, StoreError
from recall_engine.core.key_prefix import KEY_ROOT, take_prefix
from recall_engine.state.urls import (
    REDIS_SCHEMES,
    check_url,
    redacted,
    scrub,
)

if TYPE_CHECKING:
    from redis import Redis

ROOT_PREFIX = KEY_ROOT
TIMEOUT_S = 3.0


def split_prefix(url: str) -> tuple[str, str]:
    """``(redis URL, key prefix)``: the ``prefix`` query parameter taken out of ``url``.

    Raises:
        ConfigError: a prefix that is not letters, digits, ``_``, ``.`` and ``-``.
    """
    parts, prefix = take_prefix(urlsplit(url), what=f"Redis URL {redacted(url)!r}")
    return urlunsplit(parts), prefix


class RedisStore:
    """A client of one Redis server and the prefix of this deployment's keys;
    safe to share between threads (redis-py pools its connections)."""

    def __init__(self, url: str) -> None:
        """Nothing connects yet: the first call does.

        Raises:
            ConfigError: not a ``redis://``, ``rediss://`` or ``unix://`` URL, or a
                bad prefix or option.
        """
        import redis

        self.url = check_url(url, schemes=REDIS_SCHEMES, what="Redis URL")
        conn_url, self.prefix = split_prefix(self.url)
        try:
            self.client: Redis = redis.Redis.from_url(
                conn_url,
                socket_connect_timeout=TIMEOUT_S,
                socket_timeout=TIMEOUT_S,
                health_check_interval=30,
            )
            # Builds (does not connect) a connection, so that an option redis-py does
            # not know fails here rather than at the first request.
            self.client.connection_pool.make_connection().disconnect()
        except (ValueError, TypeError) as exc:
            raise ConfigError(
                f"Redis URL {redacted(self.url)!r} is not usable: {scrub(str(exc), self.url)}"
            ) from None

    def __repr__(self) -> str:
        return f"RedisStore({redacted(self.url)!r}, prefix={self.prefix!r})"

    def key(self, *parts: str) -> str:
        """A key of this deployment: the prefix, then ``parts`` joined by ``:``."""
        return self.prefix + ":".join(parts)

    @contextmanager
    def calls(self, what: str) -> Iterator[None]:
        """Turns a Redis failure inside the block into a ``StoreError`` that says
        ``what`` failed, naming the server without its password."""
        import redis

        try:
            yield
        except redis.RedisError as exc:
            reason = " ".join(scrub(str(exc), self.url).split()).rstrip(".")
            raise StoreError(
                f"Redis at {redacted(self.url)} failed ({what}): "
                f"{reason or type(exc).__name__}. Check that the server runs and "
                "RECALL_ENGINE_REDIS_URL names it."
            ) from None

    def ping(self) -> None:
        """Connect and ask the server to answer.

        Raises:
            StoreError: the server cannot be reached or refused the connection.
        """
        with self.calls("connecting"):
            self.client.ping()

    def close(self) -> None:
        self.client.close()
