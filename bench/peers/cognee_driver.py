"""Cognee's side of ``bench.peers``: run inside Cognee's own virtual environment.

    COGNEE_VENV/bin/python bench/peers/cognee_driver.py SPEC.json OUT.json

Reads the conversations and questions that ``bench.peers`` wrote to SPEC.json,
remembers each conversation as its own dataset the way Cognee's own LoCoMo
evaluation does (``cognee.eval_framework.locomo``: one short overview document
plus one document per window of consecutive turns with a dated header, all in
one ``cognee.remember(texts, dataset_name=..., chunk_size=4096)``), then times
``cognee.recall(question, query_type, datasets=[...], top_k=..., only_context=True)``
for each mode (``DEFAULT`` = no ``query_type``: Cognee's own router). Writes
the figures to OUT.json. Standard library and Cognee only: it never imports
the engine. Its LLM and embedding endpoints come from the environment that
``bench.peers`` sets (a local server on 127.0.0.1).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
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


async def warm_up(cognee: Any) -> None:
    """Untimed: create Cognee's databases and load its code paths on a throwaway dataset
    (our side likewise loads its model before the clock starts)."""
    from cognee.modules.engine.operations.setup import setup

    await setup()
    await cognee.remember(
        ["Warm-up note. Ada met Bruno in Lisbon."], dataset_name="warm_up", chunk_size=4096
    )


async def graph_size() -> dict[str, Any]:
    """Nodes and edges in Cognee's graph, by node type (best effort)."""
    try:
        from cognee.infrastructure.databases.graph import get_graph_engine

        graph = await get_graph_engine()
        nodes, edges = await graph.get_graph_data()
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"[:200]}
    types: dict[str, int] = {}
    for _, props in nodes:
        kind = str(props.get("type", "?"))
        types[kind] = types.get(kind, 0) + 1
    return {"nodes": len(nodes), "edges": len(edges), "node_types": types}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def run(spec: dict[str, Any]) -> dict[str, Any]:
    import cognee
    from cognee import SearchType

    out: dict[str, Any] = {"cognee_version": getattr(cognee, "__version__", "?"), "modes": {}}
    ingest: dict[str, Any] = {"messages": 0, "seconds": 0.0, "documents": 0}
    await warm_up(cognee)
    for sample in spec["samples"]:
        texts = windows(sample, spec["window_turns"])
        n = sum(len(s["turns"]) for s in sample["sessions"])
        started = time.perf_counter()
        await cognee.remember(texts, dataset_name=sample["dataset"], chunk_size=4096)
        ingest["seconds"] += time.perf_counter() - started
        ingest["messages"] += n
        ingest["documents"] += len(texts)
        print(f"cognee: remembered {sample['dataset']} ({n} turns)", file=sys.stderr, flush=True)
    ingest["messages_per_s"] = ingest["messages"] / ingest["seconds"]
    out["ingest"] = ingest
    out["graph"] = await graph_size()
    questions = spec["questions"]
    for mode in spec["modes"]:
        query_type = None if mode == DEFAULT else SearchType(mode)
        try:
            times = []
            empty = 0
            first = questions[0]
            await cognee.recall(
                first["text"],
                query_type,
                datasets=[first["dataset"]],
                top_k=spec["top_k"],
                only_context=True,
            )
            for q in questions:
                started = time.perf_counter()
                results = await cognee.recall(
                    q["text"],
                    query_type,
                    datasets=[q["dataset"]],
                    top_k=spec["top_k"],
                    only_context=True,
                )
                times.append(time.perf_counter() - started)
                empty += not results
            ms = [1000 * t for t in times]
            out["modes"][mode] = {
                "p50_ms": statistics.median(ms),
                "p95_ms": percentile(ms, 0.95),
                "n": len(ms),
                "empty": empty,
            }
        except Exception as error:  # a mode Cognee cannot run offline is reported, not fatal
            out["modes"][mode] = {"error": f"{type(error).__name__}: {error}"[:300]}
            traceback.print_exc(file=sys.stderr)
        print(f"cognee: {mode} {out['modes'][mode]}", file=sys.stderr, flush=True)
    return out


def main() -> None:
    spec_path, out_path = sys.argv[1:3]
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    out = asyncio.run(run(spec))
    out["pid"] = os.getpid()
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
