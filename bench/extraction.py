"""Rule-based graph extraction throughput and counts on the LoCoMo dev split.

    .venv/bin/python -m bench.extraction [--data PATH] [--repeat N] [--resolve]

One chunk per dialogue turn, as the engine ingests conversations (text plus
" [shares <caption>]" where the turn shares an image), the session date as its
timestamp, one namespace per conversation. Prints chunks/s for extraction alone
(best of ``--repeat`` cold runs: the date cache is cleared before each) and the
entity/relation/event counts before and after entity resolution.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench._data import LOCOMO, load_locomo
from recall_engine.core import names
from recall_engine.core.graph import GraphExtraction
from recall_engine.graph import dates
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.resolution import resolve
from recall_engine.graph.rules import RuleBasedExtractor

DEFAULT_DATA = LOCOMO


def locomo_chunks(path: Path) -> list[ChunkInput]:
    """Every turn of every conversation in the file, in order."""
    return [
        ChunkInput(
            chunk_id=f"{sample.sample_id}:{message.id}",
            text=message.text,
            speaker=message.speaker,
            timestamp=message.timestamp,
            dataset_id=sample.sample_id,
            data_id=sample.sample_id,
        )
        for sample in load_locomo(path)
        for message in sample.conversation.messages
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    chunks = locomo_chunks(args.data)
    extractor = RuleBasedExtractor()
    best = float("inf")
    for _ in range(args.repeat):
        dates._resolve_cached.cache_clear()
        dates._parser.cache_clear()
        names._memo_key.cache_clear()
        started = time.perf_counter()
        extractions = extractor.extract_sync(chunks)
        best = min(best, time.perf_counter() - started)
    raw = GraphExtraction.from_chunks(extractions)
    started = time.perf_counter()
    resolved = resolve(raw).graph
    resolve_s = time.perf_counter() - started
    print(f"chunks: {len(chunks)}  extract: {best:.3f}s  {len(chunks) / best:,.0f} chunks/s")
    print(f"resolve: {resolve_s:.3f}s")
    for label, graph in (("raw", raw), ("resolved", resolved)):
        predicates: dict[str, int] = {}
        for r in graph.relations:
            predicates[r.predicate] = predicates.get(r.predicate, 0) + 1
        types: dict[str, int] = {}
        for e in graph.entities:
            types[e.type.value] = types.get(e.type.value, 0) + 1
        print(
            f"{label}: entities={len(graph.entities)} relations={len(graph.relations)} "
            f"events={len(graph.events)} mentions={len(graph.mentions)}"
        )
        print(f"  types: {dict(sorted(types.items(), key=lambda kv: -kv[1]))}")
        print(f"  predicates: {dict(sorted(predicates.items(), key=lambda kv: -kv[1]))}")


if __name__ == "__main__":
    main()
