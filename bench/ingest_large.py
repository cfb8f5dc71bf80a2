"""Large-document ingest: seconds, chunks/s against raw embedding, graph size, peak RSS.

For each size (default 1 and 10 MB) a worker process builds one document from
real text: HotpotQA-100 paragraphs (title, blank line, text) interleaved with
LoCoMo dev turns as prose ("Ann said: ...", six turns a paragraph), read from
the shared bench data at run time and repeated when the size asks for more
(about 0.85 MB of distinct text). The worker remembers it with the rules graph
on in a fresh data dir, then embeds the same chunk texts raw (the same
embedder, batch size and process) and reports: seconds, chunks, chunks/s, raw
chunks/s and the ratio of the two, the CPU-seconds of each (all threads; their
ratio, raw over ingest, moves less with a busy machine than the wall-clock
one), entities/relations/events found, the
ingest's own timings, and the worker's peak RSS (``ru_maxrss``) before and
after the ingest. When the ingest's bulk calls ran in bfloat16
(``embedding.bulk``), the chunks are also embedded raw in fp32 and the ratio
against that rate is reported too. Target: ratio >= 0.5, peak RSS bounded (not
growing with the document beyond its chunks and graph).

It also checks that over-limit requests are refused quickly: a 15 MB query to
``recall()`` and to the tenant API's ``full_recall``, and a document one
character over ``max_item_chars`` (seconds until the 413-class error).

    .venv/bin/python -m bench.ingest_large [--sizes 1,10] [--embedder minilm|hash]
        [--graph-extractor rules|none] [--json out.json]

On a shared machine every figure moves with the load: compare the ingest and
raw rates of one size (measured back to back in one process), not across runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench._data import HOTPOT, LOCOMO

MB = 1_000_000


def paragraphs() -> list[str]:
    """HotpotQA paragraphs and LoCoMo turn groups, interleaved."""
    corpus = json.loads((HOTPOT / "hotpotqa_100_corpus.json").read_text(encoding="utf-8"))
    hotpot = [
        f"{title}\n\n" + "".join(sentences).strip()
        for title, sentences in corpus.items()
        if "".join(sentences).strip()
    ]
    turns: list[str] = []
    for raw in json.loads(LOCOMO.read_text(encoding="utf-8")):
        conv = raw["conversation"]
        n = 1
        while f"session_{n}" in conv:
            session = conv[f"session_{n}"]
            for start in range(0, len(session), 6):
                group = session[start : start + 6]
                turns.append("\n".join(f"{t['speaker']} said: {t['text']}" for t in group))
            n += 1
    out = []
    for i in range(max(len(hotpot), len(turns))):
        out += [p[i] for p in (hotpot, turns) if i < len(p)]
    return out


def document(chars: int) -> str:
    """``chars`` characters of real prose, paragraphs repeated as needed."""
    parts, size, i = [], 0, 0
    source = paragraphs()
    while size < chars:
        part = source[i % len(source)]
        parts.append(part)
        size += len(part) + 2
        i += 1
    return "\n\n".join(parts)[:chars]


def _cpu_s() -> float:
    """CPU-seconds this process has used (all its threads, user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _fp32_raw(embedder: object, texts: list[str], batch_size: int) -> float | None:
    """Seconds to embed ``texts`` in fp32 on ONNX Runtime, when ``embedder`` ran its
    bulk calls in bfloat16 (``embedding.bulk``); None otherwise."""
    from recall_engine.embedding.onnx import OnnxEmbedder

    if not isinstance(embedder, OnnxEmbedder) or not embedder.bulk_ready:
        return None
    fp32 = OnnxEmbedder(threads=embedder.threads, precision="fp32")
    fp32.embed(["warm up the model"], batch_size=1)
    t0 = time.perf_counter()
    fp32.embed(texts, batch_size=batch_size)
    return time.perf_counter() - t0


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _worker(size_mb: float, embedder_name: str, extractor: str) -> dict[str, Any]:
    from recall_engine import Document, RecallEngine
    from recall_engine.ingest.chunking import chunk_item
    from recall_engine.ingest.sources import collect_items

    text = document(int(size_mb * MB))
    embedder = None
    if embedder_name == "hash":
        from recall_engine.testing import DeterministicEmbedder

        embedder = DeterministicEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        engine = RecallEngine(
            Path(tmp), embedder=embedder, graph_extractor=extractor, show_progress=False
        )
        engine.embedder.embed(["warm up the model"], batch_size=1)
        rss_before = _rss_mb()
        started, cpu0 = time.perf_counter(), _cpu_s()
        result = await engine.remember(Document(text=text, title="large"), dataset_name="large")
        seconds, cpu_s = time.perf_counter() - started, _cpu_s() - cpu0
        rss_ingest = _rss_mb()
        (item,) = collect_items(Document(text=text, title="large"))
        config = engine.config
        chunks = chunk_item(item, chunk_size=config.chunk_size, chunk_overlap=config.chunk_overlap)
        texts = [c.embed_text for c in chunks]
        del chunks, item
        t0, cpu0 = time.perf_counter(), _cpu_s()
        engine.embedder.embed(texts, batch_size=config.embedding_batch_size)
        raw_seconds, raw_cpu_s = time.perf_counter() - t0, _cpu_s() - cpu0
        rss_raw = _rss_mb()  # before a second (fp32) model is loaded below
        fp32_seconds = _fp32_raw(engine.embedder, texts, config.embedding_batch_size)
        engine.close()
    rate = result.chunk_count / seconds
    raw_rate = len(texts) / raw_seconds
    fp32: dict[str, float] = {}
    if fp32_seconds is not None:  # the chunks in fp32, when the ingest ran bulk calls in bf16
        fp32 = {
            "raw_fp32_seconds": round(fp32_seconds, 1),
            "raw_fp32_chunks_per_s": round(len(texts) / fp32_seconds, 2),
            "ratio_fp32": round(rate / (len(texts) / fp32_seconds), 3),
        }
    return {
        **fp32,
        "size_mb": size_mb,
        "chars": len(text),
        "seconds": round(seconds, 1),
        "chunks": result.chunk_count,
        "chunks_per_s": round(rate, 2),
        "raw_seconds": round(raw_seconds, 1),
        "raw_chunks_per_s": round(raw_rate, 2),
        "ratio": round(rate / raw_rate, 3),
        "cpu_s": round(cpu_s, 1),
        "raw_cpu_s": round(raw_cpu_s, 1),
        "cpu_ratio": round(raw_cpu_s / cpu_s, 3),
        "entities": result.entity_count,
        "relations": result.relation_count,
        "events": result.event_count,
        "timings": {k: round(v, 2) for k, v in result.timings.items()},
        "rss_model_mb": round(rss_before),
        "peak_rss_mb": round(max(rss_ingest, rss_raw)),
    }


async def refusals(embedder_name: str) -> dict[str, float]:
    """Seconds until an over-limit query or document is refused."""
    from recall_engine import RecallEngine, SearchType
    from recall_engine.core.errors import InputTooLargeError
    from recall_engine.testing import DeterministicEmbedder

    query = "why " * (15 * MB // 4)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        embedder = DeterministicEmbedder() if embedder_name == "hash" else None
        engine = RecallEngine(Path(tmp), embedder=embedder)
        await engine.remember("Ada Lovelace lived in London.")
        await engine.create_tenant("acme")
        calls = {
            "recall_15mb_query_s": lambda: engine.recall(query, SearchType.CHUNKS),
            "full_recall_15mb_query_s": lambda: engine.full_recall(tenant_id="acme", query=query),
            "remember_over_limit_s": lambda: engine.remember(
                "a" * (engine.config.max_item_chars + 1)
            ),
        }
        for name, call in calls.items():
            t0 = time.perf_counter()
            try:
                await call()
            except InputTooLargeError:
                out[name] = round(time.perf_counter() - t0, 3)
            else:
                raise AssertionError(f"{name}: not refused")
        engine.close()
    return out


def run_worker(size_mb: float, args: argparse.Namespace) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "bench.ingest_large",
        "--worker",
        str(size_mb),
        "--embedder",
        args.embedder,
        "--graph-extractor",
        args.graph_extractor,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    if done.returncode != 0:
        raise RuntimeError(f"worker for {size_mb} MB failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def print_report(report: dict[str, Any]) -> None:
    print(
        f"{'MB':>5} {'seconds':>8} {'chunks':>7} {'chunks/s':>9} {'raw/s':>7} {'ratio':>6} "
        f"{'CPU-s':>6} {'raw CPU-s':>9} {'CPU ratio':>9} "
        f"{'entities':>9} {'relations':>10} {'peak RSS MB':>12}"
    )
    for row in report["sizes"]:
        print(
            f"{row['size_mb']:>5} {row['seconds']:>8} {row['chunks']:>7} "
            f"{row['chunks_per_s']:>9} {row['raw_chunks_per_s']:>7} {row['ratio']:>6} "
            f"{row['cpu_s']:>6} {row['raw_cpu_s']:>9} {row['cpu_ratio']:>9} "
            f"{row['entities']:>9} {row['relations']:>10} {row['peak_rss_mb']:>12}"
        )
        if "ratio_fp32" in row:
            print(
                f"      bulk calls ran in bfloat16; the chunks raw in fp32: "
                f"{row['raw_fp32_seconds']} s, {row['raw_fp32_chunks_per_s']}/s, "
                f"ratio against it {row['ratio_fp32']}"
            )
        print(f"      timings: {row['timings']}  (model loaded: {row['rss_model_mb']} MB)")
    print("refused:", report["refusals"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1,10", help="document sizes in MB, comma-separated")
    parser.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    parser.add_argument("--graph-extractor", choices=["rules", "none"], default="rules")
    parser.add_argument("--timeout", type=float, default=7200, help="seconds per size")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--worker", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        print(json.dumps(asyncio.run(_worker(args.worker, args.embedder, args.graph_extractor))))
        return
    sizes = [run_worker(float(s), args) for s in args.sizes.split(",")]
    report = {
        "embedder": args.embedder,
        "graph_extractor": args.graph_extractor,
        "sizes": sizes,
        "refusals": asyncio.run(refusals(args.embedder)),
    }
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
