"""Knowledge sources of type ``conversation`` are remembered as conversation turns
(speaker, time, the turn's id), as ``remember(Conversation(...))`` stores them;
other sources stay documents."""

from __future__ import annotations

TURNS = [
    {"id": "m1", "title": "Ann", "type": "conversation", "text": "I moved to Lyon last spring."},
    {
        "id": "m2",
        "title": "Re: Lyon",
        "type": "Conversation",
        "metadata": {"speaker": "Bob"},
        "text": "Nice, do you like it there?",
    },
    {"id": "d1", "title": "Notes", "text": "Lyon is a city in France."},
]


async def test_conversation_sources_keep_speaker_time_and_turn_id(engine):
    await engine.create_tenant("acme")
    turns = [{**t, "timestamp": f"2023-05-08T13:5{n}:00"} for n, t in enumerate(TURNS)]
    stored = await engine.upload_knowledge("acme", turns, sub_tenant_id="chat")
    assert stored.success_count == 3, stored.results
    found = await engine.full_recall(
        tenant_id="acme", sub_tenant_id="chat", query="Lyon", max_results=3
    )
    text = {c.source_id: c.chunk_content for c in found.chunks}
    assert text["m1"] == "[2023-05-08 13:50] Ann: I moved to Lyon last spring."
    assert text["m2"].endswith("Bob: Nice, do you like it there?")  # speaker from metadata
    assert text["d1"] == "Lyon is a city in France."
    store = engine.tenants.registry.store_name("acme")
    turn_ids = {r.text: r.message_ids for r in engine.store(store).index.records()}
    assert turn_ids[text["m1"]] == ("m1",) and turn_ids[text["d1"]] == ()
    # a turn is deleted by its source id, as any source
    gone = await engine.tenants.delete_sources("acme", ["m1"], sub_tenant_id="chat")
    assert gone == {"m1": True}
