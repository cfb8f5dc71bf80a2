"""Bearer authentication: per-tenant API keys, checked against the registry.

A missing, malformed or unknown key answers 401; a key of another tenant 403.
With authentication off (``--no-auth``, local development) every request acts
as an admin. Rate limiting keys on the presented key (hashed), or on the
client address when there is none.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from recall_engine.server.errors import ApiError
from recall_engine.server.ratelimit import TokenBuckets, retry_after
from recall_engine.tenants.registry import ADMIN, TenantRegistry, key_digest


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


class Authenticator:
    def __init__(self, registry: TenantRegistry, buckets: TokenBuckets, *, enabled: bool) -> None:
        self.registry = registry
        self.buckets = buckets
        self.enabled = enabled

    def __call__(self, request: Request) -> Principal:
        header = request.headers.get("authorization", "")
        scheme, _, key = header.partition(" ")
        key = key.strip()
        client = request.client.host if request.client else "unknown"
        bucket = f"key:{key_digest(key)}" if key else f"ip:{client}"
        wait = self.buckets.take(bucket)
        if wait > 0:
            raise ApiError(
                429,
                "RATE_LIMITED",
                f"Too many requests; retry in {retry_after(wait)} s.",
                headers={"Retry-After": retry_after(wait)},
            )
        if not self.enabled:
            return Principal(ADMIN)
        if scheme.lower() != "bearer" or not key:
            raise _unauthorized("Missing API key: send 'Authorization: Bearer <key>'.")
        tenant = self.registry.key_tenant(key)
        if tenant is None:
            raise _unauthorized("Invalid API key.")
        return Principal(tenant)


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, "UNAUTHORIZED", message, headers={"WWW-Authenticate": "Bearer"})
