"""HydraDB v2 ``context/list``: a collection's knowledge sources or memories, one
page at a time, optionally narrowed by id and by exact metadata values.

``filters`` match exact values: ``metadata`` the database attributes (a declared
one with a value of its kind), ``additional_metadata`` per-source fields, and
``source_fields`` the source's own ``SOURCE_FIELDS``; an operator object, an
unknown source field or a value of the wrong kind is a 400, never a filter that
matches nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from typing import Any

from recall_engine.core.hydra import DEFAULT_SUB_TENANT
from recall_engine.read.attributes import MAX_CONDITIONS
from recall_engine.server.errors import ApiError
from recall_engine.server.v2_models import (
    ListFilter,
    ListRequest,
    ListResponse,
    MemoryListItem,
    Pagination,
    SourceItem,
)
from recall_engine.tenants import TenantAPI
from recall_engine.tenants.attribute_kinds import Attributes
from recall_engine.tenants.errors import InvalidFilterError
from recall_engine.tenants.ids import MEMORIES
from recall_engine.tenants.scopes import KINDS

SOURCE_FIELDS = ("title", "type", "description", "url", "timestamp")
"""The source's own fields that ``filters.source_fields`` may name."""
_OPERATOR_NAMES = ("equals", "contains", "contains_any")


def _holds(stored: Mapping[str, object], wanted: Mapping[str, object] | None) -> bool:
    return all(_same(stored.get(k), v) for k, v in (wanted or {}).items())


def _same(stored: object, wanted: object) -> bool:
    """Equal as JSON values: a boolean equals a boolean only (JSON's true is not 1)."""
    if isinstance(stored, bool) or isinstance(wanted, bool):
        return type(stored) is type(wanted) and stored == wanted
    return stored == wanted


def check_filters(filters: ListFilter, attributes: Attributes) -> None:
    """That every field of ``filters`` can match: at most ``MAX_CONDITIONS`` fields,
    no operator objects, ``source_fields`` among ``SOURCE_FIELDS`` with a string,
    and a declared attribute in ``metadata`` compared with a value of its kind.

    Raises:
        ApiError: 400 naming the field and what it takes.
    """
    groups = (
        ("metadata", filters.metadata or {}),
        ("additional_metadata", filters.additional_metadata or {}),
        ("source_fields", filters.source_fields or {}),
    )
    count = sum(len(wanted) for _, wanted in groups)
    if count > MAX_CONDITIONS:
        raise _invalid(f"filters name {count} fields; at most {MAX_CONDITIONS} are allowed.")
    for group, wanted in groups:
        for key, value in wanted.items():
            where = f"filters.{group} {key!r}"
            if isinstance(value, Mapping) and value and all(_is_operator(k) for k in value):
                raise _invalid(
                    f"{where}: a listing matches exact values, and {{{', '.join(value)}}} is "
                    "an operator; send the value itself (to compare with operators, use "
                    "/query with attributes)."
                )
            if group == "source_fields" and key not in SOURCE_FIELDS:
                raise _invalid(
                    f"{where}: not a source field; use one of {', '.join(SOURCE_FIELDS)}."
                )
            if group == "source_fields" and not isinstance(value, str | None):
                raise _invalid(f"{where}: takes a string, got {type(value).__name__}.")
            if group == "metadata" and attributes.kind_of(key) in ("text", "number", "bool"):
                try:
                    attributes.check(key, "$eq", [value], where=where, spelled={"$eq": "a listing"})
                except InvalidFilterError as exc:
                    raise _invalid(str(exc)) from None


def _is_operator(key: object) -> bool:
    return str(key).startswith("$") or key in _OPERATOR_NAMES


def _invalid(message: str) -> ApiError:
    return ApiError(400, "VALIDATION_ERROR", message)


def _passes(row: Mapping[str, Any], *, filters: ListFilter) -> bool:
    """The source holds every exact value ``filters`` asks of it."""
    return (
        _holds(row["tenant_metadata"], filters.metadata)
        and _holds(row["document_metadata"], filters.additional_metadata)
        and _holds(row, filters.source_fields)
    )


async def list_context(
    api: TenantAPI, database: str, collection: str | None, body: ListRequest
) -> ListResponse:
    """One page of ``body.type``'s items, oldest first.

    Raises:
        TenantNotFoundError: no such database.
        ApiError: 400 for ``filters`` that ``check_filters`` refuses.
    """
    sub = collection or DEFAULT_SUB_TENANT
    where = None
    if body.filters is not None:
        check_filters(body.filters, Attributes(api.registry.get(database).metadata_schema))
        where = partial(_passes, filters=body.filters)
    listings = [
        (
            wanted,
            await api.listing(
                database,
                sub_tenant_id=collection,
                collection=wanted,
                source_ids=body.ids or None,
                where=where,
            ),
        )
        for wanted in KINDS[body.type]
    ]
    total = sum(listing.total for _, listing in listings)
    start = (body.page - 1) * body.page_size
    page: list[tuple[str, dict[str, Any]]] = []
    for kind_of_page, listing in listings:  # the kinds one after the other, as one list
        stop = start + body.page_size - len(page)
        page += [(kind_of_page, row) for row in await listing.page(start, stop)]
        start = max(0, start - listing.total)
    sources: list[SourceItem] = []
    memories: list[MemoryListItem] = []
    for kind, row in page:
        common: dict[str, Any] = {
            "database": database,
            "tenant_id": database,
            "collection": sub,
            "sub_tenant_id": sub,
            "title": row.get("title"),
            "type": row.get("type"),
            "description": row.get("description"),
            "timestamp": row.get("timestamp"),
            "metadata": row.get("tenant_metadata") or {},
            "additional_metadata": row.get("document_metadata") or {},
        }
        if kind == MEMORIES:
            memories.append(MemoryListItem(memory_id=row["id"], **common))
        else:
            sources.append(SourceItem(id=row["id"], **common))
    pages = max(1, math.ceil(total / body.page_size))
    return ListResponse(
        sources=sources if body.type != "memory" else None,
        user_memories=memories if body.type != "knowledge" else None,
        pagination=Pagination(
            page=body.page,
            page_size=body.page_size,
            total=total,
            total_pages=pages,
            has_next=body.page < pages,
            has_previous=body.page > 1,
        ),
        total=total,
        message=f"{total} items",
    )
