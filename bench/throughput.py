"""Ingest throughput against raw embedding throughput, and recall latency by corpus size.

A synthetic corpus of short documents (one chunk each) is embedded raw, then
ingested through remember(); the ratio of the two rates is the pipeline's
overhead. Recall latency is measured at 1k and at the full size, with the query
embedding alone timed in the same loop (interleaved) as the floor.

    .venv/bin/python -m bench.throughput [--chunks 10000] [--queries 200]
        [--graph-extractor rules|none]

With ``--corpus hotpotqa`` (the HotpotQA-100 paragraphs, one Document each
with its title) or ``--corpus locomo`` (the LoCoMo dev conversations), it
remembers the real, entity-dense corpus twice on the same embedder, with
``graph_extractor="none"`` and with the rules extractor, and reports both
rates and their ratio (the graph's ingest cost).

    .venv/bin/python -m bench.throughput --corpus hotpotqa|locomo
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

from bench._data import HOTPOT, WORDS, load_locomo, percentile
from recall_engine import Conversation, Document, RecallEngine, SearchType
from recall_engine.embedding import Embedder

NAMES = ["Ada", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun"]


def corpus(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for i in range(n):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(18, 40)))
        texts.append(f"{rng.choice(NAMES)} wrote note {i} about the {words}.")
    return texts


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [
        f"What did {rng.choice(NAMES)} say about the {rng.choice(WORDS)} {rng.choice(WORDS)}?"
        for _ in range(n)
    ]


async def latency(
    engine: RecallEngine, qs: list[str], search_types: tuple[SearchType, ...] = ()
) -> dict[str, float]:
    """p50/p95 of the query embedding (the floor), CHUNKS, CHUNKS_LEXICAL and each
    of ``search_types`` (only_context, top_k 10), interleaved in one loop."""
    embed, dense, lexical = [], [], []
    extra: dict[str, list[float]] = {t.value: [] for t in search_types}
    for q in qs:
        t0 = time.perf_counter()
        engine.embedder.embed([q], batch_size=1)
        t1 = time.perf_counter()
        await engine.recall(q, SearchType.CHUNKS, top_k=10)
        t2 = time.perf_counter()
        await engine.recall(q, SearchType.CHUNKS_LEXICAL, top_k=10)
        t3 = time.perf_counter()
        embed.append(t1 - t0)
        dense.append(t2 - t1)
        lexical.append(t3 - t2)
        for search_type in search_types:
            t4 = time.perf_counter()
            await engine.recall(q, search_type, top_k=10, only_context=True)
            extra[search_type.value].append(time.perf_counter() - t4)
    ms = {"embed": embed, "CHUNKS": dense, "CHUNKS_LEXICAL": lexical, **extra}
    out = {}
    for name, values in ms.items():
        out[f"{name} p50"] = 1000 * statistics.median(values)
        out[f"{name} p95"] = 1000 * percentile(values, 0.95)
    out["CHUNKS p50 - embed p50"] = out["CHUNKS p50"] - out["embed p50"]
    for name in extra:
        out[f"{name} p50 - embed p50"] = out[f"{name} p50"] - out["embed p50"]
    return out


async def run(
    n_chunks: int,
    n_queries: int,
    data_dir: Path,
    graph_extractor: str = "rules",
    search_types: tuple[SearchType, ...] = (),
) -> dict:
    texts = corpus(n_chunks)
    qs = queries(n_queries)
    engine = RecallEngine(data_dir, graph_extractor=graph_extractor)
    engine.embedder.embed(["warm up"])
    t0 = time.perf_counter()
    engine.embedder.embed(texts, batch_size=engine.config.embedding_batch_size)
    raw_rate = n_chunks / (time.perf_counter() - t0)
    report: dict = {
        "chunks": n_chunks,
        "raw_embed_per_s": raw_rate,
        "graph_extractor": graph_extractor,
        "graph": {"entities": 0, "relations": 0, "events": 0},
        "extract_s": 0.0,
    }
    batch = 1000
    ingest_s = 0.0
    for start in range(0, n_chunks, batch):
        docs = [Document(text=t) for t in texts[start : start + batch]]
        t0 = time.perf_counter()
        stored = await engine.remember(docs, dataset_name="synthetic", show_progress=False)
        ingest_s += time.perf_counter() - t0
        report["graph"]["entities"] += stored.entity_count
        report["graph"]["relations"] += stored.relation_count
        report["graph"]["events"] += stored.event_count
        report["extract_s"] += stored.timings.get("extract_s", 0.0)
        if start + batch == 1000 and n_chunks > 1000:
            report["latency@1k"] = await latency(engine, qs, search_types)
    report["ingest_per_s"] = n_chunks / ingest_s
    report["ingest/raw ratio"] = report["ingest_per_s"] / raw_rate
    report[f"latency@{n_chunks}"] = await latency(engine, qs, search_types)
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report["backend"] = type(engine.embedder).__name__
    engine.close()
    return report


def real_corpus(name: str) -> list[Document] | list[Conversation]:
    """HotpotQA-100 paragraphs (one Document each, titled) or the LoCoMo dev conversations."""
    if name == "hotpotqa":
        raw = json.loads((HOTPOT / "hotpotqa_100_corpus.json").read_text(encoding="utf-8"))
        return [
            Document(text="".join(sentences).strip(), title=title)
            for title, sentences in raw.items()
            if "".join(sentences).strip()
        ]
    return [sample.conversation for sample in load_locomo()]


async def graph_cost(name: str, data_dir: Path) -> dict:
    """Remember a real corpus chunks-only, then with the rules graph, on one embedder."""
    data = real_corpus(name)
    embedder: Embedder | None = None
    report: dict = {"corpus": name, "items": len(data)}
    for extractor in ("none", "rules"):
        engine = RecallEngine(data_dir / extractor, graph_extractor=extractor, embedder=embedder)
        embedder = engine.embedder
        embedder.embed(["warm up"])
        t0 = time.perf_counter()
        stored = await engine.remember(data, dataset_name=name, show_progress=False)
        seconds = time.perf_counter() - t0
        report[extractor] = {
            "seconds": seconds,
            "chunks": stored.chunk_count,
            "per_s": stored.chunk_count / seconds,
            "entities": stored.entity_count,
            "relations": stored.relation_count,
            "timings": stored.timings,
        }
        engine.close()
    report["backend"] = type(embedder).__name__
    report["ratio"] = report["rules"]["per_s"] / report["none"]["per_s"]
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return report


def print_graph_cost(report: dict) -> None:
    print(f"corpus: {report['corpus']} ({report['items']} items), backend {report['backend']}")
    for extractor in ("none", "rules"):
        row = report[extractor]
        timing = ", ".join(
            f"{k} {v:.2f}" for k, v in row["timings"].items() if k.endswith("_s") and v >= 0.01
        )
        print(
            f"graph {extractor:5}: {row['chunks']} chunks in {row['seconds']:.2f} s = "
            f"{row['per_s']:.0f} chunks/s ({row['entities']} entities, {row['relations']} "
            f"relations; {timing})"
        )
    print(f"graph-on / graph-off rate: {100 * report['ratio']:.1f}%")
    print(f"peak RSS: {report['peak_rss_mb']:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--graph-extractor",
        choices=["rules", "llm", "none"],
        default="rules",
        help="graph extraction during ingest ('none' measures chunks only)",
    )
    parser.add_argument(
        "--corpus",
        choices=["synthetic", "hotpotqa", "locomo"],
        default="synthetic",
        help="a real corpus measures graph-on against graph-off ingest in one run",
    )
    parser.add_argument(
        "--search-types",
        default="",
        help="comma-separated search types also timed (only_context), e.g. GRAPH_COMPLETION",
    )
    args = parser.parse_args()
    search_types = tuple(SearchType(t.strip()) for t in args.search_types.split(",") if t.strip())
    if args.corpus != "synthetic":
        with tempfile.TemporaryDirectory() as tmp:
            print_graph_cost(asyncio.run(graph_cost(args.corpus, Path(tmp))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        report = asyncio.run(
            run(args.chunks, args.queries, Path(tmp), args.graph_extractor, search_types)
        )
    print(f"chunks: {report['chunks']}, embedding backend: {report['backend']}")
    graph = report["graph"]
    print(
        f"graph extractor: {report['graph_extractor']} ({graph['entities']} entities, "
        f"{graph['relations']} relations, {graph['events']} events; "
        f"extraction {report['extract_s']:.2f} s, overlapped with embedding)"
    )
    print(f"raw embedding: {report['raw_embed_per_s']:.0f} chunks/s")
    print(f"ingest (remember): {report['ingest_per_s']:.0f} chunks/s")
    print(f"ingest / raw embedding: {100 * report['ingest/raw ratio']:.1f}%")
    for key, values in report.items():
        if key.startswith("latency@"):
            print(f"{key}: " + ", ".join(f"{k} {v:.2f} ms" for k, v in values.items()))
    print(f"peak RSS: {report['peak_rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
