"""The cost of uploading a conversation one turn at a time through the tenant API.

Each turn of a synthetic conversation (three speakers, generated from templates)
is uploaded as its own knowledge source of type ``conversation``, one
``upload_knowledge`` call per turn, into one sub-tenant (in-process, as
``bench.tenant_recall`` does). The turns of a sub-tenant are stored as one
``Conversation`` (``tenants.conversations``), so every upload stores the whole
conversation again; this measures what that costs: total seconds, embedder calls
and texts embedded, the mean seconds per upload of the first and last 10, and the
ingest's own stage seconds summed over the uploads (``RememberResult.timings``:
``embed_s``, ``extract_s`` for the graph rules and resolution, ``store_s``, ...).

    .venv/bin/python -m bench.turn_uploads [--turns 50,200] [--json FILE]

With the embeddings of unchanged texts reused (``ingest.reuse``) the texts embedded
grow linearly with the turns; the rest of a re-store (chunking, graph extraction,
the commit) still handles the whole conversation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from recall_engine import RecallEngine
from recall_engine.config import RecallConfig
from recall_engine.embedding import Embedder, WrappedEmbedder, make_embedder
from recall_engine.ingest import ingestor

SPEAKERS = ("Mara", "Tobias", "Ilse")
PLACES = ("the harbour", "the old library", "a bakery on the corner", "the hill trail", "a market")
THINGS = ("a bicycle", "a sourdough starter", "a telescope", "a sketchbook", "a violin", "a kayak")
TEMPLATES = (
    "I went to {place} on {day} and found {thing} there. It made my week.",
    "Have you ever tried {thing}? I keep thinking about getting one.",
    "My sister moved near {place} last {day}, so I visit her more often now.",
    "I finally fixed {thing} after three weekends of work. Next I want to paint it.",
    "We should meet at {place} next {day}. I can bring {thing} if you like.",
    "Work was long today. I read for an hour at {place} to calm down.",
)
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class CountingEmbedder(WrappedEmbedder):
    """An embedder that counts its calls and the texts it embeds."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.calls = 0
        self.texts = 0

    def embed(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        if texts:
            self.calls += 1
            self.texts += len(texts)
        return self.inner.embed(texts, batch_size=batch_size)


def turns(n: int) -> list[dict[str, object]]:
    """``n`` knowledge sources of type ``conversation``, a minute apart."""
    out: list[dict[str, object]] = []
    for i in range(n):
        text = TEMPLATES[i % len(TEMPLATES)].format(
            place=PLACES[i % len(PLACES)],
            thing=THINGS[(i // 2) % len(THINGS)],
            day=DAYS[(i // 3) % len(DAYS)],
        )
        out.append(
            {
                "id": f"turn-{i}",
                "title": SPEAKERS[i % len(SPEAKERS)],
                "type": "conversation",
                "text": f"{text} (note {i})",
                "timestamp": f"2025-03-{1 + i // 600:02d}T{(i // 60) % 10 + 8:02d}:{i % 60:02d}:00",
            }
        )
    return out


async def run(n: int, data_dir: Path) -> dict[str, Any]:
    """Upload ``n`` turns one at a time; the report of one run."""
    embedder = CountingEmbedder(make_embedder(RecallConfig.load(data_dir=data_dir)))
    stages: dict[str, float] = {}
    plain = ingestor.ingest

    def timed(*args: Any, **kwargs: Any) -> Any:
        result = plain(*args, **kwargs)
        for name, seconds in result.timings.items():
            stages[name] = stages.get(name, 0.0) + seconds
        return result

    ingestor.ingest = timed  # the engine imports it at each remember()
    async with RecallEngine(data_dir, embedder=embedder) as engine:
        await engine.create_tenant("chat")
        embedder.inner.embed(["warm up"])  # the model's load is not an upload's cost
        seconds = []
        for source in turns(n):
            t0 = time.perf_counter()
            result = await engine.upload_knowledge("chat", [source], sub_tenant_id="talk")
            seconds.append(time.perf_counter() - t0)
            assert result.success_count == 1, result.results
    ingestor.ingest = plain
    return {
        "turns": n,
        "total_s": round(sum(seconds), 2),
        "embed_calls": embedder.calls,
        "texts_embedded": embedder.texts,
        "first10_mean_s": round(float(np.mean(seconds[:10])), 3),
        "last10_mean_s": round(float(np.mean(seconds[-10:])), 3),
        "stages_s": {k: round(v, 2) for k, v in sorted(stages.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", default="50,200", help="conversation lengths, e.g. 50,200")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    reports = []
    for n in (int(x) for x in args.turns.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            reports.append(asyncio.run(run(n, Path(tmp))))
        print(json.dumps(reports[-1]))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=2))


if __name__ == "__main__":
    main()
