"""Cognee's side of ``bench.peers``: runs inside Cognee's own virtual environment.

    COGNEE_VENV/bin/python bench/peers/cognee_driver.py

A small command loop so that ``bench.peers`` can alternate Cognee's work with
ours in the same minutes of a shared machine: one JSON command per line on
stdin, one JSON reply per line on the original stdout (Cognee's own prints and
logs go to stderr). Commands:

- ``{"op": "setup"}``: create Cognee's databases and load its code on a throwaway
  dataset (untimed, as our side loads its model before the clock starts);
- ``{"op": "remember", "sample": {...}, "window_turns": 6}``: one conversation as
  Cognee's own LoCoMo evaluation ingests it (``cognee.eval_framework.locomo``: a
  short overview document plus one document per window of consecutive turns with
  a dated header, in one ``cognee.remember(texts, dataset_name=..., chunk_size=4096)``);
- ``{"op": "recall", "mode": "CHUNKS" | "DEFAULT", "questions": [...], "top_k": 10,
  "warm_up": true}``: the seconds of each ``cognee.recall(question, query_type,
  datasets=[...], top_k=..., only_context=True)``; ``DEFAULT`` passes no
  ``query_type`` (Cognee's own router);
- ``{"op": "graph"}``: the graph's size by node type; ``{"op": "quit"}``.

Standard library and Cognee only: it never imports the engine. Its LLM and
embedding endpoints come from the environment that ``bench.peers`` sets.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import traceback
from typing import Any

DEFAULT = "DEFAULT"


def windows(sample: dict[str, Any], window_turns: int) -> list[str]:
    """Cognee's own LoCoMo documents: an overview, then windows of turns per session."""
    a, b = sample["speakers"]
    sessions = sample["sessions"]
    texts = [
        "\n".join(
            [
                f"{a} and {b} are friends who talked in {len(sessions)} conversation sessions "
                f"over time (conversation id {sample['sample_id']}).",
                "Session timeline:",
                *(
                    f"- Session {s['index']} took place at {s['date']} ({len(s['turns'])} turns)."
                    for s in sessions
                ),
            ]
        )
    ]
    for s in sessions:
        turns = s["turns"]
        groups = [turns[i : i + window_turns] for i in range(0, len(turns), window_turns)]
        if len(groups) > 1 and len(groups[-1]) < max(2, window_turns // 3):
            tail = groups.pop()
            groups[-1] = groups[-1] + tail
        for part, group in enumerate(groups, start=1):
            head = (
                f"Session {s['index']} of the conversation between {a} and {b}, "
                f"which took place at {s['date']}"
            )
            if len(groups) > 1:
                head += f" (part {part} of {len(groups)})"
            lines = [head + "."] + [f"{t['speaker']}: {t['text']}" for t in group]
            texts.append("\n".join(lines))
    return texts


class Driver:
    """Cognee behind the command loop's operations."""

    def __init__(self) -> None:
        import cognee

        self.cognee = cognee

    async def setup(self) -> dict[str, Any]:
        from cognee.modules.engine.operations.setup import setup

        await setup()
        await self.cognee.remember(
            ["Warm-up note. Ada met Bruno in Lisbon."], dataset_name="warm_up", chunk_size=4096
        )
        return {"version": getattr(self.cognee, "__version__", "?")}

    async def remember(self, sample: dict[str, Any], window_turns: int) -> dict[str, Any]:
        texts = windows(sample, window_turns)
        started = time.perf_counter()
        await self.cognee.remember(texts, dataset_name=sample["dataset"], chunk_size=4096)
        return {"seconds": time.perf_counter() - started, "documents": len(texts)}

    async def recall(
        self, mode: str, questions: list[dict[str, str]], top_k: int, warm_up: bool
    ) -> dict[str, Any]:
        from cognee import SearchType

        query_type = None if mode == DEFAULT else SearchType(mode)

        async def ask(q: dict[str, str]) -> int:
            results = await self.cognee.recall(
                q["text"], query_type, datasets=[q["dataset"]], top_k=top_k, only_context=True
            )
            return len(results)

        if warm_up:
            await ask(questions[0])
        seconds, empty = [], 0
        for q in questions:
            started = time.perf_counter()
            found = await ask(q)
            seconds.append(time.perf_counter() - started)
            empty += not found
        return {"seconds": seconds, "empty": empty}

    async def graph(self) -> dict[str, Any]:
        from cognee.infrastructure.databases.graph import get_graph_engine

        nodes, edges = await (await get_graph_engine()).get_graph_data()
        types: dict[str, int] = {}
        for _, props in nodes:
            kind = str(props.get("type", "?"))
            types[kind] = types.get(kind, 0) + 1
        return {"nodes": len(nodes), "edges": len(edges), "node_types": types}


async def serve(replies: Any) -> None:
    driver = Driver()
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        command = json.loads(line)
        op = command.pop("op")
        if op == "quit":
            return
        try:
            reply = await getattr(driver, op)(**command)
        except Exception as error:  # a mode Cognee cannot run is reported, not fatal
            traceback.print_exc()
            reply = {"error": f"{type(error).__name__}: {error}"[:300]}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def main() -> None:
    # Replies go to the original stdout; everything Cognee prints goes to stderr.
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    asyncio.run(serve(replies))


if __name__ == "__main__":
    main()
