"""Issue 35 as reported, through the public engine API on the embedded store.

1. Forgetting a large item and then a small file in one dataset, then storing a
   word there, left no MENTIONS edge in the whole tenant (Kuzu dropped a CSR
   node group at a checkpoint; ``storage.kuzu_rel_guard``).
2. Conversations remembered session by session, one dataset per case, case
   after case: a later session failed with "duplicated primary key" (an updated
   list column corrupted entities' keys; ``storage.kuzu_entity_lists``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from recall_engine import Conversation, Message, RecallEngine, SearchType
from recall_engine.testing import DeterministicEmbedder

COUNT = "MATCH ()-[r:MENTIONS]->() RETURN count(r) AS n"
FIRST = ("Ada", "Alan", "Grace", "Marie", "Niels", "Emmy", "Kurt", "Lise", "Paul", "Hedy")
LAST = ("Lovelace", "Turing", "Hopper", "Curie", "Bohr", "Noether", "Godel", "Meitner", "Dirac")
PLACES = ("London", "Paris", "Ulm", "Lyon", "Boston", "Vienna", "Berlin", "Oslo", "Prague")


def prose(sentences: int, seed: int = 0) -> str:
    rnd = random.Random(seed)
    return " ".join(
        f"{rnd.choice(FIRST)} {rnd.choice(LAST)}{i % 97 if i % 3 == 0 else ''} met "
        f"{rnd.choice(FIRST)} {rnd.choice(LAST)} in {rnd.choice(PLACES)} in {1800 + i % 200}."
        for i in range(sentences)
    )


async def mentions(engine: RecallEngine) -> int:
    (row,) = await engine.recall(COUNT, query_type=SearchType.CYPHER)
    return int(row.raw["values"]["n"])


async def forget_large_then_small(engine: RecallEngine, tmp_path: Path, sentences: int) -> None:
    await engine.remember("Ada Lovelace lives in London.", dataset_name="alpha")
    await engine.remember("Alan Turing works in Paris.", dataset_name="alpha")
    await engine.remember("Grace Hopper visited Boston.", dataset_name="beta")
    kept = await mentions(engine)
    assert kept >= 3
    large = await engine.remember(prose(sentences), dataset_name="junk")
    assert large.chunk_count > 1024  # more chunks than one CSR region of Kuzu
    await engine.forget(data_id=large.data_ids)
    assert await mentions(engine) == kept
    note = tmp_path / "note.txt"
    note.write_text("Kurt Godel walked in Vienna.", encoding="utf-8")
    small = await engine.remember(note, dataset_name="junk")
    await engine.forget(data_id=small.data_ids)
    assert await mentions(engine) == kept
    await engine.remember("secret", dataset_name="junk")
    assert await mentions(engine) == kept


async def test_forgetting_in_one_dataset_keeps_every_other_mention(tmp_path: Path) -> None:
    # Chunks of 16 tokens: 1,100 sentences make more than 1,024 chunks in seconds.
    config = {"chunk_size": 16, "chunk_overlap": 0}
    async with RecallEngine(
        tmp_path / "data", embedder=DeterministicEmbedder(), **config
    ) as engine:
        await forget_large_then_small(engine, tmp_path, 1100)
        kept = await mentions(engine)
    async with RecallEngine(
        tmp_path / "data", embedder=DeterministicEmbedder(), **config
    ) as engine:
        assert await mentions(engine) == kept


@pytest.mark.slow
async def test_forgetting_a_megabyte_in_one_dataset_keeps_every_other_mention(
    tmp_path: Path,
) -> None:
    async with RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder()) as engine:
        await forget_large_then_small(engine, tmp_path, 20_000)  # ~1 MB of prose


def sessions(case: int, count: int, rnd: random.Random) -> list[Conversation]:
    """One case's sessions: people and cities named again from session to session."""
    out = []
    for s in range(count):
        turns = []
        for t in range(12):
            person = f"{rnd.choice(FIRST)} {rnd.choice(LAST)}{rnd.randint(0, 40)}"
            city = f"{rnd.choice(PLACES)}{rnd.randint(0, 40)}"
            turns.append(
                Message(
                    id=f"D{s}:{t}",
                    speaker=FIRST[case % len(FIRST)],
                    text=f"I met {person} in {city} on {s % 28 + 1} May 2023.",
                    timestamp=f"2023-05-{s % 28 + 1:02d}T10:{t:02d}:00",
                )
            )
        out.append(Conversation(messages=turns, title=f"session {s}"))
    return out


async def test_sessions_of_several_cases_are_all_stored(tmp_path: Path) -> None:
    rnd = random.Random(7)
    async with RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder()) as engine:
        for case in range(3):
            for session in sessions(case, 8, rnd):
                stored = await engine.remember(session, dataset_name=f"case-{case}")
                assert stored.new_data_ids
