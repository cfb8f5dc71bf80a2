"""full_recall and recall() share one search core: the same chunks, in the same
order, from the same passage lane; the request's filter binds every lane of it."""

from __future__ import annotations

from recall_engine import Conversation, Message, SearchType
from recall_engine.tenants.ids import KNOWLEDGE, dataset_name

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
QUESTIONS = [
    "Where does the ferry leave from?",
    "What will they bring for the bay?",
    "What is the weather on Sunday?",
    "kayak paddles",
]


async def _tenant_with_conversation(engine) -> tuple[str, str]:
    await engine.create_tenant("acme")
    registry = engine.tenants.registry
    store = registry.store_name("acme")
    name = dataset_name(KNOWLEDGE, registry.sub_tenant_name(registry.owner_of(store), "trip"))
    messages = [Message(id=f"m{i}", speaker=who, text=text) for i, (who, text) in enumerate(TURNS)]
    await engine.remember(Conversation(messages=messages), dataset_name=name, tenant_id=store)
    return store, name


async def test_full_recall_ranks_chunks_as_hybrid_completion_does(engine):
    store, name = await _tenant_with_conversation(engine)
    for question in QUESTIONS:
        results = await engine.recall(
            question,
            SearchType.HYBRID_COMPLETION,
            datasets=[name],
            tenant_id=store,
            top_k=40,
            only_context=True,
        )
        (context,) = results
        lane = [hit["id"] for hit in context.raw if "chunk_index" in hit]  # the passages
        assert lane
        found = await engine.full_recall(
            tenant_id="acme", sub_tenant_id="trip", query=question, max_results=len(lane)
        )
        assert found.alpha_used == 0.5  # the default is HYBRID_COMPLETION's balance
        assert [c.chunk_uuid for c in found.chunks] == lane


async def test_alpha_moves_the_balance_between_meaning_and_keywords(engine):
    await _tenant_with_conversation(engine)
    ask = {"tenant_id": "acme", "sub_tenant_id": "trip", "query": "kayak paddles", "max_results": 8}
    keyword = await engine.full_recall(**ask, alpha=0.0)
    # BM25 alone puts the turn holding both words first.
    assert "paddles" in keyword.chunks[0].chunk_content
    assert keyword.alpha_used == 0.0
    semantic = await engine.full_recall(**ask, alpha=1.0)
    assert semantic.alpha_used == 1.0 and semantic.chunks
