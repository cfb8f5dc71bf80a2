"""HydraDB's official Python SDK (hydra-db-python), unchanged but for base URL and
key, against a running server: every call parses into the SDK's own models."""

from __future__ import annotations

import io
import json

import pytest

hydra_db = pytest.importorskip("hydra_db")

from hydra_db import AsyncHydraDB, HydraDB  # noqa: E402
from hydra_db.core.api_error import ApiError  # noqa: E402
from hydra_db.errors import (  # noqa: E402
    ForbiddenError,
    NotFoundError,
    UnauthorizedError,
    UnprocessableEntityError,
)
from hydra_db.types import RetrievalResult  # noqa: E402

from recall_engine import build_context_string  # noqa: E402
from tests.server.conftest import ADMIN_KEY, KEYS  # noqa: E402

pytestmark = pytest.mark.sdk


@pytest.fixture
def live(live_in_both_profiles):
    """The server on an embedded engine, or on the distributed profile."""
    return live_in_both_profiles


@pytest.fixture
def sdk(live):
    client = HydraDB(base_url=live.base_url, token=KEYS["acme"], timeout=60)
    yield client
    client._client_wrapper.httpx_client.httpx_client.close()


def _seed(sdk):
    created = sdk.tenant.create(
        tenant_id="acme",
        tenant_metadata_schema=[{"name": "dept", "data_type": "VARCHAR", "enable_match": True}],
    )
    assert created.tenant_id == "acme"
    memories = sdk.upload.add_memory(
        tenant_id="acme",
        sub_tenant_id="user_alex",
        memories=[
            {
                "source_id": "pref",
                "title": "Display",
                "text": "User prefers dark mode and detailed technical explanations",
                "tenant_metadata": json.dumps({"dept": "eng"}),
                "document_metadata": json.dumps({"source": "onboarding"}),
                "relations": {"cortex_source_ids": ["job"]},
            },
            {
                "source_id": "job",
                "user_assistant_pairs": [
                    {"user": "I work night shifts at the hospital", "assistant": "Noted."}
                ],
                "user_name": "alex",
            },
        ],
    )
    assert memories.success_count == 2 and memories.results[0].status == "completed"
    knowledge = sdk.upload.knowledge(
        tenant_id="acme",
        files=[
            ("einstein.txt", io.BytesIO(b"Albert Einstein was born in Ulm in 1879."), "text/plain")
        ],
        file_metadata=json.dumps([{"file_id": "einstein", "additional_metadata": {"kind": "bio"}}]),
        app_sources=json.dumps(
            [{"id": "curie", "title": "Curie", "content": {"text": "Marie Curie worked in Paris."}}]
        ),
    )
    assert knowledge.success_count == 2
    assert {r.source_id for r in knowledge.results} == {"einstein", "curie"}


def test_recall_calls(sdk):
    _seed(sdk)
    full = sdk.recall.full_recall(
        tenant_id="acme",
        query="Where was Einstein born?",
        graph_context=True,
        alpha="auto",
        max_results=3,
    )
    assert isinstance(full, RetrievalResult)
    assert full.chunks[0].source_id == "einstein"
    assert full.graph_context.chunk_relations and full.graph_context.query_paths
    assert "=== CONTEXT ===" in build_context_string(full)
    prefs = sdk.recall.recall_preferences(
        tenant_id="acme",
        sub_tenant_id="user_alex",
        query="display preferences",
        mode="thinking",
        alpha=0.5,
        recency_bias=0.2,
        metadata_filters={"dept": "eng"},
    )
    assert [c.source_id for c in prefs.chunks] == ["pref"]
    assert prefs.chunks[0].extra_context_ids
    assert prefs.additional_context[prefs.chunks[0].extra_context_ids[0]].source_id == "job"
    phrase = sdk.recall.boolean_recall(
        tenant_id="acme",
        query="night shifts",
        operator="phrase",
        search_mode="memories",
        sub_tenant_id="user_alex",
    )
    assert [c.source_id for c in phrase.chunks] == ["job"]
    answer = sdk.recall.qna(tenant_id="acme", question="Where did Marie Curie work?")
    assert "Paris" in answer.answer and answer.chunks


