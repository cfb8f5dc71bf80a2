"""Isolation, property-tested: random tenants, sub-tenants, memories and queries;
no result ever comes from another tenant or sub-tenant, and every memory of the
sub-tenant that holds the query's word is found (a word none of them holds matches
nothing there: recall()'s coverage stage may return no chunk)."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recall_engine.testing import DeterministicEmbedder
from tests.remote_fixture import MODES, built

TENANTS = ("t_one", "t two", "t/3")
SUBS = (None, "alice", "bob_b", "Ωmega")
WORDS = ("apple", "river", "violin", "copper", "maple", "orbit", "saffron", "glacier")

placement = st.tuples(st.sampled_from(TENANTS), st.sampled_from(SUBS))
memory = st.tuples(placement, st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))


@pytest.fixture(scope="module", params=MODES)
def world(request, tmp_path_factory):
    """One engine with every tenant, shared by all examples; data accumulates. Used
    directly, served on 127.0.0.1 and reached through ``RecallEngine.connect``, or
    on the distributed profile."""
    path = tmp_path_factory.mktemp("iso")
    with built(request.param, path, embedder=DeterministicEmbedder()) as engine:

        async def create() -> None:
            for tenant in TENANTS:
                await engine.create_tenant(tenant)

        asyncio.run(create())
        yield engine, {}, {}, itertools.count()


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    batch=st.lists(memory, min_size=1, max_size=6),
    queries=st.lists(st.tuples(placement, st.sampled_from(WORDS)), min_size=1, max_size=3),
    mode=st.sampled_from(["fast", "thinking"]),
)
def test_no_result_crosses_a_tenant_or_sub_tenant(world, batch, queries, mode):
    engine, home, texts, ids = world

    async def run() -> None:
        grouped: dict[tuple[str, str | None], list[dict[str, str]]] = {}
        for (tenant, sub), words in batch:
            source_id = f"s{next(ids)}"
            home[source_id] = (tenant, sub)
            texts[source_id] = set(words)
            grouped.setdefault((tenant, sub), []).append(
                {"source_id": source_id, "text": " ".join([*words, source_id])}
            )
        for (tenant, sub), memories in grouped.items():
            await engine.add_memory(tenant, memories, sub_tenant_id=sub)
        for (tenant, sub), word in queries:
            expected = {s for s, where in home.items() if where == (tenant, sub)}
            holding = {s for s in expected if word in texts[s]}
            memories_found = await engine.recall_preferences(
                tenant_id=tenant,
                sub_tenant_id=sub,
                query=word,
                mode=mode,
                graph_context=True,
                max_results=500,
            )
            found = [*memories_found.chunks, *memories_found.additional_context.values()]
            assert all(home[c.source_id] == (tenant, sub) for c in found)
            assert holding <= {c.source_id for c in memories_found.chunks} <= expected
            knowledge = await engine.full_recall(tenant_id=tenant, sub_tenant_id=sub, query=word)
            assert knowledge.chunks == []  # memories never leak into knowledge
            boolean = await engine.boolean_recall(
                tenant, word, search_mode="memories", sub_tenant_id=sub, max_results=500
            )
            assert all(home[c.source_id] == (tenant, sub) for c in boolean.chunks)
            assert {c.source_id for c in boolean.chunks} <= expected

    asyncio.run(run())
