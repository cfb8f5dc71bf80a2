"""remember() stores each chunk's sentence vectors; they survive a reopen and can be off."""

from __future__ import annotations

from recall_engine import Conversation, Message, RecallEngine, SearchType

CHAT = Conversation(
    messages=[
        Message(id="D1:1", speaker="Ann", text="Hi Bo! I moved to Lyon. Did you move too?"),
        Message(id="D1:2", speaker="Bo", text="No, I stayed in Ulm."),
    ]
)


async def test_sentences_are_stored_kept_on_reopen_and_can_be_off(tmp_path, hash_embedder):
    engine = RecallEngine(tmp_path / "on", embedder=hash_embedder)
    await engine.remember(CHAT, dataset_name="chat")
    # Ann's turn is three sentences; Bo's is one (its own vector is that sentence's)
    assert len(engine.store().index.sentences) == 3
    engine.close()

    reopened = RecallEngine(tmp_path / "on", embedder=hash_embedder)
    assert len(reopened.store().index.sentences) == 3
    results = await reopened.recall(
        "I moved to Lyon.", query_type=SearchType.CHUNKS, only_context=True, top_k=2
    )
    assert results[0].metadata["sources"][0]["message_ids"] == ["D1:1"]
    reopened.close()

    off = RecallEngine(tmp_path / "off", embedder=hash_embedder, sentence_vectors=False)
    await off.remember(CHAT, dataset_name="chat")
    assert len(off.store().index.sentences) == 0
    off.close()


async def test_remember_again_fills_the_sentences_of_items_stored_without_them(
    tmp_path, hash_embedder
):
    off = RecallEngine(tmp_path / "store", embedder=hash_embedder, sentence_vectors=False)
    first = await off.remember(CHAT, dataset_name="chat")
    again_off = await off.remember(CHAT, dataset_name="chat")
    assert again_off.skipped_data_ids == first.data_ids and again_off.retried_data_ids == []
    off.close()

    on = RecallEngine(tmp_path / "store", embedder=hash_embedder)
    assert len(on.store().index.sentences) == 0
    refreshed = await on.remember(CHAT, dataset_name="chat")
    assert refreshed.retried_data_ids == first.data_ids
    assert refreshed.chunk_count == 2
    assert len(on.store().index.sentences) == 3
    items = await on.list_items(dataset_name="chat")
    assert [(i["data_id"], i["chunk_count"]) for i in items] == [(first.data_ids[0], 2)]
    settled = await on.remember(CHAT, dataset_name="chat")
    assert settled.skipped_data_ids == first.data_ids and settled.retried_data_ids == []
    on.close()

    reopened = RecallEngine(tmp_path / "store", embedder=hash_embedder)
    assert len(reopened.store().index.sentences) == 3
    reopened.close()
