"""v1 ``/list/data`` filters say what they cannot match: a source field that does
not exist or a value that is not a string there, an operator object where a value
goes, an attribute compared with a value its declared type cannot hold, too many
fields, or an empty ``source_ids`` answer 400 naming what was wrong (as v2's
listing does), never a 200 with nothing or everything. Filters that can match
still list what they match, through the official SDK."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.server.conftest import KEYS, LiveServer, error_of

SCHEMA = [
    {"name": "dept", "data_type": "VARCHAR", "enable_match": True},
    {"name": "level", "data_type": "INT64", "enable_match": True},
    {"name": "active", "data_type": "BOOL", "enable_match": True},
]
SOURCES = [
    {
        "id": "a",
        "title": "Alpha",
        "type": "policy",
        "text": "Refunds are paid within fourteen days.",
        "tenant_metadata": {"dept": "eng", "level": 3, "active": True},
        "document_metadata": {"kind": "policy", "flag": True},
    },
    {
        "id": "b",
        "title": "Beta",
        "type": "faq",
        "text": "Refunds in cash are paid at the desk.",
        "tenant_metadata": {"dept": "ops", "level": 1, "active": False},
        "document_metadata": {"kind": "faq"},
    },
]


@pytest.fixture
def http(live: LiveServer):
    with live.client(KEYS["acme"]) as client:
        made = client.post(
            "/tenants/create", json={"tenant_id": "acme", "tenant_metadata_schema": SCHEMA}
        )
        assert made.status_code == 200, made.text
        stored = client.post(
            "/ingestion/upload_knowledge", json={"tenant_id": "acme", "app_sources": SOURCES}
        )
        assert stored.json()["success_count"] == 2, stored.text
        yield client


def listed(http: httpx.Client, **body: Any) -> list[str]:
    reply = http.post("/list/data", json={"tenant_id": "acme", **body})
    assert reply.status_code == 200, reply.text
    return [s["id"] for s in reply.json()["sources"]]


def refused(http: httpx.Client, status: int = 400, **body: Any) -> str:
    reply = http.post("/list/data", json={"tenant_id": "acme", **body})
    assert reply.status_code == status, (body, reply.text)
    detail = error_of(reply)
    assert detail["error_code"] == ("INVALID_PARAMETERS" if status == 400 else "VALIDATION_ERROR")
    return str(detail["message"])


def test_filters_that_cannot_match_are_400s(http: httpx.Client) -> None:
    for filters, named in [
        ({"source_fields": {"name": "Alpha"}}, ("'name'", "title, type, description")),
        ({"source_fields": {"source_id": "a"}}, ("'source_id'", "document_metadata")),
        ({"source_fields": {"title": 3}}, ("'title'", "string")),
        ({"tenant_metadata": {"level": {"$in": [3]}}}, ("'level'", "{$in}", "exact values")),
        ({"tenant_metadata": {"dept": {"equals": "eng"}}}, ("'dept'", "{equals}")),
        ({"document_metadata": {"kind": {"$ne": "x"}}}, ("'kind'", "{$ne}")),
        ({"tenant_metadata": {"level": "3"}}, ("'level'", "INT64", "numbers")),
        ({"tenant_metadata": {"active": 1}}, ("'active'", "BOOL", "true or false")),
        ({"tenant_metadata": {f"f{n}": "x" for n in range(65)}}, ("65 fields", "64")),
    ]:
        message = refused(http, filters=filters)
        assert all(n in message for n in named), (filters, message)
    empty = refused(http, status=422, source_ids=[])
    assert "source_ids" in empty, empty
    typo = refused(http, status=422, filters={"tenant_metadta": {"dept": "eng"}})
    assert "did you mean tenant_metadata" in typo, typo


def test_filters_that_can_match_list_what_they_match(http: httpx.Client) -> None:
    assert listed(http, filters={"tenant_metadata": {"dept": "eng"}}) == ["a"]
    assert listed(http, filters={"tenant_metadata": {"level": 1, "active": False}}) == ["b"]
    assert listed(http, filters={"document_metadata": {"kind": "faq"}}) == ["b"]
    assert listed(http, filters={"source_fields": {"title": "Alpha", "type": "policy"}}) == ["a"]
    assert listed(http, filters={"source_fields": {"url": None}}) == ["a", "b"]
    assert listed(http, filters={"tenant_metadata": {"dept": "hr"}}) == []  # a value none has
    # an undeclared field is compared as JSON compares: true is not 1
    assert listed(http, filters={"document_metadata": {"flag": True}}) == ["a"]
    assert listed(http, filters={"document_metadata": {"flag": 1}}) == []
    assert listed(http, source_ids=["b", "zzz"]) == ["b"]


def test_the_sdk_lists_with_filters(live: LiveServer, http: httpx.Client) -> None:
    hydra_db = pytest.importorskip("hydra_db")
    client = hydra_db.HydraDB(base_url=live.base_url, token=KEYS["acme"], timeout=60)
    found = client.fetch.list_data(
        tenant_id="acme",
        filters={"tenant_metadata": {"dept": "ops"}, "source_fields": {"type": "faq"}},
        include_fields=["title"],
        page=1,
        page_size=10,
    )
    assert [s.id for s in found.sources] == ["b"]
    with pytest.raises(hydra_db.core.api_error.ApiError) as info:
        client.fetch.list_data(tenant_id="acme", filters={"source_fields": {"author": "x"}})
    assert info.value.status_code == 400
    assert "author" in json.dumps(info.value.body)
