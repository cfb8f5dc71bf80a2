"""``facts`` over HTTP: ``GET /api/v1/facts`` and ``RemoteRecallEngine.facts`` give
what the embedded engine gives, with the same errors and the same key checks."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from recall_engine import (
    Conversation,
    DatasetNotFoundError,
    InvalidInputError,
    Message,
    PermissionDeniedError,
    RecallEngine,
)
from recall_engine.core.facts import Fact
from tests.remote_fixture import API_KEY, serve

ANN = [
    ("a1", "2023-01-05T10:00:00", "I live in Lyon, near the old town."),
    ("a2", "2024-03-01T09:00:00", "Big news: I moved to Paris last week, I live there now."),
]


@pytest.fixture
async def served(tmp_path, hash_embedder):
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    for mid, when, text in ANN:
        message = Message(id=mid, speaker="Ann", text=text, timestamp=when)
        await engine.remember(Conversation(messages=[message]), dataset_name="ann")
    live = serve(engine)
    yield live
    live.stop()
    engine.close()


def _key(facts: list[Fact]) -> list[tuple[str, str, bool, datetime | None]]:
    return [(f.predicate, f.object, f.current, f.valid_until) for f in facts]


async def test_remote_facts_equal_the_embedded_ones(served) -> None:
    engine = served.engine
    async with served.connect() as remote:
        every = await remote.facts("Ann")
        assert every == await engine.facts("Ann")
        assert ("lives_in", "Lyon", False, datetime(2024, 3, 1, 9)) in _key(every)
        now = await remote.facts("Ann", history=False, dataset_name="ann")
        assert _key(now) == _key(await engine.facts("Ann", history=False))
        then = await remote.facts("Ann", as_of=datetime(2023, 6, 1), datasets=["ann"])
        assert [(f.predicate, f.object) for f in then] == [("lives_in", "Lyon")]


async def test_remote_facts_raise_the_embedded_errors(served) -> None:
    async with served.connect() as remote:
        with pytest.raises(InvalidInputError, match="subject"):
            await remote.facts(" ")
        with pytest.raises(InvalidInputError, match="as_of"):
            await remote.facts("Ann", as_of="soonish")
        with pytest.raises(InvalidInputError, match="history"):
            await remote.facts("Ann", history="yes")  # type: ignore[arg-type]
        with pytest.raises(DatasetNotFoundError):
            await remote.facts("Ann", dataset_name="nope")


def test_the_route_needs_a_key_allowed_on_the_tenant(served) -> None:
    served.engine.tenants.registry.add_key("acme-only-key-000000000", "acme")
    url = f"{served.url}/api/v1/facts"
    with httpx.Client() as client:
        assert client.get(url, params={"subject": "Ann"}).status_code == 401
        other = client.get(
            url,
            params={"subject": "Ann"},
            headers={"Authorization": "Bearer acme-only-key-000000000"},
        )
        assert other.status_code == 403, other.text
        admin = {"Authorization": f"Bearer {API_KEY}"}
        ok = client.get(url, params={"subject": "Ann", "history": "false"}, headers=admin)
        assert ok.status_code == 200
        assert {f["object"] for f in ok.json()} == {"Paris"}
        both = client.get(
            url, params={"subject": "Ann", "dataset_name": "ann", "datasets": "ann"}, headers=admin
        )
        assert both.status_code == 400 and "not both" in both.text


async def test_a_tenant_key_elsewhere_is_refused_by_the_client_too(served) -> None:
    served.engine.tenants.registry.add_key("acme-only-key-000000000", "acme")
    remote = RecallEngine.connect(served.url, api_key="acme-only-key-000000000")
    with pytest.raises(PermissionDeniedError):
        await remote.facts("Ann")
    await remote.aclose()
