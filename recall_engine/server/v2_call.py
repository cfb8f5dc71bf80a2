"""One v2 request's scope (``database`` / ``collection``, or v1's old names for
them) and timing, for its answer's ``meta``.

``database`` / ``collection`` are v1's ``tenant_id`` / ``sub_tenant_id``: every v2
call takes both spellings, the old one with a ``meta.deprecation`` notice, and
refuses the two when they disagree.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from fastapi import Request

from recall_engine.server.errors import ApiError
from recall_engine.server.v2_errors import not_honoured
from recall_engine.server.v2_models import Deprecation, Meta, Scoped

SCOPE_FIELDS = ("database", "tenant_id", "collection", "sub_tenant_id")
"""A v2 call's scope fields: the v2 names and v1's old names for them."""


def _one(v2: str | None, v1: str | None, names: tuple[str, str]) -> str | None:
    if v2 and v1 and v2 != v1:
        raise ApiError(
            400,
            "VALIDATION_ERROR",
            f"{names[0]} {v2!r} and its old name {names[1]} {v1!r} disagree; send {names[0]} only.",
        )
    return v2 or v1 or None


class Call:
    """One v2 request's scope and timing, for its ``meta``.

    Args:
        request: the request (its ``request_id`` is the v2 middleware's).
        scoped: a body that carries the scope fields, if any.
        **names: scope fields given otherwise (query parameters, form fields).

    Raises:
        ApiError: 400 with no database, or a v2 name and its old name that disagree.
    """

    def __init__(self, request: Request, scoped: Scoped | None = None, **names: str | None):
        self.started = time.perf_counter()
        self.request_id = str(getattr(request.state, "request_id", "") or uuid.uuid4().hex)
        fields = scoped.model_dump() if scoped is not None else {}
        fields.update(names)
        self.deprecations = [
            Deprecation(
                deprecated_field=old,
                preferred_field=new,
                message=f"{old} is deprecated; send {new}.",
            )
            for old, new in (("tenant_id", "database"), ("sub_tenant_id", "collection"))
            if fields.get(old)
        ]
        database = _one(fields.get("database"), fields.get("tenant_id"), ("database", "tenant_id"))
        if not database:
            raise ApiError(400, "VALIDATION_ERROR", "database: field required.")
        self.database: str = database
        self.collection = _one(
            fields.get("collection"), fields.get("sub_tenant_id"), ("collection", "sub_tenant_id")
        )

    def meta(self) -> Meta:
        """The answer's ``meta``: request id, latency so far, scope, deprecations."""
        return Meta(
            request_id=self.request_id,
            latency_ms=round((time.perf_counter() - self.started) * 1000, 3),
            database=self.database,
            collection=self.collection,
            deprecation=self.deprecations or None,
        )


def scope_names(
    database: str | None, tenant_id: str | None, collection: str | None, sub: str | None
) -> dict[str, str | None]:
    """The scope query parameters of a call, by name, for ``Call``."""
    return {
        "database": database,
        "tenant_id": tenant_id,
        "collection": collection,
        "sub_tenant_id": sub,
    }


def scope_of(form: dict[str, Any]) -> dict[str, str | None]:
    """The database / collection fields (and their old names) of an ingest body.

    Raises:
        ApiError: 400 for one that is not a string (a JSON body may send any value).
    """
    names = {k: form.get(k) for k in SCOPE_FIELDS}
    for name, value in names.items():
        if value is not None and not isinstance(value, str):
            raise ApiError(
                400, "VALIDATION_ERROR", f"{name} must be a string, got {type(value).__name__}."
            )
    return names


def reject_acl(acl: list[str] | None) -> None:
    """Refuse document ACLs other than everyone's (``["*"]``).

    Raises:
        ApiError: 501 ``NOT_IMPLEMENTED``.
    """
    if acl and acl != ["*"]:
        not_honoured("Document ACLs (acl)", "Give each principal its own database and key.")
