"""full_recall and recall_preferences mark what a later statement superseded
(``document_metadata`` and the context string) and put what still holds first
(full_recall: unless the tense stage ranked the chunks for a question about now or
the past)."""

from __future__ import annotations

from recall_engine.tenants import build_context_string


def _pair(source_id: str, text: str, when: str) -> dict:
    return {
        "source_id": source_id,
        "user_name": "Bo",
        "user_assistant_pairs": [{"user": text, "assistant": "Noted."}],
        "timestamp": when,
    }


async def test_recall_preferences_ranks_current_preferences_first(engine):
    await engine.create_tenant("acme")
    await engine.add_memory("acme", [_pair("red", "My favourite colour is red.", "2023-01-01")])
    await engine.add_memory(
        "acme", [_pair("blue", "My favourite colour is blue now.", "2024-01-01")]
    )
    await engine.add_memory("acme", [{"source_id": "tea", "text": "Bo drinks tea."}])
    result = await engine.recall_preferences(tenant_id="acme", query="Bo favourite colour red")
    said = [c for c in result.chunks if "favourite colour" in c.chunk_content]
    assert [c.source_id for c in said] == ["blue", "red"]
    red = said[1]
    assert red.document_metadata is not None
    assert red.document_metadata["valid_until"].startswith("2024-01-01")
    assert red.document_metadata["superseded_by"] == "favourite_colour blue"
    assert "valid_until" not in (said[0].document_metadata or {})
    assert "Superseded on 2024-01-01 by: favourite_colour blue" in build_context_string(result)


async def test_full_recall_marks_a_superseded_source(engine):
    await engine.create_tenant("acme")
    sources = [
        {"id": "old", "text": "Ann lives in Lyon.", "timestamp": "2023-01-05T10:00:00"},
        {"id": "new", "text": "Ann moved to Paris.", "timestamp": "2024-03-01T09:00:00"},
    ]
    await engine.upload_knowledge("acme", sources)
    result = await engine.full_recall(tenant_id="acme", query="Ann lives in Lyon")
    assert [c.source_id for c in result.chunks] == ["new", "old"]
    old = result.chunks[1]
    assert old.document_metadata is not None
    assert old.document_metadata["valid_until"] == "2024-03-01T09:00:00"
    assert old.document_metadata["superseded_by"] == "moved_to Paris"


async def test_as_of_answers_with_what_was_said_and_held_then(engine):
    await engine.create_tenant("acme")
    sources = [
        {"id": "old", "text": "Ann lives in Lyon.", "timestamp": "2023-01-05T10:00:00"},
        {"id": "new", "text": "Ann moved to Paris.", "timestamp": "2024-03-01T09:00:00"},
    ]
    await engine.upload_knowledge("acme", sources)
    then = await engine.full_recall(tenant_id="acme", query="Ann lives in Lyon", as_of="2023-06-01")
    assert [c.source_id for c in then.chunks] == ["old"]  # the move was not said yet
    assert "valid_until" not in (then.chunks[0].document_metadata or {})  # it held then
    later = await engine.full_recall(
        tenant_id="acme", query="Ann lives in Lyon", as_of="2024-06-01T00:00:00Z"
    )
    assert [c.source_id for c in later.chunks] == ["new", "old"]
    assert later.chunks[1].document_metadata["valid_until"] == "2024-03-01T09:00:00"


async def test_recall_preferences_as_of_a_date_before_a_change(engine):
    await engine.create_tenant("acme")
    await engine.add_memory("acme", [_pair("red", "My favourite colour is red.", "2023-01-01")])
    await engine.add_memory(
        "acme", [_pair("blue", "My favourite colour is blue now.", "2024-01-01")]
    )
    result = await engine.recall_preferences(
        tenant_id="acme", query="Bo favourite colour", as_of="2023-06-01"
    )
    said = [c for c in result.chunks if "favourite colour" in c.chunk_content]
    assert [c.source_id for c in said] == ["red"]
    assert "valid_until" not in (said[0].document_metadata or {})
