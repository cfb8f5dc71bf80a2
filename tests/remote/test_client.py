"""RemoteRecallEngine against a real server: same models, same exception classes,
clear errors when the server is away, and the key kept out of sight."""

from __future__ import annotations

import logging

import pytest

import recall_engine
from recall_engine import (
    DatasetNotFoundError,
    InvalidInputError,
    PermissionDeniedError,
    RecallEngine,
    RecallPreconditionError,
    RememberResult,
    RemoteUnavailableError,
    ResponseGraphEntry,
    SearchType,
    TenantNotFoundError,
    UserNotFoundError,
)
from recall_engine.core.hydra import RetrievalResult
from recall_engine.identity.models import DatasetAccess, User
from recall_engine.remote import RemoteRecallEngine
from recall_engine.remote.errors import RemoteAuthenticationError
from tests.remote_fixture import API_KEY, serve


@pytest.fixture
def served(tmp_path, hash_embedder):
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    live = serve(engine)
    yield live
    live.stop()
    engine.close()


async def test_remember_recall_forget_round_trip(served) -> None:
    async with served.connect() as remote:
        stored = await remote.remember("Einstein was born in Ulm.", dataset_name="physics")
        assert isinstance(stored, RememberResult)
        results = await remote.recall(
            "Where was Einstein born?", SearchType.CHUNKS, only_context=True, datasets=["physics"]
        )
        assert results and isinstance(results[0], ResponseGraphEntry)
        assert "Ulm" in results[0].text
        assert await remote.list_datasets() == await served.engine.list_datasets()
        items = await remote.list_items(dataset_name="physics")
        assert [i["data_id"] for i in items] == [
            i["data_id"] for i in await served.engine.list_items(dataset_name="physics")
        ]
        assert await remote.forget(dataset_name="physics") > 0
        assert await remote.list_datasets() == {}


async def test_users_grants_and_datasets(served) -> None:
    async with served.connect() as remote:
        ann = await remote.create_user("ann")
        bob = await remote.create_user("bob")
        assert isinstance(ann, User)
        assert {u.name for u in await remote.users()} >= {"ann", "bob"}
        await remote.remember("Ann's notes on Lyon.", dataset_name="notes", user=ann)
        (mine,) = [d for d in await remote.datasets(user=ann) if d.name == "notes"]
        assert isinstance(mine, DatasetAccess)
        with pytest.raises(PermissionDeniedError):
            await remote.grant(mine.id, to=bob, by=bob)
        await remote.grant(mine.id, to=bob, by=ann)
        assert mine.id in {d.id for d in await remote.datasets(user=bob)}
        await remote.revoke(mine.id, to=bob, by=ann)
        assert mine.id not in {d.id for d in await remote.datasets(user=bob)}


async def test_errors_are_the_embedded_classes(served) -> None:
    async with served.connect() as remote:
        with pytest.raises(RecallPreconditionError):
            await remote.recall("anything")
        await remote.remember("Some text.")
        with pytest.raises(DatasetNotFoundError):
            await remote.recall("x", datasets=["nope"])
        with pytest.raises(InvalidInputError, match="query"):
            await remote.recall("   ")
        with pytest.raises(TypeError):
            await remote.recall("x", no_such_option=1)
        with pytest.raises(UserNotFoundError):
            await remote.datasets(user="nobody")
        with pytest.raises(TenantNotFoundError):
            await remote.full_recall(tenant_id="no-such-tenant", query="x")


async def test_tenant_api_returns_the_same_models(served) -> None:
    async with served.connect() as remote:
        await remote.create_tenant("acme")
        await remote.add_memory("acme", [{"text": "Ann prefers tea over coffee."}])
        result = await remote.recall_preferences(tenant_id="acme", query="what does Ann drink?")
        assert isinstance(result, RetrievalResult) and result.chunks
        embedded = await served.engine.recall_preferences(
            tenant_id="acme", query="what does Ann drink?"
        )
        assert [c.chunk_uuid for c in result.chunks] == [c.chunk_uuid for c in embedded.chunks]
        found = await remote.boolean_recall("acme", "tea", search_mode="memories")
        assert isinstance(found, RetrievalResult)


