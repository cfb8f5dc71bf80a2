"""A process killed right after a forget leaves one copy of each relationship.

A forget re-creates relationships (``kuzu_rel_guard``) and rewrites fact validity in
one transaction; Kuzu 0.11.3 replays such a transaction from its WAL with a second
copy of a re-created relationship in the by-destination index, so the store
checkpoints at once after that commit. The writer here exits without closing
(``os._exit``, as a kill would) and a fresh process reads the store back.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

WRITE = textwrap.dedent(
    """
    import asyncio, os, sys
    from recall_engine import Conversation, Message, RecallEngine
    from recall_engine.testing import DeterministicEmbedder

    SAID = [
        ("a1", "2023-01-05T10:00:00", "I live in Lyon, near the old town."),
        ("a2", "2023-01-05T10:05:00", "I work as a nurse at the city hospital."),
        ("a3", "2024-03-01T09:00:00", "I moved to Paris last week, I live in Montmartre now."),
        ("a4", "2024-06-01T09:00:00", "I quit nursing and I am now a software developer."),
    ]

    async def main():
        eng = RecallEngine(sys.argv[1], embedder=DeterministicEmbedder())
        ids = []
        for mid, when, text in SAID:
            convo = Conversation(messages=[Message(id=mid, speaker="Ann", text=text, timestamp=when)])
            ids += (await eng.remember(convo, dataset_name="ann")).data_ids
        await eng.forget(data_id=ids[2:])
        os._exit(0)  # no close, no checkpoint on the way out

    asyncio.run(main())
    """
)

READ = textwrap.dedent(
    """
    import asyncio, json, sys
    from recall_engine import RecallEngine
    from recall_engine.testing import DeterministicEmbedder

    eng = RecallEngine(sys.argv[1], embedder=DeterministicEmbedder())
    graph = eng.store().graph
    backward = graph.execute(
        "MATCH (a:Entity)-[r:RELATES]->(b:Entity) WHERE b.name IN ['Lyon', 'nurse'] "
        "RETURN r.id ORDER BY r.id"
    )
    forward = graph.execute(
        "MATCH (a:Entity {name: 'Ann'})-[r:RELATES]->(b:Entity) RETURN r.id ORDER BY r.id"
    )
    facts = asyncio.run(eng.facts("Ann"))
    print(json.dumps({
        "backward": [r[0] for r in backward],
        "forward": [r[0] for r in forward],
        "facts": sorted([f.predicate, f.object, f.current] for f in facts),
    }))
    eng.close()
    """
)


def _run(program: str, data_dir: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", program, data_dir],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_a_kill_right_after_a_forget_leaves_one_copy_of_each_fact(tmp_path) -> None:
    _run(WRITE, str(tmp_path))
    seen = json.loads(_run(READ, str(tmp_path)).strip().splitlines()[-1])
    assert seen["backward"] == sorted(set(seen["backward"])), "a relationship came back twice"
    assert len(seen["backward"]) == 2
    assert seen["forward"] == seen["backward"]
    assert seen["facts"] == [["lives_in", "Lyon", True], ["works_as", "nurse", True]]
