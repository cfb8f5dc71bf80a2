"""Conversation-turn sources over HTTP: the turns of a sub-tenant are one stored
conversation, and one turn is replaced, listed and deleted by its id without
touching the other turns or another sub-tenant."""

from __future__ import annotations

from tests.conversation_turns import conversation_turn

_turn = conversation_turn


TURNS = [
    _turn(0, "We adopted a puppy last week.", "Ann"),
    _turn(1, "What did you name her?", "Bob"),
    _turn(2, "Her name is Pepper, she loves the beach.", "Ann"),
]


def _upload(client, sources, sub):
    response = client.post(
        "/ingestion/upload_knowledge",
        json={"tenant_id": "acme", "sub_tenant_id": sub, "app_sources": sources},
    )
    assert response.status_code == 200, response.text
    return response.json()


def _listed(client, sub):
    body = {"tenant_id": "acme", "sub_tenant_id": sub}
    response = client.post("/list/data", json=body)
    assert response.status_code == 200, response.text
    return {s["id"]: s for s in response.json()["sources"]}


def _items(live):
    store = live.engine.tenants.registry.store_name("acme")
    items: dict[str, set[str]] = {}
    for record in live.engine.store(store).index.records():
        items.setdefault(record.data_id, set()).update(record.message_ids)
    return sorted(sorted(ids) for ids in items.values())


def test_one_turn_is_replaced_and_deleted_by_id(make_server):
    live = make_server()
    with live.client() as client:
        assert client.post("/tenants/create", json={"tenant_id": "acme"}).status_code == 200
        assert _upload(client, TURNS, "chat")["success_count"] == 3
        assert _upload(client, [_turn(7, "Hi, I am new here.", "Cy")], "other")["success_count"]
        assert _items(live) == [["t0", "t1", "t2"], ["t7"]]  # one conversation per sub-tenant
        other = _listed(client, "other")

        changed = _turn(1, "What did you call her?", "Bob")
        assert _upload(client, [changed], "chat")["success_count"] == 1
        listed = _listed(client, "chat")
        assert list(listed) == ["t0", "t1", "t2"]
        assert listed["t1"]["content"]["text"].endswith("Bob: What did you call her?")
        assert listed["t1"]["title"] == "Bob" and listed["t1"]["type"] == "conversation"

        found = client.post(
            "/recall/full_recall",
            json={"tenant_id": "acme", "sub_tenant_id": "chat", "query": "Pepper beach"},
        ).json()
        assert found["chunks"][0]["source_id"] == "t2"

        deleted = client.post(
            "/knowledge/delete_knowledge",
            json={"tenant_id": "acme", "sub_tenant_id": "chat", "ids": ["t1"]},
        ).json()
        assert deleted["deleted_count"] == 1
        assert list(_listed(client, "chat")) == ["t0", "t2"]
        assert _items(live) == [["t0", "t2"], ["t7"]]
        assert _listed(client, "other") == other
