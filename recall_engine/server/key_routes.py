"""Admin endpoints of the key store: create, list, revoke and rotate API keys.

Only an admin key may call them (403 otherwise). A created or rotated key is in
that one response and nowhere else: the store keeps its SHA-256 digest, and a
listing shows the key id, the first characters, the tenant and the time. A body
field or query parameter a call does not take is refused (422): a misspelled
``tenant_id`` would list every tenant's keys.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field, model_validator

from recall_engine.core.errors import InvalidInputError
from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ApiError
from recall_engine.server.request_fields import known_query
from recall_engine.tenants.errors import ApiKeyNotFoundError
from recall_engine.tenants.registry import ADMIN, KeyRecord, TenantRegistry


class CreateKeyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tenant_id: str | None = Field(default=None, min_length=1, max_length=100)
    admin: bool = Field(default=False, description="A key for every tenant (no tenant_id).")

    @model_validator(mode="after")
    def _one_owner(self) -> CreateKeyRequest:
        if (self.tenant_id is None) == (not self.admin):
            raise ValueError("pass tenant_id for a tenant's key, or admin=true for an admin key")
        if self.tenant_id == ADMIN:
            raise ValueError(
                f"tenant_id {ADMIN!r} is reserved for admin keys; pass admin=true for an admin key"
            )
        return self


class KeyIdRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key_id: str = Field(min_length=1, max_length=100)


class ApiKeyInfo(BaseModel):
    key_id: str
    tenant_id: str | None = Field(description="None for an admin key.")
    admin: bool
    prefix: str = Field(description="The key's first characters ('' for keys stored before).")
    created_at: str

    @classmethod
    def of(cls, record: KeyRecord) -> ApiKeyInfo:
        tenant = None if record.is_admin else record.tenant_id
        return cls(key_id=record.key_id, tenant_id=tenant, admin=record.is_admin,
                   prefix=record.prefix, created_at=record.created_at)  # fmt: skip


class NewApiKey(ApiKeyInfo):
    api_key: str = Field(description="The key itself: shown this once, stored as a digest only.")


class ApiKeyList(BaseModel):
    success: bool = True
    keys: list[ApiKeyInfo]


class RevokedApiKey(BaseModel):
    success: bool = True
    revoked: ApiKeyInfo


def _new(record: KeyRecord, key: str) -> NewApiKey:
    return NewApiKey(**ApiKeyInfo.of(record).model_dump(), api_key=key)


def key_router(registry: TenantRegistry, auth: Authenticator) -> APIRouter:
    router = APIRouter(prefix="/api-keys", tags=["keys"])

    def admin(who: Principal = Depends(auth)) -> Principal:
        who.check_admin()
        return who

    def found(key_id: str) -> None:
        try:
            registry.key(key_id)
        except ApiKeyNotFoundError as exc:
            raise ApiError(404, "API_KEY_NOT_FOUND", str(exc)) from None

    @router.post("/create_api_key")
    async def create_api_key(body: CreateKeyRequest, _: Principal = Depends(admin)) -> NewApiKey:
        tenant = ADMIN if body.admin else str(body.tenant_id)
        try:
            record, key = await asyncio.to_thread(registry.create_key, tenant)
        except InvalidInputError as exc:
            raise ApiError(400, "INVALID_PARAMETERS", str(exc)) from None
        return _new(record, key)

    @router.get("/list_api_keys")
    async def list_api_keys(
        tenant_id: str | None = Query(default=None, min_length=1, max_length=100),
        _: Principal = Depends(admin),
        checked: None = Depends(known_query),
    ) -> ApiKeyList:
        records = await asyncio.to_thread(registry.keys, tenant_id)
        return ApiKeyList(keys=[ApiKeyInfo.of(r) for r in records])

    @router.post("/revoke_api_key")
    async def revoke_api_key(body: KeyIdRequest, _: Principal = Depends(admin)) -> RevokedApiKey:
        found(body.key_id)
        record = await asyncio.to_thread(registry.revoke_key, body.key_id)
        return RevokedApiKey(revoked=ApiKeyInfo.of(record))

    @router.post("/rotate_api_key")
    async def rotate_api_key(body: KeyIdRequest, _: Principal = Depends(admin)) -> NewApiKey:
        found(body.key_id)
        record, key = await asyncio.to_thread(registry.rotate_key, body.key_id)
        return _new(record, key)

    return router
