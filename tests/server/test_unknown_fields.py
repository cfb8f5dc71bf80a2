"""A request field the server does not know is refused, naming it and the fields the
call takes, and changes nothing: a misspelled filter or scope (``metadata_filter``,
``colection``) would otherwise be dropped, and the request would read, write or
delete in the whole tenant or the default collection with a 200. Every field the
official SDKs send (v1 ``hydra-db-python``, v2 ``hydradb-sdk`` 2.1.7) is still taken."""

from __future__ import annotations

import importlib
import inspect
import json
from typing import Any

import httpx
import pytest

from recall_engine.server.fetch_routes import FetchContentRequest, ListDataRequest
from recall_engine.server.ingest_routes import DeleteKnowledgeRequest
from recall_engine.server.v2_models import (
    DatabaseCreateRequest,
    DeleteRequest,
    FeedbackRequest,
    ListRequest,
    QueryRequest,
)
from tests.server import hydradb_v2_sdk
from tests.server.conftest import KEYS, LiveServer, error_of
from tests.server.test_v2_http import v2_error

SCHEMA = [{"name": "dept", "data_type": "VARCHAR", "enable_match": True}]
SOURCES = [
    {"id": "a", "text": "Refunds are paid within fourteen days.", "metadata": {"dept": "eng"}},
    {"id": "b", "text": "Refunds in cash are paid at the desk.", "metadata": {"dept": "ops"}},
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


def refused_v2(reply: httpx.Response, field: str, *expected: str) -> str:
    """The message of a v2 400 that names ``field`` and each of ``expected``."""
    assert reply.status_code == 400, reply.text
    error = v2_error(reply)
    assert error["code"] == "VALIDATION_ERROR", error
    message = str(error["message"])
    for word in (field, *expected):
        assert word in message, (word, message)
    return message


def listed(http: httpx.Client) -> set[str]:
    reply = http.post("/context/list", json={"database": "acme"})
    assert reply.status_code == 200, reply.text
    return {s["id"] for s in reply.json()["data"]["sources"]}


def test_a_misspelled_query_filter_is_a_400_not_the_whole_tenant(http: httpx.Client) -> None:
    scoped = http.post(
        "/query",
        json={"database": "acme", "query": "refunds paid", "metadata_filters": {"dept": "eng"}},
    )
    assert {c["id"] for c in scoped.json()["data"]["chunks"]} == {"a"}, scoped.text
    typo = http.post(
        "/query",
        json={"database": "acme", "query": "refunds paid", "metadata_filter": {"dept": "eng"}},
    )
    message = refused_v2(typo, "metadata_filter", "did you mean metadata_filters", "attributes")
    assert "query" in message  # the accepted fields are listed
    for body in (
        {"atributes": {"dept": {"$eq": "eng"}}},
        {"colection": "team"},
        {"id": ["a"]},
    ):
        field = next(iter(body))
        reply = http.post("/query", json={"database": "acme", "query": "refunds", **body})
        refused_v2(reply, field)


def test_every_v2_body_refuses_an_unknown_field_and_changes_nothing(http: httpx.Client) -> None:
    refused_v2(http.post("/context/list", json={"database": "acme", "filter": {}}), "filter")
    deleted = http.request(
        "DELETE", "/context", json={"database": "acme", "ids": ["a"], "colection": "team"}
    )
    refused_v2(deleted, "colection", "collection")
    assert listed(http) == {"a", "b"}
    made = http.post("/databases", json={"database": "acme2", "metadata_schema": SCHEMA})
    refused_v2(made, "metadata_schema", "database_metadata_schema")
    assert http.get("/databases").json()["data"]["databases"] == ["acme"]
    rated = http.post(
        "/feedback", json={"database": "acme", "request_id": "r", "ratng": "positive"}
    )
    refused_v2(rated, "ratng", "rating")


@pytest.mark.parametrize("as_form", [False, True])
def test_an_ingest_with_an_unknown_field_stores_nothing(http: httpx.Client, as_form: bool) -> None:
    body = {
        "database": "acme",
        "colection": "team",
        "app_knowledge": json.dumps([{"id": "c", "text": "Cash refunds need a receipt."}]),
    }
    reply = (
        http.post("/context/ingest", data=body)
        if as_form
        else http.post("/context/ingest", json=body)
    )
    refused_v2(reply, "colection", "collection")
    assert listed(http) == {"a", "b"}
    assert http.get("/databases/collections", params={"database": "acme"}).json()["data"][
        "collections"
    ] == ["default"]


def test_a_v2_ingest_item_with_an_unknown_field_stores_nothing(http: httpx.Client) -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("memories", {"type": "memory", "memories": [{"id": "m", "text": "Tea.", "txt": "x"}]}),
        ("app_knowledge", {"app_knowledge": [{"id": "c", "text": "Cash.", "titel": "Cash"}]}),
        (
            "app_knowledge",
            {"app_knowledge": [{"id": "c", "text": "Cash.", "sub_tenant_id": "team"}]},
        ),
    ]
    for field, body in cases:
        reply = http.post("/context/ingest", json={"database": "acme", **body})
        refused_v2(reply, f"{field}[0]")
    assert listed(http) == {"a", "b"}
    kept = http.post("/context/list", json={"database": "acme", "type": "memory"})
    assert not kept.json()["data"]["user_memories"], kept.text


