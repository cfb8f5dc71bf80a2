"""v2 filters as HydraDB documents them: a field named in ``attributes`` or at the
top of ``metadata_filters`` is a declared database attribute, compared as its
declared type allows (contains and lists on text and list fields only, a number
with numbers); a listing's filters match exact values of known fields. Anything
else is a 400 naming the field, the operator and what is allowed, never a filter
that silently matches nothing or everything; and every filter is bounded."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.server.conftest import KEYS, LiveServer
from tests.server.test_v2_http import v2_error

SCHEMA = [
    {"name": "dept", "data_type": "VARCHAR", "enable_match": True},
    {"name": "level", "data_type": "INT64", "enable_match": True},
    {"name": "active", "data_type": "BOOL", "enable_match": True},
    {"name": "tags", "data_type": "ARRAY", "enable_match": True},
    {"name": "note", "data_type": "VARCHAR"},  # declared, not enable_match
]
SOURCES = [
    {
        "id": "a",
        "title": "Alpha",
        "text": "Refunds are paid within fourteen days.",
        "metadata": {"dept": "eng", "level": 3, "active": True, "tags": ["x", "y"]},
        "additional_metadata": {"kind": "policy"},
    },
    {
        "id": "b",
        "title": "Beta",
        "text": "Refunds in cash are paid at the desk.",
        "metadata": {"dept": "ops", "level": 1, "active": False, "tags": ["y"]},
        "additional_metadata": {"kind": "faq"},
    },
]


@pytest.fixture
def http(live: LiveServer):
    with live.client(KEYS["acme"]) as client:
        made = client.post(
            "/databases", json={"database": "acme", "database_metadata_schema": SCHEMA}
        )
        made.raise_for_status()
        stored = client.post(
            "/context/ingest", json={"database": "acme", "app_knowledge": json.dumps(SOURCES)}
        )
        assert stored.json()["data"]["success_count"] == 2, stored.text
        yield client


def found(http: httpx.Client, **filters: Any) -> set[str]:
    reply = http.post("/query", json={"database": "acme", "query": "refunds paid", **filters})
    assert reply.status_code == 200, reply.text
    return {c["id"] for c in reply.json()["data"]["chunks"]}


def refused(http: httpx.Client, path: str, **body: Any) -> str:
    """The message of the 400 that ``path`` answers ``body`` with (a query's asks
    ``refunds paid``)."""
    question = {"query": "refunds paid"} if path == "/query" else {}
    reply = http.post(path, json={"database": "acme", **question, **body})
    assert reply.status_code == 400, (body, reply.text)
    error = v2_error(reply)
    assert error["code"] in ("VALIDATION_ERROR", "INVALID_PARAMETERS"), error
    return str(error["message"])


def listed(http: httpx.Client, filters: dict[str, Any]) -> set[str]:
    reply = http.post("/context/list", json={"database": "acme", "filters": filters})
    assert reply.status_code == 200, reply.text
    return {s["id"] for s in reply.json()["data"]["sources"]}


def test_attribute_operators_fit_the_declared_kind(http: httpx.Client) -> None:
    assert found(http, attributes={"dept": {"$contains": "eng"}}) == {"a"}
    assert found(http, attributes={"tags": {"$contains_any": ["x"]}}) == {"a"}
    assert found(http, attributes={"level": {"$gte": 2}}) == {"a"}
    assert found(http, attributes={"active": False}) == {"b"}
    assert found(http, attributes={"dept": {"$not": {"$in": ["eng"]}}}) == {"b"}
    for attributes, named in [
        ({"level": {"$contains": "3"}}, ("$contains", "'level'", "INT64", "$gte")),
        ({"level": {"$not": {"$contains_any": ["3"]}}}, ("$contains_any", "'level'", "$eq")),
        ({"active": {"$gt": 0}}, ("$gt", "'active'", "BOOL", "$exists")),
        ({"tags": {"$lt": "z"}}, ("$lt", "'tags'", "ARRAY", "$contains")),
        ({"level": {"$eq": "3"}}, ("$eq", "'level'", "numbers", "str")),
        ({"level": "3"}, ("'level'", "numbers")),
        ({"active": {"$in": [1]}}, ("$in", "'active'", "true or false")),
        ({"dept": {"$gte": 3}}, ("$gte", "'dept'", "strings")),
        ({"nosuch": {"$exists": True}}, ("'nosuch'", "not a database attribute", "dept, level")),
        ({"level.x": 1}, ("'level'", "INT64", "JSON")),
    ]:
        message = refused(http, "/query", attributes=attributes)
        assert message.startswith("attributes"), message
        assert all(n in message for n in named), (attributes, message)


def test_legacy_metadata_filters_fit_the_declared_kind(http: httpx.Client) -> None:
    assert found(http, metadata_filters={"dept": {"contains": "ops"}}) == {"b"}
    assert found(http, metadata_filters={"level": {"equals": 3}}) == {"a"}
    for filters, named in [
        ({"level": {"contains": "3"}}, ("contains", "'level'", "INT64", "equals")),
        ({"level": {"contains_any": ["3"]}}, ("contains_any", "'level'", "equals")),
        ({"level": ["3"]}, ("list", "'level'", "VARCHAR", "equals")),
        ({"level": {"equals": "3"}}, ("equals", "'level'", "numbers")),
        ({"active": 1}, ("'active'", "true or false")),
        ({"nosuch": "x"}, ("'nosuch'", "enable_match", "active, dept, level, tags")),
        ({"note": "x"}, ("'note'", "enable_match")),
        ({"dept": ["v"] * 501}, ("'dept'", "at most 500")),
        ({"additional_metadata": {"kind": ["v"] * 501}}, ("additional_metadata.kind", "500")),
        ({"additional_metadata": "policy"}, ("additional_metadata", "object")),
    ]:
        message = refused(http, "/query", metadata_filters=filters)
        assert all(n in message for n in named), (filters, message)
        assert "$" not in message and "tenant_metadata" not in message, message


def test_query_filters_are_bounded(http: httpx.Client) -> None:
    many = {"$or": [{"level": n} for n in range(65)]}
    assert "64" in refused(http, "/query", attributes=many)
    assert "500" in refused(http, "/query", attributes={"dept": {"$in": ["v"] * 501}})
    deep: dict[str, Any] = {"dept": "eng"}
    for _ in range(9):
        deep = {"$and": [deep]}
    assert "levels" in refused(http, "/query", attributes=deep)
    assert found(http, attributes={"dept": {"$in": ["eng"] * 500}}) == {"a"}


def test_listing_filters_match_exact_values_of_known_fields(http: httpx.Client) -> None:
    assert listed(http, {"metadata": {"dept": "eng"}}) == {"a"}
    assert listed(http, {"metadata": {"active": False}}) == {"b"}
    assert listed(http, {"additional_metadata": {"kind": "faq"}}) == {"b"}
    assert listed(http, {"source_fields": {"title": "Alpha"}}) == {"a"}
    assert listed(http, {"additional_metadata": {"kind": "faq"}, "metadata": {"level": 1}}) == {"b"}
    for filters, named in [
        ({"metadata": {"level": {"$in": [3]}}}, ("'level'", "{$in}", "exact values")),
        ({"metadata": {"dept": {"contains": "e"}}}, ("'dept'", "{contains}", "attributes")),
        ({"additional_metadata": {"kind": {"$ne": "x"}}}, ("'kind'", "{$ne}")),
        ({"metadata": {"level": "3"}}, ("'level'", "INT64", "numbers")),
        ({"metadata": {"active": 0}}, ("'active'", "BOOL", "true or false")),
        ({"source_fields": {"titel": "Alpha"}}, ("'titel'", "title, type, description")),
        ({"source_fields": {"title": 3}}, ("'title'", "string")),
        ({"tenant_metadata": {"dept": "eng"}}, ("tenant_metadata", "metadata")),
        ({"metadata": {f"f{n}": "x" for n in range(65)}}, ("65 fields", "64")),
    ]:
        message = refused(http, "/context/list", filters=filters)
        assert all(n in message for n in named), (filters, message)


def test_a_boolean_is_not_a_number_in_a_listing(http: httpx.Client) -> None:
    # an undeclared field is not kind-checked, and still compared as JSON compares
    assert listed(http, {"additional_metadata": {"kind": "policy"}}) == {"a"}
    http.post(
        "/context/ingest",
        json={
            "database": "acme",
            "app_knowledge": json.dumps(
                [{"id": "c", "text": "Flagged.", "additional_metadata": {"flag": True}}]
            ),
        },
    ).raise_for_status()
    assert listed(http, {"additional_metadata": {"flag": True}}) == {"c"}
    assert listed(http, {"additional_metadata": {"flag": 1}}) == set()
