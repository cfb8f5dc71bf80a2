"""Bearer authentication: API keys, checked against the registry's key store.

A missing, malformed or unknown key answers 401; a key of another tenant 403.
With authentication off (``--no-auth``, local development) every request acts
as an admin.

Rate limits: a known key spends from its own bucket (``--rate-limit``,
``--burst``). Failed authentication spends from a bucket of the client address
(``FAILURES_PER_S``, ``FAILURE_BURST``), whatever key was presented; once it is
empty every request from that address answers 429 before any key is checked,
so guessing keys from one address stays slow and answers nothing.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from fastapi import Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from recall_engine.server.errors import ApiError
from recall_engine.server.ratelimit import Buckets, TokenBuckets, retry_after
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
    ) -> None:
        self.registry = registry
        self.buckets = buckets
        self.failures: Buckets = failures or TokenBuckets(FAILURES_PER_S, FAILURE_BURST)
        self.enabled = enabled

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
        if self._local():
            return self.authenticate(request)
        return await asyncio.to_thread(self.authenticate, request)

    def _local(self) -> bool:
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
        header = request.headers.get("authorization", "")
        scheme, _, key = header.partition(" ")
        key = key.strip()
        client = request.client.host if request.client else "unknown"
        if not self.enabled:
            _limit(self.buckets.take(f"ip:{client}"))
            return Principal(ADMIN)
        _limit(self.failures.waiting(client))
        tenant = self.registry.key_tenant(key) if scheme.lower() == "bearer" and key else None
        if tenant is None:
            _limit(self.failures.take(client))
            if scheme.lower() != "bearer" or not key:
                raise _unauthorized("Missing API key: send 'Authorization: Bearer <key>'.")
            raise _unauthorized("Invalid API key.")
        _limit(self.buckets.take(f"key:{key_digest(key)}"))
        return Principal(tenant)


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