def test_v1_bodies_refuse_an_unknown_field_and_change_nothing(live: LiveServer) -> None:
    with live.client(KEYS["acme"]) as v1:
        assert v1.post("/tenants/create", json={"tenant_id": "acme"}).status_code == 200
        sources = [{"id": "a", "text": "Refunds are paid in 14 days."}]
        stored = v1.post(
            "/ingestion/upload_knowledge",
            json={"tenant_id": "acme", "app_sources": sources},
        )
        assert stored.status_code == 200, stored.text
        for path, body, field in [
            ("/list/data", {"tenant_id": "acme", "filter": {"source_fields": {}}}, "filter"),
            ("/list/data", {"tenant_id": "acme", "source_id": ["zzz"]}, "source_id"),
            ("/fetch/content", {"tenant_id": "acme", "source_id": "a", "sub_tenant": "x"}, ""),
            (
                "/knowledge/delete_knowledge",
                {"tenant_id": "acme", "ids": ["a"], "sub_tenant": "x"},
                "",
            ),
        ]:
            reply = v1.post(path, json=body)
            assert reply.status_code == 422, (path, reply.text)
            detail = error_of(reply)
            assert detail["error_code"] == "VALIDATION_ERROR"
            assert (field or "sub_tenant") in detail["message"], detail
            assert "sub_tenant_id" in detail["message"] or field != "", detail
        for as_form in (False, True):
            body = {"tenant_id": "acme", "sub_tenant": "team", "app_sources": json.dumps(sources)}
            reply = (
                v1.post("/ingestion/upload_knowledge", data=body)
                if as_form
                else v1.post("/ingestion/upload_knowledge", json=body)
            )
            assert reply.status_code == 422, reply.text
            assert "sub_tenant" in error_of(reply)["message"]
        listed_now = v1.post("/list/data", json={"tenant_id": "acme"}).json()
        assert [s["id"] for s in listed_now["sources"]] == ["a"]
        assert v1.get("/tenants/sub_tenant_ids", params={"tenant_id": "acme"}).json()[
            "sub_tenant_ids"
        ] == ["default"]


# What the SDKs send: each call's keyword parameters are its body's fields (Fern).
_NOT_BODY = {"self", "request_options", "hydra_db_delete_status"}


def _params(method: Any) -> set[str]:
    return set(inspect.signature(method).parameters) - _NOT_BODY


def _fields(model: Any) -> set[str]:
    return set(model.model_fields)


def test_every_field_the_v2_sdk_sends_is_taken() -> None:
    from recall_engine.server.v2_ingest import INGEST_FIELDS

    sdk = hydradb_v2_sdk.load()
    if sdk is None:
        pytest.skip("hydradb-sdk 2.x is not installed")
    name = hydradb_v2_sdk.NAME
    raw = importlib.import_module(f"{name}.raw_client").RawHydraDB
    context = importlib.import_module(f"{name}.context.raw_client").RawContextClient
    databases = importlib.import_module(f"{name}.databases.raw_client").RawDatabasesClient
    feedback = importlib.import_module(f"{name}.feedback.raw_client").RawFeedbackClient
    for method, accepted in [
        (raw.query, _fields(QueryRequest)),
        (context.list, _fields(ListRequest)),
        (context.delete, _fields(DeleteRequest)),
        (databases.create, _fields(DatabaseCreateRequest)),
        (feedback.submit, _fields(FeedbackRequest)),
        (context.ingest, set(INGEST_FIELDS)),
    ]:
        sent = _params(method)
        assert sent and sent <= accepted, (method.__qualname__, sorted(sent - accepted))
    # a listing's filter groups, as the SDK's model declares them
    declared = set(sdk.types.ListContentFilter.model_fields)
    assert declared <= {"metadata", "additional_metadata", "source_fields"}


def test_every_field_the_v1_sdk_sends_is_taken() -> None:
    hydra_db = pytest.importorskip("hydra_db")
    from hydra_db.data.raw_client import RawDataClient
    from hydra_db.fetch.raw_client import RawFetchClient
    from hydra_db.upload.raw_client import RawUploadClient

    from recall_engine.server.ingest_routes import UPLOAD_FIELDS

    for method, accepted in [
        (RawFetchClient.list_data, _fields(ListDataRequest)),
        (RawFetchClient.content, _fields(FetchContentRequest)),
        (RawDataClient.delete, _fields(DeleteKnowledgeRequest)),
        (RawUploadClient.knowledge, set(UPLOAD_FIELDS)),
    ]:
        sent = _params(method)
        assert sent and sent <= accepted, (method.__qualname__, sorted(sent - accepted))
    assert set(hydra_db.types.ContentFilter.model_fields) == {
        "tenant_metadata",
        "document_metadata",
        "source_fields",
    }


