"""v1's recall, memory and tenant calls refuse a field they do not know, as the
listing and upload calls do (``test_unknown_fields``): a misspelled
``metadata_filter`` would search the whole sub-tenant, a misspelled ``sub_tenant``
write to the default one, a misspelled ``enable_macth`` declare a field no filter
can use, each with a 200. Nested items (memories, sources, schema fields) too.
Every field the official v1 SDK (``hydra-db-python``) sends is still taken."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from recall_engine.core import hydra
from tests.server.conftest import KEYS, LiveServer, error_of

hydra_db = pytest.importorskip("hydra_db")

from hydra_db import HydraDB  # noqa: E402
from hydra_db.errors import UnprocessableEntityError  # noqa: E402

SCHEMA = [{"name": "dept", "data_type": "VARCHAR", "enable_match": True}]
MEMORY = {
    "source_id": "m1",
    "text": "Ann takes her tea at four.",
    "tenant_metadata": '{"dept":"eng"}',
}


@pytest.fixture
def sdk(live: LiveServer) -> Iterator[HydraDB]:
    client = HydraDB(base_url=live.base_url, token=KEYS["acme"], timeout=60)
    client.tenant.create(tenant_id="acme", tenant_metadata_schema=SCHEMA)
    yield client
    client._client_wrapper.httpx_client.httpx_client.close()


@pytest.fixture
def http(live: LiveServer, sdk: HydraDB) -> Iterator[httpx.Client]:
    with live.client(KEYS["acme"]) as client:
        yield client


def refused(exc: pytest.ExceptionInfo[UnprocessableEntityError], *words: str) -> None:
    """A 422 ``VALIDATION_ERROR`` from the SDK whose message holds every one of ``words``."""
    assert exc.value.status_code == 422
    detail = exc.value.body["detail"]
    assert detail["error_code"] == "VALIDATION_ERROR", detail
    for word in words:
        assert word in detail["message"], (word, detail["message"])


def refused_http(reply: httpx.Response, *words: str) -> None:
    assert reply.status_code == 422, reply.text
    detail = error_of(reply)
    assert detail["error_code"] == "VALIDATION_ERROR", detail
    for word in words:
        assert word in detail["message"], (word, detail["message"])


def extra(**fields: Any) -> dict[str, Any]:
    """Request options that make the SDK send ``fields`` beside its own."""
    return {"additional_body_parameters": fields}


def test_a_misspelled_recall_filter_is_refused_not_the_whole_sub_tenant(sdk: HydraDB) -> None:
    sdk.upload.add_memory(tenant_id="acme", memories=[MEMORY])
    scoped = sdk.recall.recall_preferences(
        tenant_id="acme", query="tea", metadata_filters={"dept": "ops"}
    )
    assert scoped.chunks == []
    for call in (sdk.recall.full_recall, sdk.recall.recall_preferences):
        with pytest.raises(UnprocessableEntityError) as typo:
            call(
                tenant_id="acme",
                query="tea",
                request_options=extra(metadata_filter={"dept": "ops"}),
            )
        refused(typo, "metadata_filter", "did you mean metadata_filters", "max_results")
    with pytest.raises(UnprocessableEntityError) as typo:
        sdk.recall.boolean_recall(
            tenant_id="acme", query="tea", request_options=extra(sub_tenant="team")
        )
    refused(typo, "sub_tenant", "did you mean sub_tenant_id", "operator")
    with pytest.raises(UnprocessableEntityError) as typo:
        sdk.recall.qna(tenant_id="acme", question="tea?", request_options=extra(max_chunk=3))
    refused(typo, "max_chunk", "did you mean max_chunks")


def test_a_memory_with_a_misspelled_scope_or_field_stores_nothing(
    sdk: HydraDB, http: httpx.Client
) -> None:
    with pytest.raises(UnprocessableEntityError) as typo:
        sdk.upload.add_memory(
            tenant_id="acme", memories=[MEMORY], request_options=extra(sub_tenant="user_ann")
        )
    refused(typo, "sub_tenant", "did you mean sub_tenant_id", "memories")
    for item, field in [
        ({**MEMORY, "tenant_metdata": '{"dept":"eng"}'}, "tenant_metdata"),
        (
            {"source_id": "m2", "user_assistant_pairs": [{"user": "Hi", "asistant": "Hello"}]},
            "asistant",
        ),
        ({**MEMORY, "relations": {"cortex_source_id": ["x"]}}, "cortex_source_id"),
    ]:
        reply = http.post("/memories/add_memory", json={"tenant_id": "acme", "memories": [item]})
        refused_http(reply, field, "memories.0")
    listed = http.post("/list/data", json={"tenant_id": "acme", "kind": "memories"}).json()
    assert listed["user_memories"] == []
    assert sdk.tenant.get_sub_tenant_ids(tenant_id="acme").sub_tenant_ids == []


def test_a_misspelled_schema_field_creates_no_tenant(live: LiveServer, sdk: HydraDB) -> None:
    schema = [{"name": "dept", "data_type": "VARCHAR", "enable_macth": True}]
    with live.client(KEYS["globex"]) as globex:
        made = globex.post(
            "/tenants/create", json={"tenant_id": "globex", "tenant_metadata_schema": schema}
        )
        refused_http(made, "enable_macth", "did you mean enable_match", "tenant_metadata_schema.0")
        made = globex.post(
            "/tenants/create", json={"tenant_id": "globex", "metadata_schema": SCHEMA}
        )
        refused_http(made, "metadata_schema", "did you mean tenant_metadata_schema")
        gone = globex.get("/tenants/sub_tenant_ids", params={"tenant_id": "globex"})
        assert gone.status_code == 404, gone.text


def test_an_app_source_with_an_unknown_field_stores_nothing(
    sdk: HydraDB, http: httpx.Client
) -> None:
    for source, field in [
        ({"id": "a", "text": "Refunds take a week.", "tenant_metdata": {}}, "tenant_metdata"),
        ({"id": "a", "content": {"txt": "Refunds take a week."}}, "txt"),
        ({"id": "a", "text": "Refunds.", "relations": {"ids": ["b"]}}, "ids"),
    ]:
        with pytest.raises(UnprocessableEntityError) as typo:
            sdk.upload.knowledge(tenant_id="acme", app_sources=json.dumps([source]))
        refused(typo, field, "app_sources")
    metadata = json.dumps([{"file_id": "f", "aditional_metadata": {"kind": "bio"}}])
    with pytest.raises(UnprocessableEntityError) as typo:
        sdk.upload.knowledge(
            tenant_id="acme",
            files=[("f.txt", b"Ann was born in Ulm.", "text/plain")],
            file_metadata=metadata,
        )
    refused(typo, "aditional_metadata", "did you mean additional_metadata", "file_metadata")
    assert http.post("/list/data", json={"tenant_id": "acme"}).json()["sources"] == []


def test_a_source_naming_another_sub_tenant_than_its_request_is_refused(
    sdk: HydraDB, http: httpx.Client
) -> None:
    source = {"id": "a", "tenant_id": "acme", "sub_tenant_id": "team", "text": "Refunds."}
    with pytest.raises(UnprocessableEntityError) as other:
        sdk.upload.knowledge(tenant_id="acme", app_sources=json.dumps([source]))
    refused(other, "sub_tenant_id", "team", "default")
    assert http.post("/list/data", json={"tenant_id": "acme"}).json()["sources"] == []
    stored = sdk.upload.knowledge(
        tenant_id="acme", sub_tenant_id="team", app_sources=json.dumps([source])
    )
    assert stored.success_count == 1


def test_every_field_of_the_sdks_source_and_memory_models_is_taken(
    sdk: HydraDB, http: httpx.Client
) -> None:
    """An app source and a memory as the SDK's own models describe them, every field
    set: stored, and found."""
    from hydra_db.types import AttachmentModel, ContentModel, MemoryItem, SourceModel

    content = ContentModel(
        text="Refunds are paid within fourteen days.",
        html_base_64="PHA+UmVmdW5kczwvcD4=",
        csv_base_64="YSxi",
        markdown="# Refunds",
        files=[{"name": "policy.pdf"}],
        layout=[{"section": "intro"}],
    )
    source = SourceModel(
        id="policy",
        tenant_id="acme",
        sub_tenant_id="default",
        title="Refund policy",
        type="document",
        description="How refunds work",
        note="imported",
        url="https://example.com/refunds",
        timestamp="2026-01-02T03:04:05Z",
        content=content,
        tenant_metadata={"dept": "ops"},
        document_metadata={"author": "Ann"},
        meta={"app_name": "wiki"},
        attachments=[
            AttachmentModel(
                id="att",
                url="https://example.com/a.png",
                title="A chart",
                content_type="image/png",
                content_url="https://example.com/a.png",
                misc={"w": 1},
                content=ContentModel(text="chart"),
            )
        ],
        relations={"cortex_source_ids": ["m1"], "properties": {"k": "v"}},
    )
    stored = sdk.upload.knowledge(tenant_id="acme", app_sources=json.dumps([source.dict()]))
    assert stored.success_count == 1, stored
    memory = MemoryItem(
        source_id="m1",
        title="Tea",
        text="Ann takes her tea at four.",
        is_markdown=False,
        infer=False,
        custom_instructions="none",
        user_name="ann",
        expiry_time=3600,
        tenant_metadata='{"dept": "eng"}',
        document_metadata='{"k": "v"}',
        relations={"cortex_source_ids": ["policy"]},
    )
    added = sdk.upload.add_memory(tenant_id="acme", memories=[memory], upsert=True)
    assert added.success_count == 1, added
    found = sdk.recall.full_recall(
        tenant_id="acme", query="refunds paid", metadata_filters={"dept": "ops"}
    )
    assert [c.source_id for c in found.chunks] == ["policy"]


# What the SDK sends: each call's keyword parameters are its body's fields (Fern),
# and each of its item models' fields under the names it writes them with.
_NOT_BODY = {"self", "request_options"}


def _sent(method: Any) -> set[str]:
    import inspect

    return set(inspect.signature(method).parameters) - _NOT_BODY


def _wire(model: Any) -> set[str]:
    from hydra_db.core.serialization import get_field_to_alias_mapping

    aliases = get_field_to_alias_mapping(model)
    return {aliases.get(name, name) for name in model.model_fields}


def test_every_field_the_v1_sdk_sends_to_recall_memory_and_tenant_calls_is_taken() -> None:
    from hydra_db import types
    from hydra_db.recall.raw_client import RawRecallClient
    from hydra_db.tenant.raw_client import RawTenantClient
    from hydra_db.upload.raw_client import RawUploadClient

    pairs: list[tuple[set[str], type[BaseModel]]] = [
        (_sent(RawRecallClient.full_recall), hydra.RecallSearchRequest),
        (_sent(RawRecallClient.recall_preferences), hydra.RecallSearchRequest),
        (_sent(RawRecallClient.boolean_recall), hydra.BooleanRecallRequest),
        (_sent(RawRecallClient.qna), hydra.QnARequest),
        (_sent(RawUploadClient.add_memory), hydra.AddMemoryRequest),
        (_sent(RawTenantClient.create), hydra.TenantCreateRequest),
        (_wire(types.RecallSearchRequest), hydra.RecallSearchRequest),
        (_wire(types.MemoryItem), hydra.MemoryItem),
        (_wire(types.UserAssistantPair), hydra.UserAssistantPair),
        (_wire(types.ForcefulRelationsPayload), hydra.ForcefulRelations),
        (_wire(types.CustomPropertyDefinition), hydra.CustomPropertyDefinition),
        (_wire(types.SourceModel), hydra.KnowledgeSource),
        (_wire(types.ContentModel), hydra.SourceContent),
        (_wire(types.AttachmentModel), hydra.Attachment),
    ]
    for sent, model in pairs:
        accepted = set(model.model_fields)
        assert sent and sent <= accepted, (model.__name__, sorted(sent - accepted))


@pytest.mark.parametrize(
    "model",
    [
        hydra.RecallSearchRequest,
        hydra.BooleanRecallRequest,
        hydra.QnARequest,
        hydra.AddMemoryRequest,
        hydra.MemoryItem,
        hydra.UserAssistantPair,
        hydra.ForcefulRelations,
        hydra.KnowledgeSource,
        hydra.SourceContent,
        hydra.TenantCreateRequest,
        hydra.CustomPropertyDefinition,
    ],
)
def test_every_v1_request_model_refuses_an_unknown_field(model: Any) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="'bogus' is not a field"):
        model.model_validate({"bogus": 1})


def test_an_unknown_tenant_query_parameter_is_refused_before_a_delete(
    sdk: HydraDB, http: httpx.Client
) -> None:
    for path in ("/tenants/sub_tenant_ids", "/tenants/infra/status", "/tenants/monitor"):
        reply = http.get(path, params={"tenant_id": "acme", "tenant": "x"})
        refused_http(reply, "'tenant'", "tenant_id")
    with pytest.raises(UnprocessableEntityError) as typo:
        sdk.tenant.delete_tenant(
            tenant_id="acme",
            request_options={"additional_query_parameters": {"sub_tenant_id": "team"}},
        )
    refused(typo, "sub_tenant_id", "tenant_id")
    assert sdk.tenant.get_sub_tenant_ids(tenant_id="acme").sub_tenant_ids == []  # still there


def test_every_query_parameter_the_sdk_sends_to_tenant_calls_is_taken(
    http: httpx.Client,
) -> None:
    from hydra_db.tenant.raw_client import RawTenantClient

    paths = http.get("/openapi.json").json()["paths"]
    for method, (verb, path) in [
        (RawTenantClient.get_sub_tenant_ids, ("get", "/tenants/sub_tenant_ids")),
        (RawTenantClient.get_infra_status, ("get", "/tenants/infra/status")),
        (RawTenantClient.delete_tenant, ("delete", "/tenants/delete")),
        (RawTenantClient.monitor, ("get", "/tenants/monitor")),
    ]:
        declared = paths[path][verb].get("parameters", [])
        accepted = {p["name"] for p in declared if p["in"] == "query"}
        assert _sent(method) <= accepted, (path, sorted(_sent(method) - accepted))


def test_an_unknown_query_parameter_of_the_key_listing_or_facts_is_refused(
    live: LiveServer, sdk: HydraDB
) -> None:
    from tests.server.conftest import ADMIN_KEY

    with live.client(ADMIN_KEY) as admin:
        mine = admin.get("/api-keys/list_api_keys", params={"tenant_id": "acme"})
        assert [k["tenant_id"] for k in mine.json()["keys"]] == ["acme"], mine.text
        typo = admin.get("/api-keys/list_api_keys", params={"tenant": "acme"})
        refused_http(typo, "'tenant'", "did you mean tenant_id")
    with live.client(KEYS["acme"]) as http:
        facts = http.get("/api/v1/facts", params={"subject": "Ann", "tenant_id": "acme"})
        assert facts.status_code == 200, facts.text
        asked = {"subject": "Ann", "tenant_id": "acme", "asof": "2020-01-01"}
        typo = http.get("/api/v1/facts", params=asked)
        refused_http(typo, "'asof'", "did you mean as_of")


def test_every_call_with_query_parameters_refuses_an_unknown_one(live: LiveServer) -> None:
    """Every operation the OpenAPI document gives query parameters, v1's, v2's and
    the engine's own, asked with one more: refused, naming it, before it runs."""
    from tests.server.conftest import ADMIN_KEY

    with live.client(ADMIN_KEY) as admin:
        paths = admin.get("/openapi.json").json()["paths"]
        asked = 0
        for path, operations in paths.items():
            for verb, operation in operations.items():
                declared = operation.get("parameters", [])
                if not any(p["in"] == "query" for p in declared):
                    continue
                assert "{" not in path, path  # none yet takes path parameters
                reply = admin.request(verb.upper(), path, params={"bogus_param": "1"})
                assert reply.status_code in (400, 422), (path, verb, reply.text)
                assert "'bogus_param'" in reply.json()["detail"]["message"], (path, reply.text)
                asked += 1
    assert asked >= 12
