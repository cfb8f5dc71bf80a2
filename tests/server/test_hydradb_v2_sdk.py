"""HydraDB's official v2 SDK (hydradb-sdk 2.x), unchanged but for base URL and key,
against a running server: every call parses into the SDK's own models, and no
field we send is one the SDK does not declare."""

from __future__ import annotations

import io
import json
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from tests.server import hydradb_v2_sdk
from tests.server.conftest import ADMIN_KEY, KEYS, LiveServer

sdk_v2 = hydradb_v2_sdk.load()
if sdk_v2 is None:
    pytest.skip(
        "hydradb-sdk 2.x is not installed (make sdk-v2 puts it beside hydra-db-python)",
        allow_module_level=True,
    )

HydraDB = sdk_v2.HydraDB
AsyncHydraDB = sdk_v2.AsyncHydraDB
errors = sdk_v2.errors
ApiError = sdk_v2.core.api_error.ApiError
types = sdk_v2.types

pytestmark = pytest.mark.sdk


def declared(value: Any, where: str = "response") -> None:
    """Every field of a parsed response is one the SDK's models declare."""
    if isinstance(value, BaseModel):
        extra = value.model_extra or {}
        assert not extra, f"{where}: fields the SDK does not declare: {sorted(extra)}"
        for name in type(value).model_fields:
            declared(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, list):
        for n, item in enumerate(value):
            declared(item, f"{where}[{n}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            declared(item, f"{where}[{key!r}]")


def code_of(error: Any) -> str:
    """The v2 error code of an SDK exception (its body is a model where the SDK
    declares the status for the call, else the JSON dict)."""
    body = error.body
    return str(body["error"]["code"] if isinstance(body, dict) else body.error.code)


@pytest.fixture
def served(live_in_both_profiles):
    """The server on an embedded engine, or on the distributed profile."""
    return live_in_both_profiles


def _client(live: LiveServer) -> Any:
    return HydraDB(base_url=live.base_url, token=KEYS["acme"], timeout=60)


@pytest.fixture
def client(live: LiveServer):
    client = _client(live)
    yield client
    client._client_wrapper.httpx_client.httpx_client.close()


def _seed(client: Any) -> None:
    created = client.databases.create(
        database="acme",
        database_metadata_schema=[
            {"name": "dept", "data_type": "VARCHAR", "enable_match": True},
            {"name": "level", "data_type": "INT64", "enable_match": True},
        ],
    )
    declared(created)
    assert created.success and created.data.database == "acme"
    memories = client.context.ingest(
        database="acme",
        collection="user_alex",
        type="memory",
        memories=json.dumps(
            [
                {
                    "id": "pref",
                    "title": "Display",
                    "text": "User prefers dark mode and detailed technical explanations",
                    "metadata": {"dept": "eng", "level": 3},
                },
                {
                    "id": "job",
                    "user_assistant_pairs": [
                        {"user": "I work night shifts at the hospital", "assistant": "Noted."}
                    ],
                    "metadata": {"dept": "ops", "level": 1},
                },
            ]
        ),
    )
    declared(memories)
    assert memories.data.success_count == 2
    assert {r.id for r in memories.data.results} == {"pref", "job"}
    knowledge = client.context.ingest(
        database="acme",
        documents=[("einstein.txt", io.BytesIO(b"Albert Einstein was born in Ulm in 1879."))],
        document_metadata=json.dumps([{"id": "einstein", "additional_metadata": {"kind": "bio"}}]),
        app_knowledge=json.dumps(
            [{"id": "curie", "title": "Curie", "text": "Marie Curie worked in Paris."}]
        ),
    )
    declared(knowledge)
    assert {r.id for r in knowledge.data.results} == {"einstein", "curie"}


def test_every_v2_call_parses(served: LiveServer) -> None:
    client = _client(served)
    _seed(client)
    found = client.query(database="acme", query="Where was Einstein born?", max_results=3)
    declared(found)
    assert isinstance(found, types.HandlerEnvelopeSearchV2RetrievalResult)
    assert found.success and found.meta.api_version == "2" and found.meta.request_id
    assert found.data.chunks[0].id == "einstein"
    assert "`einstein`" in found.data.llm_prompt and found.data.sources[0].id == "einstein"
    for options in (
        {"mode": "fast", "alpha": 0.3},
        {"mode": "thinking"},
        {"query_by": "text"},
        {"mode": "fast", "alpha": "auto", "recency_bias": 0.5, "temporal_now": "2030-01-01"},
    ):
        answer = client.query(database="acme", query="Einstein Ulm", **options)
        declared(answer, str(options))
        assert answer.data.chunks[0].id == "einstein", options
    markdown = client.query(database="acme", query="Curie", response_format="markdown")
    assert isinstance(markdown.data, str) and "`curie`" in markdown.data
    structured = client.query(database="acme", query="Curie", response_format="structured")
    assert structured.data.llm_prompt is None and structured.data.chunks
    memories = client.query(
        database="acme", collection="user_alex", type="memory", query="night shifts"
    )
    assert memories.data.chunks[0].id == "job" and memories.data.chunks[0].collection == "user_alex"

    status = client.context.status(database="acme", ids=["einstein", "nope"])
    declared(status)
    assert [s.indexing_status for s in status.data.statuses] == ["completed", "errored"]
    listed = client.context.list(database="acme")
    declared(listed)
    assert {s.id for s in listed.data.sources} == {"einstein", "curie"}
    assert listed.data.pagination.total == 2
    mems = client.context.list(database="acme", collection="user_alex", type="memory")
    declared(mems)
    assert {m.memory_id for m in mems.data.user_memories} == {"pref", "job"}
    page = client.context.list(database="acme", page=2, page_size=1)
    assert len(page.data.sources) == 1 and page.data.pagination.has_previous
    inspected = client.context.inspect(id="curie", database="acme")
    declared(inspected)
    assert inspected.data.content == "Marie Curie worked in Paris."

    assert client.databases.list().data.databases == ["acme"]  # its own only
    collections = client.databases.collections(database="acme")
    declared(collections)
    assert collections.data.collections == ["default", "user_alex"]
    stats = client.databases.stats(database="acme")
    declared(stats)
    assert stats.data.knowledge_collection.row_count == 2
    assert stats.data.memory_collection.row_count >= 2  # chunks: a pair may make two
    feedback = client.feedback.submit(
        database="acme", request_id=found.meta.request_id, rating="positive"
    )
    declared(feedback)
    assert feedback.data.request_id == found.meta.request_id

    deleted = client.context.delete(database="acme", ids=["curie", "missing"])
    declared(deleted)
    assert deleted.data.deleted_count == 1
    with pytest.raises(errors.NotFoundError):
        client.context.delete(database="acme", ids=["missing"], hydra_db_delete_status="strict")
    gone = client.databases.delete(database="acme")
    declared(gone)
    assert gone.data.status == "deleted"


def test_attributes_filter_the_query(client: Any) -> None:
    _seed(client)

    def ids(attributes: dict[str, Any]) -> set[str]:
        found = client.query(
            database="acme",
            collection="user_alex",
            type="memory",
            query="preferences and work",
            attributes=attributes,
        )
        return {c.id for c in found.data.chunks}

    assert ids({"dept": {"$eq": "eng"}}) == {"pref"}
    assert ids({"dept": {"$in": ["ops", "hr"]}}) == {"job"}
    assert ids({"level": {"$gt": 2}}) == {"pref"}
    assert ids({"level": {"$not": {"$gt": 2}}}) == {"job"}
    assert ids({"$or": [{"dept": "ops"}, {"level": {"$gte": 3}}]}) == {"pref", "job"}
    assert ids({"dept": {"$exists": False}}) == set()
    legacy = client.query(
        database="acme",
        collection="user_alex",
        type="memory",
        query="work",
        metadata_filters={"dept": {"equals": "ops"}},
    )
    assert {c.id for c in legacy.data.chunks} == {"job"}
    with pytest.raises(errors.BadRequestError) as info:
        ids({"level": {"$near": 1}})
    assert code_of(info.value) == "INVALID_PARAMETERS"
    assert "$near" in info.value.body.error.message


def test_titles_match_case_insensitively_within_ids(client: Any) -> None:
    # SDK: "Values are matched case-insensitively and ORed, resolved to source IDs ...
    # When ids is also supplied, the two filters are intersected."
    client.databases.create(database="acme")
    client.context.ingest(
        database="acme",
        app_knowledge=json.dumps(
            [
                {"id": "refunds", "title": "Refunds", "text": "Refunds are paid in 14 days."},
                {"id": "street", "title": "Straße", "text": "Street refunds are paid in cash."},
                {"id": "shipping", "title": "Shipping", "text": "Refunds leave out shipping."},
            ]
        ),
    )

    def ids(**scope: Any) -> set[str]:
        found = client.query(database="acme", query="refunds", **scope)
        return {c.id for c in found.data.chunks}

    assert ids(titles=["refunds"]) == {"refunds"}
    assert ids(titles=["REFUNDS", "STRASSE"]) == {"refunds", "street"}  # Unicode case folding
    assert ids(titles=["Refund"]) == set()  # exact titles, not prefixes
    assert ids(titles=["refunds"], ids=["shipping"]) == set()
    assert ids(titles=["shipping", "refunds"], ids=["shipping", "street"]) == {"shipping"}


def test_metadata_filters_operators_are_hydradbs(client: Any) -> None:
    # SDK (SearchMetadataFilters): contains matches one member of a comma-joined field,
    # contains_any any one of the values, equals the whole value; a bare array is
    # contains_any; a wrong operand type or several operators in one object is a 400.
    client.databases.create(
        database="acme",
        database_metadata_schema=[
            {"name": "tags", "data_type": "VARCHAR", "enable_match": True},
            {"name": "level", "data_type": "INT64", "enable_match": True},
        ],
    )
    client.context.ingest(
        database="acme",
        app_knowledge=json.dumps(
            [
                {
                    "id": "a",
                    "text": "Refunds are paid in 14 days.",
                    "metadata": {"tags": "billing,support", "level": 1},
                },
                {
                    "id": "b",
                    "text": "Street refunds are paid in cash.",
                    "metadata": {"tags": "support", "level": 2},
                },
                {
                    "id": "c",
                    "text": "Refunds leave out shipping.",
                    "metadata": {"tags": "shipping", "level": 3},
                },
            ]
        ),
    )

    def ids(filters: dict[str, Any]) -> set[str]:
        found = client.query(database="acme", query="refunds", metadata_filters=filters)
        return {c.id for c in found.data.chunks}

    assert ids({"tags": {"contains": "support"}}) == {"a", "b"}
    assert ids({"tags": {"contains_any": ["billing", "shipping"]}}) == {"a", "c"}
    assert ids({"tags": {"equals": "support"}}) == {"b"}
    assert ids({"tags": "support"}) == {"b"}  # a bare scalar: equals
    assert ids({"tags": ["support"]}) == {"a", "b"}  # a bare one-element array: contains
    assert ids({"tags": ["billing", "shipping"]}) == {"a", "c"}  # a bare array: contains_any
    assert ids({"level": {"equals": 2}}) == {"b"}
    for bad, named in [
        ({"tags": {"contains": ["support"]}}, "contains"),
        ({"tags": {"contains_any": "support"}}, "contains_any"),
        ({"tags": {"equals": ["support"]}}, "equals"),
        ({"tags": {"contains": "support", "equals": "billing"}}, "contains, equals"),
        ({"tags": {"contian": "support"}}, "not an operator"),
        ({"level": [1, 2]}, "give strings"),
        ({"additional_metadata": {"kind": {"equals": "bio"}}}, "top-level keys only"),
    ]:
        with pytest.raises(errors.BadRequestError) as info:
            ids(bad)
        assert code_of(info.value) == "VALIDATION_ERROR", bad
        message = info.value.body.error.message
        assert named in message and "$eq" not in message, message


def test_a_v1_tenant_is_read_through_v2(live: LiveServer, client: Any) -> None:
    with live.client(KEYS["acme"]) as v1:
        assert v1.post("/tenants/create", json={"tenant_id": "acme"}).status_code == 200
        added = v1.post(
            "/memories/add_memory",
            json={
                "tenant_id": "acme",
                "sub_tenant_id": "team",
                "memories": [{"source_id": "m1", "text": "The deploy window is Friday noon"}],
            },
        )
        assert added.status_code == 200
    found = client.query(database="acme", collection="team", type="memory", query="deploy window")
    assert [c.id for c in found.data.chunks] == ["m1"]
    legacy = client.query(tenant_id="acme", sub_tenant_id="team", type="memory", query="deploy")
    assert [c.id for c in legacy.data.chunks] == ["m1"]
    assert {d.deprecated_field for d in legacy.meta.deprecation} == {"tenant_id", "sub_tenant_id"}
    client.context.ingest(
        database="acme",
        collection="team",
        type="memory",
        memories=json.dumps([{"id": "m2", "text": "Release notes go out on Monday"}]),
    )
    with live.client(KEYS["acme"]) as v1:
        listed = v1.post(
            "/list/data",
            json={"tenant_id": "acme", "sub_tenant_id": "team", "kind": "memories"},
        )
    assert listed.status_code == 200, listed.text
    assert {m["memory_id"] for m in listed.json()["user_memories"]} == {"m1", "m2"}


def test_default_query_ranks_as_recall(live: LiveServer, client: Any) -> None:
    client.databases.create(database="acme")
    texts = [
        "The river flooded the valley town in spring",
        "A spring festival fills the town square with music",
        "Valley farmers plant rice after the flood recedes",
        "The town council met to plan flood defences",
        "Music lessons are held in the old valley school",
    ]
    client.context.ingest(
        database="acme",
        app_knowledge=json.dumps([{"id": f"s{n}", "text": t} for n, t in enumerate(texts)]),
    )
    question = "what happened to the town when the river flooded?"
    found = client.query(database="acme", query=question, max_results=4)
    engine = live.engine
    store = engine.tenants.registry.store_name("acme")
    _, dataset_id = engine.tenants._dataset(store, "kb", None)
    with live.client(KEYS["acme"]) as http:
        reply = http.post(
            "/api/v1/recall",
            json={
                "query_text": question,
                "tenant_id": "acme",
                "dataset_ids": [dataset_id],
                "only_context": True,
                "verbose": True,
                "top_k": 4,
            },
        )
    assert reply.status_code == 200, reply.text
    expected: list[str] = []
    for entry in reply.json():
        rows = [entry["metadata"]] if entry["kind"] == "chunk" else entry["raw"]
        for row in rows:
            chunk_id = row.get("chunk_id") or row.get("id")
            if chunk_id not in expected:
                expected.append(chunk_id)
    assert [c.chunk_uuid for c in found.data.chunks] == expected[:4]
    assert len(expected) >= 3


def test_errors_have_v2_shape(live: LiveServer, client: Any) -> None:
    client.databases.create(database="acme")
    with pytest.raises(errors.BadRequestError) as info:
        client.query(database="acme", query="x", max_results=0)
    assert info.value.body.success is False and info.value.body.error.code == "VALIDATION_ERROR"
    assert "max_results" in info.value.body.error.message
    with pytest.raises(errors.BadRequestError):
        client.query(database="acme", query="x", mode="fast", alpha=3.0)
    with pytest.raises(errors.ForbiddenError) as info:
        client.databases.create(database="globex")
    assert code_of(info.value) == "FORBIDDEN"
    with pytest.raises(ApiError) as info:  # the SDK declares no 403 here: its base error
        client.databases.stats(database="globex")
    assert info.value.status_code == 403 and code_of(info.value) == "FORBIDDEN"
    admin = HydraDB(base_url=live.base_url, token=ADMIN_KEY, timeout=60)
    with pytest.raises(errors.NotFoundError) as info:
        admin.databases.stats(database="nobody")
    assert code_of(info.value) == "TENANT_NOT_FOUND"
    wrong = HydraDB(base_url=live.base_url, token="wrong-key-0000000000")
    with pytest.raises(ApiError) as info:
        wrong.query(database="acme", query="x")
    assert info.value.status_code == 401
    assert code_of(info.value) == "UNAUTHORIZED"
    once = {"max_retries": 0}  # the SDK retries a 5xx twice, with backoff: asked once here
    for call in (
        lambda: client.query(
            database="acme", query="x", acl=["user_email:a@b.c"], request_options=once
        ),
        lambda: client.query(database="acme", query="x", code_search=True, request_options=once),
        lambda: client.catalog(request_options=once),
        lambda: client.connectors.list(request_options=once),
        lambda: client.webhooks.get(request_options=once),
        lambda: client.context.subgraph(id="s", database="acme", request_options=once),
        lambda: client.databases.rename(database="acme", new_name="acme2", request_options=once),
    ):
        with pytest.raises(ApiError) as info:
            call()
        assert info.value.status_code == 501
        assert code_of(info.value) == "NOT_IMPLEMENTED"
    with httpx.Client(base_url=live.base_url) as raw:
        old = raw.post(
            "/query",
            json={"database": "acme", "query": "x"},
            headers={"Authorization": f"Bearer {KEYS['acme']}", "API-Version": "1"},
        )
    assert old.status_code == 400 and old.json()["error"]["code"] == "UNSUPPORTED_API_VERSION"


async def test_async_client(live: LiveServer) -> None:
    client = AsyncHydraDB(base_url=live.base_url, token=KEYS["acme"], timeout=60)
    await client.databases.create(database="acme")
    await client.context.ingest(
        database="acme", type="memory", memories=json.dumps([{"text": "I like green tea"}])
    )
    found = await client.query(database="acme", type="memory", query="tea")
    declared(found)
    assert found.data.chunks[0].chunk_content == "I like green tea"
    listed = await client.context.list(database="acme", type="memory")
    assert len(listed.data.user_memories) == 1


def test_the_example_runs(live: LiveServer, monkeypatch, capsys) -> None:
    import runpy
    import sys
    from pathlib import Path

    monkeypatch.setitem(sys.modules, "hydra_db", sdk_v2)  # as in an environment of its own
    monkeypatch.setitem(sys.modules, "hydra_db.errors", sdk_v2.errors)
    example = Path(__file__).resolve().parents[2] / "examples" / "hydradb_v2.py"
    main = runpy.run_path(str(example), run_name="example")["main"]
    main(live.base_url, KEYS["acme"])
    main(live.base_url, KEYS["acme"])  # twice: re-runs are fine
    out = capsys.readouterr().out
    assert "['rota']" in out and "# Retrieved context" in out
