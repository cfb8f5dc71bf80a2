"""Deleting a tenant deletes what it held wherever it lives: a tenant made again
under the same id starts empty, on the embedded store and on the distributed
profile (whose graph and vector tables outlive the data dir's folder), and
another replica that had the tenant open sees it empty too."""

from __future__ import annotations

import pytest

from recall_engine import RecallEngine
from recall_engine.storage.lance_vectors import tables_exist
from recall_engine.testing import DeterministicEmbedder
from tests.distributed_profile import distributed_profile
from tests.remote_fixture import opened

TEA = [{"source_id": "tea", "text": "Prefers green tea in the morning"}]


async def _found(engine, query: str = "green tea") -> list[str]:
    result = await engine.recall_preferences(tenant_id="acme", query=query)
    return [c.source_id for c in result.chunks]


@pytest.mark.parametrize("mode", ["embedded", "distributed"])
async def test_a_tenant_made_again_starts_empty(mode, tmp_path):
    async with opened(mode, tmp_path / "data", embedder=DeterministicEmbedder()) as engine:
        await engine.create_tenant("acme")
        await engine.add_memory("acme", TEA)
        assert await _found(engine) == ["tea"]
        store = engine.tenants.registry.store_name("acme")
        await engine.tenants.delete_tenant("acme")
        assert not engine.config.tenant_dir(store).exists()
        if mode == "distributed":
            shared = engine._shared_vectors
            assert not tables_exist(shared.store_uri(store), shared.options, store)
            graph = engine._graph_server
            assert not graph.reads.connection.exists(graph.graph_name(store))
        await engine.create_tenant("acme")
        assert await _found(engine) == []
        await engine.add_memory("acme", [{"source_id": "coffee", "text": "Drinks green coffee"}])
        assert await _found(engine, "green") == ["coffee"]


async def test_another_replica_sees_the_tenant_made_again_empty(tmp_path):
    with distributed_profile() as profile:
        options = profile.options(vector_refresh_s=0)
        a = RecallEngine(tmp_path / "a", embedder=DeterministicEmbedder(), **options)
        b = RecallEngine(tmp_path / "b", embedder=DeterministicEmbedder(), **options)
        try:
            await a.create_tenant("acme")
            await a.add_memory("acme", TEA)
            assert await _found(b) == ["tea"]  # b has the tenant's store open now
            await a.tenants.delete_tenant("acme")
            await a.create_tenant("acme")
            assert await _found(b) == []
            await a.add_memory("acme", [{"source_id": "coffee", "text": "Drinks green coffee"}])
            assert await _found(b, "green") == ["coffee"]
        finally:
            a.close()
            b.close()


async def test_a_replica_that_writes_first_into_the_tenant_made_again_sees_it_empty(tmp_path):
    with distributed_profile() as profile:
        options = profile.options(vector_refresh_s=0)
        a = RecallEngine(tmp_path / "a", embedder=DeterministicEmbedder(), **options)
        b = RecallEngine(tmp_path / "b", embedder=DeterministicEmbedder(), **options)
        try:
            await a.create_tenant("acme")
            await a.add_memory("acme", TEA)
            assert await _found(b) == ["tea"]  # b's mirror of the first tenant
            await a.tenants.delete_tenant("acme")
            await a.create_tenant("acme")
            # The new tables start over at the same version and row ids as the old
            # ones did: only the tenant's new record tells b its mirror is stale.
            await b.add_memory("acme", [{"source_id": "coffee", "text": "Drinks green coffee"}])
            assert await _found(b, "green") == ["coffee"]
            assert await _found(a, "green") == ["coffee"]
        finally:
            a.close()
            b.close()