def test_upload_fetch_and_tenant_calls(live, sdk):
    _seed(sdk)
    status = sdk.upload.verify_processing(tenant_id="acme", file_ids=["einstein", "curie"])
    assert [s.indexing_status for s in status.statuses] == ["completed", "completed"]
    assert sdk.tenant.get_sub_tenant_ids(tenant_id="acme").sub_tenant_ids == [
        "default",
        "user_alex",
    ]
    assert sdk.tenant.get_infra_status(tenant_id="acme").infra.graph_status is True
    stats = sdk.tenant.monitor(tenant_id="acme")
    assert stats.normal_collection.row_count == 2 and stats.memory_collection.dimensions == 384
    listed = sdk.fetch.list_data(tenant_id="acme")
    assert {s.id for s in listed.sources} == {"einstein", "curie"} and listed.pagination.total == 2
    mems = sdk.fetch.list_data(tenant_id="acme", sub_tenant_id="user_alex", kind="memories")
    assert {m.memory_id for m in mems.user_memories} == {"pref", "job"}
    relations = sdk.fetch.graph_relations_by_source_id(source_id="einstein", tenant_id="acme")
    assert relations.relations and relations.relations[0].relations[0].canonical_predicate
    content = sdk.fetch.content(tenant_id="acme", source_id="curie")
    assert content.content == "Marie Curie worked in Paris."
    deleted = sdk.upload.delete_memory(
        tenant_id="acme", memory_id="pref", sub_tenant_id="user_alex"
    )
    assert deleted.user_memory_deleted is True
    removed = sdk.data.delete(tenant_id="acme", ids=["curie"])
    assert removed.deleted_count == 1
    assert sdk.tenant.delete_tenant(tenant_id="acme").status == "deleted"
    with pytest.raises(UnauthorizedError):  # deleting the tenant revoked its key
        sdk.recall.full_recall(tenant_id="acme", query="anything")
    admin = HydraDB(base_url=live.base_url, token=ADMIN_KEY, timeout=60)
    with pytest.raises(NotFoundError):
        admin.recall.full_recall(tenant_id="acme", query="anything")


def test_errors_reach_the_sdk_as_its_own_exceptions(live, sdk):
    sdk.tenant.create(tenant_id="acme")
    with pytest.raises(UnprocessableEntityError):
        sdk.recall.full_recall(tenant_id="acme", query="x", alpha=3.0)
    with pytest.raises(ForbiddenError) as info:
        sdk.recall.full_recall(tenant_id="globex", query="x")
    assert info.value.body["detail"]["error_code"] == "FORBIDDEN"
    wrong = HydraDB(base_url=live.base_url, token="wrong-key-0000000000")
    with pytest.raises(UnauthorizedError):
        wrong.recall.full_recall(tenant_id="acme", query="x")
    with pytest.raises(ApiError) as info:
        sdk.embeddings.search(tenant_id="acme", sub_tenant_id="default", query_embedding=[0.1, 0.2])
    assert info.value.status_code == 501
    assert info.value.body["detail"]["error_code"] == "NOT_IMPLEMENTED"
    for call in (
        lambda: sdk.embeddings.insert(tenant_id="acme", embeddings=[]),
        lambda: sdk.embeddings.filter(tenant_id="acme", sub_tenant_id="default"),
        lambda: sdk.embeddings.delete(tenant_id="acme", source_id="s"),
    ):
        with pytest.raises(ApiError) as info:
            call()
        assert info.value.status_code == 501


async def test_async_client(live):
    client = AsyncHydraDB(base_url=live.base_url, token=KEYS["acme"], timeout=60)
    await client.tenant.create(tenant_id="acme")
    await client.upload.add_memory(tenant_id="acme", memories=[{"text": "I like green tea"}])
    found = await client.recall.recall_preferences(tenant_id="acme", query="tea")
    assert found.chunks[0].chunk_content == "I like green tea"
