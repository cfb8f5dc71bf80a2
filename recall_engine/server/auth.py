"""Bearer authentication: API keys, checked against the registry's key store.

A missing, malformed or unknown key answers 401; a key of another tenant 403.
With authentication off (``--no-auth``, local development) every request acts
as an admin.

Rate limits: a known key spends from its own bucket (``--rate-limit``,
``--burst``). A failed authentication spends from two buckets
(``FAILURES_PER_S``, ``FAILURE_BURST``): one of the client address
(``server.addresses``: the peer, or the client behind trusted proxies) and one of
the presented key's digest (never the key). Once either is empty, a request that
fails answers 429 instead of 401.

A valid key is never refused for its address's failures: it is recognised by
its digest first (one SHA-256 and a comparison per stored key, the same bounded
work a wrong key costs), so an anonymous client sharing a valid client's
address, a NAT or an untrusted proxy, cannot lock it out. Guessing is kept
hopeless by the keys' strength (generated keys hold 256 random bits; given keys
need 16 characters and enough distinct ones), not by the throttle; the throttle
keeps a flood of wrong keys answered by 429 at that bounded cost.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from fastapi import Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from recall_engine.server.addresses import ClientAddress
from recall_engine.server.errors import ApiError
from recall_engine.server.ratelimit import Buckets, TokenBuckets, make_buckets, retry_after
from recall_engine.state.redis_store import RedisStore
from recall_engine.tenants.registry import ADMIN, TenantRegistry, key_digest

FAILURES_PER_S = 1.0
FAILURE_BURST = 20

# Declares the bearer scheme on every route that depends on the authenticator;
# the header is read below, so that a bad one gets the envelope, not FastAPI's 403.
BEARER = HTTPBearer(auto_error=False, description="An API key: `Authorization: Bearer <key>`.")
_DECLARED = Security(BEARER)


@dataclass(frozen=True)
class Principal:
    tenant_id: str  # ADMIN: every tenant

    @property
    def is_admin(self) -> bool:
        return self.tenant_id == ADMIN

    def check(self, tenant_id: str) -> None:
        """Raises ApiError 403 unless this principal may act on ``tenant_id``."""
        if not self.is_admin and tenant_id != self.tenant_id:
            raise ApiError(
                403, "FORBIDDEN", "This API key does not belong to the tenant in the request."
            )

    def check_admin(self) -> None:
        """Raises ApiError 403 unless this is an admin key."""
        if not self.is_admin:
            raise ApiError(403, "FORBIDDEN", "This operation needs an admin key.")


class Authenticator:
    def __init__(
        self,
        registry: TenantRegistry,
        buckets: Buckets,
        *,
        enabled: bool,
        failures: Buckets | None = None,
        addresses: ClientAddress | None = None,
    ) -> None:
        self.registry = registry
        self.buckets = buckets
        self.failures: Buckets = failures or TokenBuckets(FAILURES_PER_S, FAILURE_BURST)
        self.enabled = enabled
        self.addresses = addresses or ClientAddress()

    async def __call__(
        self,
        request: Request,
        _declared: HTTPAuthorizationCredentials | None = _DECLARED,
    ) -> Principal:
        """The principal of the request's key (a FastAPI dependency).

        Checked on the event loop when the key store is this data dir's SQLite file
        and the buckets are this process's (microseconds, as the tenant API's own
        registry lookups on the loop); in a worker thread when either is a server
        (a state database, Redis). A sync dependency would cost every request a trip
        to FastAPI's thread pool.
        """
        if self.is_local():
            return self.authenticate(request)
        return await asyncio.to_thread(self.authenticate, request)

    def is_local(self) -> bool:
        """Whether the key store and buckets are this process's (checks take microseconds)."""
        return (
            self.registry.path is not None
            and isinstance(self.buckets, TokenBuckets)
            and isinstance(self.failures, TokenBuckets)
        )

    def authenticate(self, request: Request) -> Principal:
        """``__call__``'s check, blocking.

        Raises:
            ApiError: 401 for a missing or unknown key, 429 when a bucket is empty.
        """
        peer = request.client.host if request.client else None
        client = self.addresses(peer, request.headers.getlist("x-forwarded-for"))
        return self.check(request.headers.get("authorization", ""), client)

    def check(self, authorization: str, client: str) -> Principal:
        """The principal of an ``Authorization`` header value sent from ``client``
        (an address); the check of every transport (HTTP API, MCP over HTTP).

        Raises:
            ApiError: 401 for a missing or unknown key, 429 when a bucket is empty.
        """
        scheme, _, key = authorization.partition(" ")
        key = key.strip()
        if not self.enabled:
            _limit(self.buckets.take(f"ip:{client}"))
            return Principal(ADMIN)
        presented = scheme.lower() == "bearer" and bool(key)
        tenant = self.registry.key_tenant(key) if presented else None
        if tenant is not None:
            _limit(self.buckets.take(f"key:{key_digest(key)}"))
            return Principal(tenant)
        waits = [self.failures.take(f"ip:{client}")]
        if presented:
            waits.append(self.failures.take(f"key:{key_digest(key)}"))
        _limit(max(waits))
        if not presented:
            raise _unauthorized("Missing API key: send 'Authorization: Bearer <key>'.")
        raise _unauthorized("Invalid API key.")


def make_authenticator(
    registry: TenantRegistry,
    *,
    enabled: bool,
    rate: float,
    burst: int,
    trusted_proxies: tuple[str, ...] = (),
    redis_url: str | None = None,
) -> Authenticator:
    """The authenticator of a server's settings: request buckets of ``rate`` and
    ``burst`` per key, failed-login buckets per address and per presented key, in
    Redis (shared by replicas) when ``redis_url`` is given, else in this process.

    Raises:
        InvalidInputError: a trusted proxy that is not an address or CIDR.
    """
    addresses = ClientAddress(trusted_proxies)
    redis = RedisStore(redis_url) if redis_url else None
    return Authenticator(
        registry,
        make_buckets(rate, burst, redis=redis, name="requests"),
        enabled=enabled,
        failures=make_buckets(FAILURES_PER_S, FAILURE_BURST, redis=redis, name="failures"),
        addresses=addresses,
    )


def _limit(wait: float) -> None:
    if wait > 0:
        raise ApiError(
            429,
            "RATE_LIMITED",
            f"Too many requests; retry in {retry_after(wait)} s.",
            headers={"Retry-After": retry_after(wait)},
        )


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "UNAUTHORIZED", message, headers={"WWW-Authenticate": "Bearer"})
