"""Rule-based graph extraction throughput and counts on the LoCoMo dev split.

    .venv/bin/python bench/extraction.py [--data PATH] [--repeat N] [--resolve]

One chunk per dialogue turn, as the engine ingests conversations (text plus
" [shares <caption>]" where the turn shares an image), the session date as its
timestamp, one namespace per conversation. Prints chunks/s for extraction alone
(best of ``--repeat`` cold runs: the date cache is cleared before each) and the
entity/relation/event counts before and after entity resolution.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import datetime
from pathlib import Path

from recall_engine.graph import dates, normalize
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.model import GraphExtraction
from recall_engine.graph.resolution import resolve
from recall_engine.graph.rules import RuleBasedExtractor

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/bench-data/locomo/locomo_dev.json"


def locomo_chunks(path: Path) -> list[ChunkInput]:
    """Every turn of every conversation in the file, in order."""
    chunks: list[ChunkInput] = []
    for sample in json.loads(path.read_text()):
        conv = sample["conversation"]
        n = 1
        while f"session_{n}" in conv:
            stamp = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
            for turn in conv[f"session_{n}"]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [shares {turn['blip_caption']}]"
                chunks.append(
                    ChunkInput(
                        chunk_id=f"{sample['sample_id']}:{turn['dia_id']}",
                        text=text,
                        speaker=turn["speaker"],
                        timestamp=stamp,
                        dataset_id=sample["sample_id"],
                        data_id=sample["sample_id"],
                    )
                )
            n += 1
    return chunks


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
        normalize.normalize_name.cache_clear()
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
