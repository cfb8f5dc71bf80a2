"""full_recall, recall_preferences and boolean_recall run recall()'s pipeline: a stage
a caller adds to ``engine.pipeline`` runs for them, coverage drops a query that
matches nothing, recency is the narrowing stage's and ``as_of`` the tense stage's;
``alpha`` moves the passage lane's balance between meaning and keywords."""

from __future__ import annotations

from recall_engine.pipeline.stage import stage
from recall_engine.pipeline.state import RecallState

TURNS = [
    ("ana", "I booked the ferry to the island for Saturday morning."),
    ("ben", "Great, which harbour does it leave from?"),
    ("ana", "The north harbour, next to the old lighthouse."),
    ("ben", "I will pack the tent and the camping stove."),
    ("ana", "Bring the blue kayak too, the bay is calm in June."),
    ("ben", "My sister lent me her kayak paddles last week."),
    ("ana", "The forecast says rain on Sunday afternoon."),
    ("ben", "Then we hike to the waterfall on Saturday instead."),
]
ASK = {"tenant_id": "acme", "sub_tenant_id": "trip"}


async def _trip(engine) -> None:
    """The turns as knowledge sources (one a day) and as one memory of pairs."""
    await engine.create_tenant("acme")
    sources = [
        {"id": f"t{i}", "title": who, "text": text, "timestamp": f"2024-06-{i + 1:02d}T10:00:00"}
        for i, (who, text) in enumerate(TURNS)
    ]
    await engine.upload_knowledge("acme", sources, sub_tenant_id="trip")
    pairs = [{"user": TURNS[i][1], "assistant": TURNS[i + 1][1]} for i in range(0, len(TURNS), 2)]
    await engine.add_memory("acme", [{"user_assistant_pairs": pairs}], sub_tenant_id="trip")


def _recorder(seen: list[RecallState]):
    async def record(state: RecallState) -> None:
        seen.append(state)

    return stage("record", record)


async def test_every_tenant_search_runs_the_engines_pipeline(engine):
    await _trip(engine)
    seen: list[RecallState] = []
    engine.pipeline.insert_stage(_recorder(seen), after="coverage")
    fast = await engine.full_recall(**ASK, query="Where does the ferry leave from?")
    thinking = await engine.full_recall(**ASK, query="kayak paddles", mode="thinking")
    memories = await engine.recall_preferences(**ASK, query="kayak paddles")
    exact = await engine.boolean_recall("acme", "kayak", sub_tenant_id="trip", operator="and")
    assert [s.search_type for s in seen] == [
        "TENANT_PASSAGES",
        "TENANT_GRAPH",
        "TENANT_PASSAGES",
        "TENANT_BOOLEAN",
    ]
    # each ran every stage up to the inserted one, in the sub-tenant's dataset only
    for state in seen:
        assert {"scope", "retrieve", "narrow", "tense", "coverage"} <= set(state.timings)
        assert len(state.dataset_ids) == 1 and state.coverage is not None
    assert seen[0].dataset_ids == seen[1].dataset_ids != seen[2].dataset_ids
    # the reply is the pipeline's hits, in its order
    for result, state in zip((fast, thinking, memories, exact), seen, strict=True):
        assert state.output is not None
        assert [c.chunk_uuid for c in result.chunks] == [h.chunk_id for h in state.output.hits]
    assert "ferry" in fast.chunks[0].chunk_content or "harbour" in fast.chunks[0].chunk_content
    assert all("kayak" in c.chunk_content.lower() for c in exact.chunks) and exact.chunks


async def test_coverage_drops_a_query_that_matches_nothing(engine):
    await _trip(engine)
    assert (await engine.full_recall(**ASK, query="ferry harbour")).chunks
    nothing = await engine.full_recall(**ASK, query="zyxwv qwrtp")
    assert nothing.chunks == [] and nothing.sources == []


async def test_recency_and_as_of_are_the_pipelines(engine):
    await _trip(engine)
    query = "the ferry on Saturday"
    plain = await engine.full_recall(**ASK, query=query, max_results=8)
    newest = await engine.full_recall(**ASK, query=query, max_results=8, recency_bias=1.0)
    assert plain.chunks[0].source_id == "t0"  # the ferry on Saturday, said first
    assert newest.chunks[0].source_id == "t7"  # the latest turn of the relevant pool
    before = await engine.full_recall(
        **ASK, query=query, max_results=8, alpha=0.0, as_of="2024-06-05T00:00:00"
    )
    assert before.chunks and all(c.source_id in {"t0", "t1", "t2", "t3"} for c in before.chunks)


async def test_alpha_moves_the_balance_between_meaning_and_keywords(engine):
    await _trip(engine)
    ask = {**ASK, "query": "kayak paddles", "max_results": 8}
    keyword = await engine.full_recall(**ask, alpha=0.0)
    # BM25 alone puts the turn holding both words first.
    assert "paddles" in keyword.chunks[0].chunk_content
    assert keyword.alpha_used == 0.0
    semantic = await engine.full_recall(**ask, alpha=1.0)
    assert semantic.alpha_used == 1.0 and semantic.chunks
