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
    records = {r.text: r for r in engine.store(store).index.records()}
    assert records[text["m1"]].message_ids == ("m1",) and records[text["d1"]].message_ids == ()
    assert records[text["m1"]].speaker == "Ann"
    # the title that named the speaker is not the turn's document name (a question naming
    # Ann would match every turn of hers by title); another title stays
    assert records[text["m1"]].document_name != "Ann"
    assert records[text["m2"]].document_name == "Re: Lyon"
    # a turn is deleted by its source id, as any source
    gone = await engine.tenants.delete_sources("acme", ["m1"], sub_tenant_id="chat")
    assert gone == {"m1": True}
