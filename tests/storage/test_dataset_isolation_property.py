"""A write in one dataset never touches another's graph, on Kuzu and on FalkorDB.

Seeded random sequences of remember (documents of a few words to many
paragraphs, conversation sessions with timestamps, so stored entities are
updated) and forget over several datasets, through the public engine API.
After every step: the step succeeded; every other dataset's entities (with
their aliases), relations and mention links are exactly as before; and every
entity of the tenant is still mentioned by a chunk. The slow variant adds more
steps and items large enough to pass Kuzu's 1,024-node CSR regions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine
from recall_engine.testing import DeterministicEmbedder
from tests.storage import falkordb_live

DATASETS = ("north", "south", "east")
SYLLABLES = ("ka", "lo", "mi", "ren", "tas", "vo", "zel", "dra", "bin", "quo", "fen", "sul")
VERBS = ("met", "wrote to", "visited", "thanked", "called", "worked with")


def _name(rnd: random.Random, parts: int = 2) -> str:
    return "".join(rnd.choice(SYLLABLES) for _ in range(parts)).capitalize()


def _sentence(rnd: random.Random, names: list[str], places: list[str]) -> str:
    return (
        f"{rnd.choice(names)} {rnd.choice(VERBS)} {rnd.choice(names)} in {rnd.choice(places)} "
        f"on {rnd.randint(1, 28)} March {rnd.randint(1990, 2024)}."
    )


@dataclass
class World:
    """The words a sequence draws from: a few recurring names per dataset."""

    rnd: random.Random
    names: dict[str, list[str]] = field(default_factory=dict)
    places: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for ds in DATASETS:
            self.names[ds] = [f"{_name(self.rnd)} {_name(self.rnd, 3)}" for _ in range(8)]
            self.places[ds] = [_name(self.rnd, 3) for _ in range(5)]

    def document(self, ds: str, sentences: int) -> Document | str:
        if sentences == 0:
            return _name(self.rnd).lower()  # a few letters, no entity
        text = " ".join(
            _sentence(self.rnd, self.names[ds], self.places[ds]) for _ in range(sentences)
        )
        return Document(text=text, title=f"doc {self.rnd.random():.6f}")

    def session(self, ds: str, turns: int) -> Conversation:
        day = self.rnd.randint(1, 28)
        speakers = self.names[ds][:2]
        return Conversation(
            messages=[
                Message(
                    id=f"D{day}:{i}",
                    speaker=speakers[i % 2].split()[0],
                    text=_sentence(self.rnd, self.names[ds], self.places[ds]),
                    timestamp=f"2023-04-{day:02d}T10:{i % 60:02d}:00",
                )
                for i in range(turns)
            ],
            title=f"session {self.rnd.random():.6f}",
        )


def snapshot(engine: RecallEngine, dataset_id: str) -> dict[str, Any]:
    """What a dataset holds in the graph, comparable with ``==``."""
    graph = engine.store().graph
    return {
        "entities": sorted(
            (e.id, e.name, e.type.value, e.aliases) for e in graph.entities([dataset_id])
        ),
        "relations": sorted(r.id for r in graph.relations([dataset_id])),
        "mentions": sorted(
            (m.chunk_id, m.entity_id) for m in graph.mention_links() if m.dataset_id == dataset_id
        ),
    }


async def run_sequence(engine: RecallEngine, seed: int, steps: int, *, large: int) -> None:
    """``steps`` random remember/forget steps; checks the invariants after each."""
    rnd = random.Random(seed)
    world = World(rnd)
    stored: dict[str, list[str]] = {ds: [] for ds in DATASETS}
    ids: dict[str, str] = {}
    before: dict[str, dict[str, Any]] = {}
    for step in range(steps):
        ds = rnd.choice(DATASETS)
        action = rnd.choice(("document", "document", "session", "session", "forget"))
        if action == "forget" and stored[ds]:
            data_id = stored[ds].pop(rnd.randrange(len(stored[ds])))
            assert await engine.forget(data_id=data_id) >= 1
        elif action == "session":
            result = await engine.remember(world.session(ds, rnd.randint(2, 12)), dataset_name=ds)
            stored[ds] += result.new_data_ids
        else:
            size = rnd.choice((0, 1, 3, 12, 40, large))
            result = await engine.remember(world.document(ds, size), dataset_name=ds)
            stored[ds] += result.new_data_ids
        if ds not in ids:
            ids[ds] = next(i for i, n in engine.store().datasets().items() if n == ds)
        where = f"seed {seed} step {step} ({action} in {ds})"
        for other, dataset_id in ids.items():
            now = snapshot(engine, dataset_id)
            if other != ds and other in before:
                assert now == before[other], (
                    f"{where} changed dataset {other}: {_diff(before[other], now)}"
                )
            before[other] = now
        graph = engine.store().graph
        entities = [e.id for e in graph.entities()]
        mentioned = {m.entity_id for m in graph.mention_links()}
        assert set(entities) <= mentioned, f"{where}: entities no chunk mentions"


def _diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """What went and what came, per kind, for a failure message."""
    return {
        kind: {
            "gone": sorted(set(old[kind]) - set(new[kind]))[:5],
            "new": sorted(set(new[kind]) - set(old[kind]))[:5],
        }
        for kind in old
        if old[kind] != new[kind]
    }


def _engine(tmp_path: Path, backend: str, **config: Any) -> RecallEngine:
    if backend == "falkordb":
        config["graph_url"] = falkordb_live.server().url()
    return RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder(), **config)


@pytest.mark.parametrize("backend", ["kuzu", "falkordb"])
async def test_random_writes_never_touch_another_dataset(tmp_path: Path, backend: str) -> None:
    engine = _engine(tmp_path, backend)
    try:
        for seed in (1, 2):
            await run_sequence(engine, seed, steps=10, large=60)
    finally:
        engine.close()


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["kuzu", "falkordb"])
async def test_long_random_writes_never_touch_another_dataset(tmp_path: Path, backend: str) -> None:
    # Small chunks: an item of 1,200 sentences holds more chunks than a CSR region.
    engine = _engine(tmp_path, backend, chunk_size=16, chunk_overlap=0)
    try:
        for seed in range(3, 7):
            await run_sequence(engine, seed, steps=40, large=1200)
    finally:
        engine.close()