def test_the_v2_sdk_sends_every_query_option(live: LiveServer) -> None:
    sdk = hydradb_v2_sdk.load()
    if sdk is None:
        pytest.skip("hydradb-sdk 2.x is not installed")
    client = sdk.HydraDB(base_url=live.base_url, token=KEYS["acme"], timeout=60)
    client.databases.create(database="acme", database_metadata_schema=SCHEMA)
    client.context.ingest(database="acme", app_knowledge=json.dumps(SOURCES), upsert="true")
    found = client.query(
        database="acme",
        query="refunds paid",
        type="knowledge",
        query_by="hybrid",
        mode="fast",
        alpha=0.5,
        recency_bias=0.1,
        max_results=5,
        attributes={"dept": {"$eq": "eng"}},
        ids=["a", "b"],
        titles=None,
        additional_context="A customer asks.",
        response_format="structured",
        acl=["*"],
        code_search=False,
        graph_vector_prune=False,
        graph_context=True,
        graph_vector_prune_spacy_entities=False,
        num_related_chunks=2,
        operator="or",
        query_apps=False,
        query_forceful_relations=True,
        temporal_reasoning=False,
    )
    assert [c.id for c in found.data.chunks] == ["a"]
    listed = client.context.list(
        database="acme",
        type="knowledge",
        ids=["a", "b"],
        include_fields=["title"],
        group_threads=False,
        page=1,
        page_size=10,
        acl=["*"],
        filters={"metadata": {"dept": "ops"}},
    )
    assert [s.id for s in listed.data.sources] == ["b"]


def test_an_unknown_query_parameter_is_refused_before_a_delete(http: httpx.Client) -> None:
    gone = http.request("DELETE", "/databases", params={"database": "acme", "collection": "x"})
    refused_v2(gone, "collection", "database")
    assert http.get("/databases").json()["data"]["databases"] == ["acme"]
    status = http.get("/context/status", params={"database": "acme", "id": "a", "colection": "t"})
    refused_v2(status, "colection", "did you mean collection")
    http.post(
        "/memories/add_memory",
        json={"tenant_id": "acme", "memories": [{"source_id": "m", "text": "Tea at four."}]},
    ).raise_for_status()
    typo = http.delete(
        "/memories/delete_memory",
        params={"tenant_id": "acme", "memory_id": "m", "sub_tenant": "team"},
    )
    assert typo.status_code == 422, typo.text
    assert "did you mean sub_tenant_id" in error_of(typo)["message"]
    kept = http.post("/list/data", json={"tenant_id": "acme", "kind": "memories"}).json()
    assert [m["memory_id"] for m in kept["user_memories"]] == ["m"]
    done = http.delete("/memories/delete_memory", params={"tenant_id": "acme", "memory_id": "m"})
    assert done.status_code == 200, done.text


def test_every_query_parameter_the_sdks_send_is_taken(live: LiveServer) -> None:
    pytest.importorskip("hydra_db")
    sdk = hydradb_v2_sdk.load()
    if sdk is None:
        pytest.skip("hydradb-sdk 2.x is not installed")
    name = hydradb_v2_sdk.NAME
    context = importlib.import_module(f"{name}.context.raw_client").RawContextClient
    databases = importlib.import_module(f"{name}.databases.raw_client").RawDatabasesClient
    upload = importlib.import_module("hydra_db.upload.raw_client").RawUploadClient
    fetch = importlib.import_module("hydra_db.fetch.raw_client").RawFetchClient
    with live.client(KEYS["acme"]) as http:
        paths = http.get("/openapi.json").json()["paths"]
    for method, (verb, path) in [
        (context.status, ("get", "/context/status")),
        (context.inspect, ("get", "/context/inspect")),
        (databases.delete, ("delete", "/databases")),
        (databases.collections, ("get", "/databases/collections")),
        (databases.stats, ("get", "/databases/stats")),
        (upload.delete_memory, ("delete", "/memories/delete_memory")),
        (upload.verify_processing, ("post", "/ingestion/verify_processing")),
        (fetch.graph_relations_by_source_id, ("get", "/list/graph_relations_by_id")),
    ]:
        sent = _params(method)
        declared = paths[path][verb].get("parameters", [])
        accepted = {p["name"] for p in declared if p["in"] == "query"}
        assert sent and sent <= accepted, (path, sorted(sent - accepted))
