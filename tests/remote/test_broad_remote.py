"""BROAD and GRAPH_REPORT through RemoteRecallEngine: the same results as in process."""

from __future__ import annotations

import pytest

from recall_engine import Conversation, Message, RecallEngine, SearchType
from tests.remote_fixture import serve


@pytest.fixture
def served(tmp_path, hash_embedder):
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    live = serve(engine)
    yield live
    live.stop()
    engine.close()


async def test_broad_and_graph_report_remotely(served) -> None:
    chat = Conversation(
        messages=[
            Message(id="m1", speaker="Ann", text="I adopted a cat named Luna."),
            Message(id="m2", speaker="Ann", text="I got a puppy called Max."),
        ]
    )
    async with served.connect() as remote:
        await remote.remember(chat, dataset_name="chat")
        question = "List all the pets Ann has."
        results = await remote.recall(question, SearchType.BROAD, datasets=["chat"])
        local = await served.engine.recall(question, SearchType.BROAD, datasets=["chat"])
        assert results[0].text == local[0].text == "Luna and Max."
        report = await remote.recall("overview", SearchType.GRAPH_REPORT, datasets=["chat"])
        assert report[0].search_type is SearchType.GRAPH_REPORT
