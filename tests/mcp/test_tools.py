"""Every MCP tool through the SDK's in-memory client: what it lists, what it answers,
and how a library error comes back (an isError result naming the error class)."""

from __future__ import annotations

import json
from pathlib import Path

from recall_engine import RecallEngine
from recall_engine.mcp import MORE_TOOLS, McpSettings
from recall_engine.mcp.tools import DEFAULT_TOOLS

from .conftest import HISTORY, connect, error_text


async def test_only_the_four_core_tools_are_listed_by_default(
    mcp_engine: RecallEngine,
) -> None:
    async with connect(mcp_engine, McpSettings()) as s:
        listed = await s.client.list_tools()
        assert [t.name for t in listed.tools] == ["remember", "recall", "forget", "status"]
        recall = next(t for t in listed.tools if t.name == "recall")
        assert recall.input_schema["required"] == ["query"]
        assert {"results", "route"} <= set(recall.output_schema["properties"])  # type: ignore[index]
        forget = next(t for t in listed.tools if t.name == "forget")
        assert forget.annotations is not None and forget.annotations.destructive_hint is True


async def test_tools_all_lists_every_tool_with_an_output_schema(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        listed = await s.client.list_tools()
        assert [t.name for t in listed.tools] == [*DEFAULT_TOOLS, *MORE_TOOLS]
        assert all(t.output_schema for t in listed.tools)


async def test_remember_recall_forget_round_trip_carries_provenance(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        stored = await s.call("remember", text=HISTORY[0], dataset="people")
        assert stored["dataset_name"] == "people" and len(stored["new_data_ids"]) == 1
        data_id = stored["data_ids"][0]

        answer = await s.call("recall", query="Where did Grace Hopper work?", only_context=True)
        assert answer["route"]["search_type"] == answer["results"][0]["search_type"]
        assert "fired" in answer["route"]
        first = answer["results"][0]
        assert first["source"] == "graph" and "Remington Rand" in first["text"]
        assert first["sources"][0]["data_id"] == data_id and first["sources"][0]["chunk_id"]

        pinned = await s.call("recall", query="Remington", query_type="chunks_lexical", top_k=3)
        assert pinned["route"] is None  # a pinned type is not routed
        assert pinned["results"][0]["kind"] == "chunk" and pinned["results"][0]["score"] > 0

        assert (await s.call("forget", data_ids=[data_id]))["chunks_removed"] == 1
        assert (await s.call("status"))["datasets"] == [
            {"name": "people", "id": stored["dataset_id"], "items": 0, "chunks": 0}
        ]


async def test_a_conversation_keeps_message_ids_as_provenance(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        messages = [
            {"id": "D1:1", "speaker": "Ann", "text": "I moved to Lyon last spring."},
            {"id": "D1:2", "speaker": "Bo", "text": "Do you like the food there?"},
        ]
        await s.call("remember", messages=messages, dataset="chat")
        answer = await s.call(
            "recall", query="Lyon", query_type="CHUNKS_LEXICAL", datasets=["chat"]
        )
        assert answer["results"][0]["sources"][0]["message_ids"] == ["D1:1"]


async def test_text_is_never_read_as_a_path(
    mcp_engine: RecallEngine, files: Path, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        secret = files / "note.txt"
        secret.write_text("the file body", encoding="utf-8")
        stored = await s.call("remember", text=str(secret))
        detail = await s.call("get_item", data_id=stored["data_ids"][0])
        assert [c["text"] for c in detail["chunks"]] == [str(secret)]


async def test_remember_reads_a_file_under_the_root_only(
    mcp_engine: RecallEngine, files: Path, tmp_path: Path, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        (files / "notes").mkdir()
        (files / "notes" / "plan.md").write_text("Launch the probe in March.", encoding="utf-8")
        stored = await s.call("remember", path="notes/plan.md", metadata={"team": "ops"})
        assert stored["chunk_count"] == 1
        outside = tmp_path / "outside.txt"
        outside.write_text("private", encoding="utf-8")
        (files / "link.txt").symlink_to(outside)
        for path in (str(outside), "../outside.txt", "link.txt"):
            text = error_text(await s.raw("remember", {"path": path}))
            assert "InvalidInputError" in text and "outside the folder" in text
            assert str(files) not in text  # the files root stays private
        assert len((await s.call("list_items"))["items"]) == 1


async def test_remember_needs_exactly_one_input(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        for arguments in ({}, {"text": "a", "path": "b.txt"}):
            text = error_text(await s.raw("remember", arguments))
            assert "InvalidInputError: remember needs exactly one of text, messages or path" in text


async def test_session_id_tags_the_items_and_feeds_history_and_feedback(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        await s.call("remember", text=HISTORY[2], session_id="s1")
        item = (await s.call("list_items"))["items"][0]
        detail = await s.call("get_item", data_id=item["data_id"])
        assert detail["chunks"][0]["metadata"]["session_id"] == "s1"

        answer = await s.call("recall", query="Who founded Apple?", session_id="s1")
        qa_id = answer["results"][0]["qa_id"]
        assert qa_id
        history = await s.call("get_session_history", session_id="s1")
        assert [e["qa_id"] for e in history["entries"]] == [qa_id]
        padded = await s.call("get_session_history", session_id=" s1 ")  # as recall() reads it
        assert [e["qa_id"] for e in padded["entries"]] == [qa_id]
        too_long = error_text(await s.raw("get_session_history", {"session_id": "s" * 10_000}))
        assert "session_id holds" in too_long and len(too_long) < 500
        assert history["entries"][0]["question"] == "Who founded Apple?"

        rated = await s.call("add_feedback", session_id="s1", qa_id=qa_id, score=5, text="spot on")
        assert rated["feedback_score"] == 5 and rated["feedback_text"] == "spot on"
        assert (await s.call("get_session_history", session_id="s2"))["entries"] == []


async def test_status_reports_datasets_mode_and_version(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        await s.call("remember", text=HISTORY[0], dataset="a")
        await s.call("remember", text=HISTORY[1], dataset="b")
        status = await s.call("status")
        assert [(d["name"], d["items"], d["chunks"]) for d in status["datasets"]] == [
            ("a", 1, 1),
            ("b", 1, 1),
        ]
        assert status["mode"] == "offline" and status["llm_model"] is None
        assert status["tenant_id"] == "default" and status["version"]
        assert status["more_tools"] == []  # the client fixture lists every tool


async def test_list_datasets_and_items(mcp_engine: RecallEngine, every_tool: McpSettings) -> None:
    async with connect(mcp_engine, every_tool) as s:
        stored = await s.call("remember", text=HISTORY[0], dataset="people")
        datasets = (await s.call("list_datasets"))["datasets"]
        assert [(d["name"], d["id"], d["permission"]) for d in datasets] == [
            ("people", stored["dataset_id"], "owner")
        ]
        items = (await s.call("list_items", dataset="people"))["items"]
        assert [i["data_id"] for i in items] == stored["data_ids"]
        assert items[0]["chunk_count"] == 1


async def test_get_item_returns_its_chunks(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        stored = await s.call("remember", text=HISTORY[1], dataset="history")
        detail = await s.call("get_item", data_id=stored["data_ids"][0])
        assert detail["dataset_id"] == stored["dataset_id"] and detail["dataset_name"] == "history"
        assert [c["text"] for c in detail["chunks"]] == [HISTORY[1]]
        assert detail["chunks"][0]["chunk_id"]
        text = error_text(await s.raw("get_item", {"data_id": "nope"}))
        assert "InvalidInputError: data_id: unknown data id 'nope'" in text


async def test_search_entities_by_name_first(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        await s.call("remember", text=HISTORY[0] + " " + HISTORY[2])
        found = (await s.call("search_entities", query="grace hopper", top_k=3))["entities"]
        assert found[0]["name"] == "Grace Hopper" and found[0]["type"] == "PERSON"
        assert found[0]["sources"][0]["chunk_id"] and len(found) == 3


async def test_search_facts_within_a_time_window(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        for text in HISTORY:
            await s.call("remember", text=text, dataset="history")
        every = (await s.call("search_facts", query="who founded a company", top_k=10))["facts"]
        assert {(f["source"], f["predicate"], f["target"]) for f in every} >= {
            ("Steve Jobs", "founded", "Apple Computer Company"),
            ("Grace Hopper", "joined", "Remington Rand"),
        }
        assert all(f["sources"] and f["context"] for f in every)
        window = await s.call("search_facts", query="work", start="1900-01-01", end="1960-12-31")
        assert [(f["source"], f["time"][:4]) for f in window["facts"]] == [("Grace Hopper", "1949")]


async def test_library_errors_come_back_as_tool_errors_without_a_trace(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    async with connect(mcp_engine, every_tool) as s:
        text = error_text(await s.raw("recall", {"query": "anything"}))
        assert "RecallPreconditionError: Nothing has been remembered" in text
        assert str(mcp_engine.config.data_dir) not in text
        assert "Traceback" not in text
        text = error_text(await s.raw("recall", {"query": "x", "query_type": "NOPE"}))
        assert "Unknown search type 'NOPE'" in text
        # The tool's own argument names, not the engine's (data_id, dataset_name).
        text = error_text(await s.raw("forget", {}))
        assert (
            "InvalidInputError: forget needs exactly one of data_ids or dataset, got none" in text
        )
        text = error_text(await s.raw("forget", {"data_ids": ["a"], "dataset": "x"}))
        assert "got ['data_ids', 'dataset']" in text
        text = error_text(await s.raw("forget", {"data_ids": []}))
        assert "got none" in text
        text = error_text(await s.raw("forget", {"data_ids": [], "dataset": "nope"}))
        assert "exactly one" not in text  # an empty list is no choice of its own
        text = error_text(await s.raw("recall", {"query": "x", "top_k": 0}))
        assert "top_k" in text  # refused by the input schema before the engine runs


async def test_an_unexpected_failure_reveals_nothing(mcp_engine: RecallEngine, monkeypatch) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("secret internals at /srv/keys")

    monkeypatch.setattr(mcp_engine, "list_items", broken)
    async with connect(mcp_engine, McpSettings()) as s:
        text = error_text(await s.raw("status", {}))
    assert text == "Error executing tool status"


async def test_choose_tools() -> None:
    from recall_engine.core.errors import InvalidInputError
    from recall_engine.mcp import choose_tools

    assert choose_tools("default") == DEFAULT_TOOLS
    assert choose_tools("default,get_item") == (*DEFAULT_TOOLS, "get_item")
    assert choose_tools("all") == (*DEFAULT_TOOLS, *MORE_TOOLS)
    try:
        choose_tools("recall,drop_everything")
    except InvalidInputError as exc:
        assert "drop_everything" in str(exc)
    else:
        raise AssertionError("an unknown tool was accepted")


def test_status_json_is_plain(tmp_path: Path) -> None:
    # The output models serialise without custom encoders (MCP hosts read the text block).
    from recall_engine.mcp.models import StatusOutput

    schema = StatusOutput.model_json_schema()
    assert json.dumps(schema)


async def test_recall_scope_reaches_traces_and_is_validated_like_recall(
    mcp_engine: RecallEngine, every_tool: McpSettings
) -> None:
    @mcp_engine.trace(session_id="agent-1", name="fetch_weather")
    def fetch_weather(city: str) -> str:
        return f"sunny in {city}"

    fetch_weather("Oslo")
    async with connect(mcp_engine, every_tool) as s:
        found = await s.call(
            "recall", query="weather in Oslo", scope=["trace"], session_id="agent-1"
        )
        assert found["results"] and {r["source"] for r in found["results"]} == {"trace"}
        assert "Oslo" in found["results"][0]["text"]
        other = await s.call("recall", query="weather in Oslo", scope=["trace"], session_id="b")
        assert other["results"] == []
        text = error_text(await s.raw("recall", {"query": "x", "scope": ["memory"]}))
        assert "InvalidInputError" in text and "unknown source" in text
        text = error_text(await s.raw("recall", {"query": "x", "scope": ["trace"]}))
        assert "InvalidInputError" in text and "session_id" in text
        text = error_text(await s.raw("recall", {"query": "x", "scope": []}))
        assert "InvalidInputError" in text
