"""Knowledge sources of type ``conversation`` are stored as conversation turns
(speaker, time, the turn's id), the turns of one conversation (sub-tenant and
conversation key) together as one ``Conversation``; other sources stay documents.
Each turn stays a source of its own: listed, fetched, replaced and deleted by id."""

from __future__ import annotations

import pytest

from recall_engine.core.metadata import SOURCE_KEY
from tests.conversation_turns import conversation_turn

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


def _records(engine, tenant="acme"):
    store = engine.tenants.registry.store_name(tenant)
    return engine.store(store).index.records()


_turn = conversation_turn


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
    titles = {c.source_id: c.source_title for c in found.chunks}
    assert titles == {"m1": "Ann", "m2": "Re: Lyon", "d1": "Notes"}
    records = {r.text: r for r in _records(engine)}
    assert records[text["m1"]].message_ids == ("m1",) and records[text["d1"]].message_ids == ()
    assert records[text["m1"]].speaker == "Ann"
    # both turns are one conversation, in order; the document is an item of its own
    m1, m2 = records[text["m1"]], records[text["m2"]]
    assert m1.data_id == m2.data_id != records[text["d1"]].data_id
    assert (m1.chunk_index, m2.chunk_index) == (0, 1)
    # the title that named the speaker is not the turn's document name (a question naming
    # Ann would match every turn of hers by title)
    assert m1.document_name != "Ann"
    gone = await engine.tenants.delete_sources("acme", ["m1"], sub_tenant_id="chat")
    assert gone == {"m1": True}
    left = {r.text for r in _records(engine)}
    assert text["m1"] not in left and {text["m2"], text["d1"]} <= left


async def test_turns_uploaded_one_by_one_join_their_conversation(engine):
    await engine.create_tenant("acme")
    for n, text in enumerate(["We adopted a puppy.", "What is its name?", "Her name is Pepper."]):
        speaker = "Bob" if n == 1 else "Ann"
        result = await engine.upload_knowledge(
            "acme", [_turn(n, text, speaker)], sub_tenant_id="chat"
        )
        assert result.success_count == 1, result.results
    records = sorted(_records(engine), key=lambda r: r.chunk_index)
    assert len({r.data_id for r in records}) == 1
    assert [r.message_ids for r in records] == [("t0",), ("t1",), ("t2",)]
    listed = await engine.tenants.list_sources("acme", sub_tenant_id="chat")
    assert [s["id"] for s in listed] == ["t0", "t1", "t2"]
    assert listed[1]["title"] == "Bob" and listed[1]["type"] == "conversation"
    assert listed[2]["text"].endswith("Ann: Her name is Pepper.")
    fetched = await engine.tenants.source("acme", "t1", sub_tenant_id="chat")
    assert fetched["text"].endswith("Bob: What is its name?")


async def test_replacing_or_deleting_one_turn_changes_only_that_turn(engine):
    await engine.create_tenant("acme")
    turns = [
        _turn(0, "We adopted a puppy.", tenant_metadata=None, metadata={"mood": "glad"}),
        _turn(1, "What is its name?", "Bob"),
        _turn(2, "Her name is Pepper."),
    ]
    assert (await engine.upload_knowledge("acme", turns, sub_tenant_id="chat")).success_count == 3
    before = {r.message_ids: r for r in _records(engine)}

    changed = [_turn(1, "What did you call her?", "Bob")]
    result = await engine.upload_knowledge("acme", changed, sub_tenant_id="chat")
    assert result.success_count == 1, result.results
    after = {r.message_ids: r for r in _records(engine)}
    assert after[("t1",)].text.endswith("Bob: What did you call her?")
    assert after[("t2",)].text == before[("t2",)].text
    assert [after[(f"t{n}",)].chunk_index for n in (0, 2)] == [0, 2]

    refused = await engine.upload_knowledge("acme", changed, sub_tenant_id="chat", upsert=False)
    assert refused.failed_count == 1 and "upsert is false" in (refused.results[0].error or "")

    gone = await engine.tenants.delete_sources("acme", ["t1", "nope"], sub_tenant_id="chat")
    assert gone == {"t1": True, "nope": False}
    left = sorted(_records(engine), key=lambda r: r.chunk_index)
    assert [r.message_ids for r in left] == [("t0",), ("t2",)]
    assert [r.chunk_index for r in left] == [0, 1]  # neighbours again
    own = left[0].metadata
    assert own["additional_metadata"] == {"mood": "glad"}
    assert own[SOURCE_KEY]["source_id"] == "t0"  # type: ignore[index]


