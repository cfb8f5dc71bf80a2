"""``POST /api/v1/engine/{method}`` (the remote client's route): a text is never
read as a server-side path, however it is passed, and data the engine cannot
store is a 400 naming what was wrong, not a 500."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.conftest import KEYS, error_of


@pytest.mark.parametrize("how", ["positional", "keyword", "keyword list"])
def test_remember_never_reads_a_server_file(live, tmp_path, how) -> None:
    secret = tmp_path / "server-secret.txt"
    secret.write_text("zebracorn launch codes", encoding="utf-8")
    data = [str(secret)] if how == "keyword list" else str(secret)
    kwargs: dict[str, Any] = {"tenant_id": "acme"}
    if how == "positional":
        body: dict[str, Any] = {"args": [data], "kwargs": kwargs}
    else:
        body = {"kwargs": {**kwargs, "data": data}}
    with live.client(KEYS["acme"]) as client:
        stored = client.post("/api/v1/engine/remember", json=body)
        assert stored.status_code == 200, stored.text
        found = client.post(
            "/api/v1/engine/recall",
            json={
                "args": [str(secret), "CHUNKS_LEXICAL"],
                "kwargs": {"tenant_id": "acme", "only_context": True},
            },
        )
    assert found.status_code == 200, found.text
    texts = [r["text"] for r in found.json()["result"]]
    assert texts == [str(secret)]  # the path, stored as text
    assert not any("zebracorn" in t for t in texts)


@pytest.mark.parametrize("data", [5, None, [5], [None]])
def test_remember_of_unstorable_data_is_a_400(live, data) -> None:
    body = {"args": [data], "kwargs": {"tenant_id": "acme"}}
    with live.client(KEYS["acme"]) as client:
        refused = client.post("/api/v1/engine/remember", json=body)
        listed = client.post("/api/v1/engine/list_datasets", json={"kwargs": {"tenant_id": "acme"}})
    assert refused.status_code == 400, refused.text
    assert error_of(refused)["error_code"] == "INVALID_PARAMETERS"
    assert "remember() cannot store" in error_of(refused)["message"]
    assert refused.headers["X-Recall-Error"] == "InvalidInputError"
    assert listed.json()["result"] == {}  # nothing was stored