async def test_unreachable_server_is_a_clear_error(caplog) -> None:
    from tests.live_uvicorn import free_port as _free_port

    caplog.set_level(logging.DEBUG)
    secret = "sk-never-show-this-0000"
    remote = RecallEngine.connect(f"http://127.0.0.1:{_free_port()}", api_key=secret, timeout_s=2)
    assert isinstance(remote, RemoteRecallEngine)
    with pytest.raises(RemoteUnavailableError) as caught:
        await remote.recall("anything")
    await remote.aclose()
    assert isinstance(caught.value, recall_engine.RecallEngineError)
    assert "recall-engine serve" in str(caught.value)
    assert secret not in str(caught.value) and secret not in repr(remote)
    assert secret not in caplog.text


async def test_a_wrong_key_is_refused_without_echoing_it(served) -> None:
    remote = RecallEngine.connect(served.url, api_key="wrong-key-123456789")
    with pytest.raises(RemoteAuthenticationError) as caught:
        await remote.list_datasets()
    await remote.aclose()
    assert "wrong-key-123456789" not in str(caught.value)
    assert API_KEY not in repr(served.connect())


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidInputError):
        RecallEngine.connect("localhost:8000")
    with pytest.raises(InvalidInputError):
        RecallEngine.connect("http://127.0.0.1:1", api_key="")
    with pytest.raises(InvalidInputError):
        RecallEngine.connect("http://127.0.0.1:1", timeout_s=0)


def test_store_locked_message_points_at_connect() -> None:
    from recall_engine.storage.store_lock import REMEDY

    assert "RecallEngine.connect" in REMEDY


def test_one_client_serves_one_asyncio_run_after_another(served) -> None:
    """As the embedded engine does (tests/remote/test_pool.py: one pool for them all)."""
    import asyncio

    remote = served.connect()
    asyncio.run(remote.remember("Einstein was born in Ulm.", dataset_name="physics"))
    for _ in range(2):
        found = asyncio.run(remote.recall("Ulm", SearchType.CHUNKS_LEXICAL, only_context=True))
        assert found and "Ulm" in found[0].text
    asyncio.run(remote.aclose())


async def test_trace_and_session_context_entries_come_back_as_their_models(served) -> None:
    """recall(scope=["trace"]) over HTTP returns the embedded engine's trace entries."""
    from recall_engine.core.models import ResponseTraceEntry

    @served.engine.trace(session_id="agent")
    def pay_invoice(invoice: str) -> str:
        raise RuntimeError("bank rejected the transfer")

    with pytest.raises(RuntimeError):
        pay_invoice("INV-7")
    async with served.connect() as remote:
        found = await remote.recall("what failed?", scope=["trace"], session_id="agent")
    assert found and isinstance(found[0], ResponseTraceEntry)
    assert found[0].source == "trace" and found[0].status == "error"
    assert "bank rejected" in (found[0].error or "")


@pytest.mark.parametrize("default_tenant", ["default", "acme"])
async def test_a_tenant_key_without_tenant_id_is_told_to_pass_it(
    tmp_path, hash_embedder, default_tenant
) -> None:
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder, default_tenant=default_tenant)
    live = serve(engine)
    engine.tenants.registry.add_key("acme-only-key-000000000", "acme")
    try:
        async with RecallEngine.connect(live.url, api_key="acme-only-key-000000000") as remote:
            if default_tenant == "acme":  # the server's default is the key's own tenant
                stored = await remote.remember("Ann lives in Oslo.")
                assert stored.tenant_id == "acme"
            else:
                with pytest.raises(PermissionDeniedError, match="pass tenant_id"):
                    await remote.remember("Ann lives in Oslo.")
                stored = await remote.remember("Ann lives in Oslo.", tenant_id="acme")
                assert stored.tenant_id == "acme"
                assert await engine.list_datasets(tenant_id="default") == {}
    finally:
        live.stop()
        engine.close()


async def test_a_rate_limit_is_not_bad_input_and_a_wrong_url_says_so(tmp_path, hash_embedder):
    from recall_engine.server import ServerSettings, create_app
    from recall_engine.tenants.registry import ADMIN
    from tests.live_uvicorn import start_in_thread

    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    engine.tenants.registry.add_key(API_KEY, ADMIN)
    port, server, thread = start_in_thread(create_app(engine, ServerSettings(rate=0.001, burst=1)))
    url = f"http://127.0.0.1:{port}"
    try:
        async with RecallEngine.connect(url, api_key=API_KEY) as remote:
            assert await remote.list_datasets() == {}
            with pytest.raises(RemoteUnavailableError, match="Too many requests"):
                await remote.list_datasets()
        async with RecallEngine.connect(url + "/api/v1", api_key=API_KEY) as remote:
            with pytest.raises(InvalidInputError, match="base URL"):
                await remote.list_datasets()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.close()