async def test_conversation_keys_and_sub_tenants_keep_turns_apart(engine):
    await engine.create_tenant("acme")
    first = [_turn(0, "We adopted a puppy."), _turn(1, "Her name is Pepper.")]
    second = [
        _turn(2, "I bought a bike.", metadata={"conversation_id": "c2"}),
        _turn(3, "It is red.", metadata={"conversation_id": "c2"}),
    ]
    await engine.upload_knowledge("acme", first + second, sub_tenant_id="chat")
    await engine.upload_knowledge("acme", [_turn(9, "Hello there.")], sub_tenant_id="other")
    items = {}
    for r in _records(engine):
        items.setdefault(r.data_id, set()).update(r.message_ids)
    assert sorted(map(sorted, items.values())) == [["t0", "t1"], ["t2", "t3"], ["t9"]]
    untouched = {r.id for r in _records(engine) if r.message_ids[0] in {"t2", "t3", "t9"}}

    await engine.tenants.delete_sources("acme", ["t0"], sub_tenant_id="chat")
    await engine.upload_knowledge("acme", [_turn(1, "She is called Pepper.")], sub_tenant_id="chat")
    # the other conversation and the other sub-tenant's rows are the same rows
    assert untouched <= {r.id for r in _records(engine)}
    # a turn given another conversation key moves there
    moved = _turn(3, "It is red.", metadata={"conversation_id": "c3"})
    await engine.upload_knowledge("acme", [moved], sub_tenant_id="chat")
    items = {}
    for r in _records(engine):
        items.setdefault(r.data_id, set()).update(r.message_ids)
    assert sorted(map(sorted, items.values())) == [["t1"], ["t2"], ["t3"], ["t9"]]
    gone = await engine.tenants.delete_sources("acme", ["t9"], sub_tenant_id="chat")
    assert gone == {"t9": False}  # another sub-tenant's turn
    gone = await engine.tenants.delete_sources("acme", ["t1"], sub_tenant_id="chat")
    assert gone == {"t1": True}
    assert {m for r in _records(engine) for m in r.message_ids} == {"t2", "t3", "t9"}


async def test_a_failed_write_leaves_the_conversation_as_it_was(engine, monkeypatch):
    await engine.create_tenant("acme")
    turns = [_turn(0, "We adopted a puppy."), _turn(1, "Her name is Pepper.")]
    await engine.upload_knowledge("acme", turns, sub_tenant_id="chat")
    before = sorted((r.id, r.text) for r in _records(engine))
    store = engine.store(engine.tenants.registry.store_name("acme"))

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "commit_ingest", broken)
    with pytest.raises(Exception, match="disk full"):
        await engine.upload_knowledge("acme", [_turn(1, "Pepper, she is.")], sub_tenant_id="chat")
    with pytest.raises(Exception, match="disk full"):
        await engine.tenants.delete_sources("acme", ["t0"], sub_tenant_id="chat")
    monkeypatch.undo()
    assert sorted((r.id, r.text) for r in _records(engine)) == before


async def test_a_turn_that_expires_is_stored_alone_and_takes_no_other_turn(engine):
    import time

    from recall_engine.storage.expiry import forget_expired

    await engine.create_tenant("acme")
    turns = [_turn(0, "We adopted a puppy."), _turn(1, "Her name is Pepper.")]
    await engine.upload_knowledge("acme", turns, sub_tenant_id="chat")
    brief = _turn(1, "Pepper is asleep now.", expiry_time=60)
    assert (await engine.upload_knowledge("acme", [brief], sub_tenant_id="chat")).success_count
    items = {}
    for r in _records(engine):
        items.setdefault(r.data_id, set()).update(r.message_ids)
    assert sorted(map(sorted, items.values())) == [["t0"], ["t1"]]  # t1 left the conversation
    store = engine.store(engine.tenants.registry.store_name("acme"))
    forget_expired(store, now=time.time() + 120)
    assert [r.message_ids for r in _records(engine)] == [("t0",)]
