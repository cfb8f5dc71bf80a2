"""The authenticator checks a key on the event loop when everything it reads is
in this process, and in a worker thread when a store is a server: same answers."""

from __future__ import annotations

import threading

import pytest
from starlette.requests import Request

from recall_engine.server.auth import Authenticator
from recall_engine.server.errors import ApiError
from recall_engine.server.ratelimit import TokenBuckets
from recall_engine.tenants.registry import TenantRegistry


class ServerBuckets:
    """In-process buckets posing as a server's (not ``TokenBuckets``), and the
    threads they were read from."""

    def __init__(self) -> None:
        self.inner = TokenBuckets(0, 10)
        self.threads: set[int] = set()

    @property
    def enabled(self) -> bool:
        return self.inner.enabled

    def waiting(self, key: str) -> float:
        self.threads.add(threading.get_ident())
        return self.inner.waiting(key)

    def take(self, key: str) -> float:
        self.threads.add(threading.get_ident())
        return self.inner.take(key)


def _request(key: str | None) -> Request:
    headers = [] if key is None else [(b"authorization", f"Bearer {key}".encode())]
    return Request({"type": "http", "headers": headers, "client": ("127.0.0.1", 1)})


@pytest.mark.parametrize("server", [False, True])
async def test_keys_are_checked_alike_on_the_loop_and_in_a_thread(tmp_path, server):
    registry = TenantRegistry(tmp_path)
    registry.create("acme", [])
    _, key = registry.create_key("acme")
    buckets = ServerBuckets() if server else TokenBuckets(0, 10)
    auth = Authenticator(registry, buckets, enabled=True)
    assert auth.is_local() is not server
    assert (await auth(_request(key))).tenant_id == "acme"
    for bad in (None, "not-a-key-of-anyone-here"):
        with pytest.raises(ApiError) as caught:
            await auth(_request(bad))
        assert caught.value.status == 401
    if server:
        assert buckets.threads and threading.get_ident() not in buckets.threads
