"""Cognee and this engine on the same LoCoMo conversations, back to back.

    .venv/bin/python -m bench.peers --cognee-python /work/cognee-venv/bin/python
        [--conversations 1] [--questions 80] [--top-k 10] [--modes ...]
        [--only ours|cognee] [--json FILE]

Both sides remember the same conversations (ours: one ``Conversation`` per
sample; Cognee: its own LoCoMo evaluation's documents, in one ``remember``), then
answer the same questions with ``only_context=True`` in each mode, and the
table gives p50/p95 recall latency per mode, ingest messages per second, the
ratios Cognee/ours (how many times faster we are), and the machine's load
before and after each side. Every recall pays its own query embedding on both
sides. Cognee runs in its own venv (``bench/peers/requirements.txt``; the
``--cognee-python`` option or ``COGNEE_PYTHON``) and talks to a server this
command starts on 127.0.0.1: embeddings from our packaged MiniLM (the same model
and runtime our side uses), chat completions from scripted replies (a small
knowledge graph of the text's capitalised names, a first-sentence summary), so
Cognee's figures carry almost no LLM time. Nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench._data import Sample, load_locomo
from bench.peers._cognee import PeerError, run_cognee, spec_sample
from bench.peers._ours import EMBED, ROUTED, run_ours
from bench.peers._server import PeerServer
from recall_engine.config import RecallConfig
from recall_engine.embedding import make_embedder
from recall_engine.search_types import parse_search_type

MODES = ("CHUNKS", "CHUNKS_LEXICAL", "RAG_COMPLETION", "HYBRID_COMPLETION", "GRAPH_COMPLETION")
DEFAULT_ROW = "default"
"""The row of a recall with no ``query_type``: our router against Cognee's."""
COGNEE_DEFAULT = "DEFAULT"


def pick_questions(samples: list[Sample], total: int) -> list[tuple[str, str]]:
    """``total`` (dataset, question) pairs spread evenly over each sample's questions."""
    per = max(1, -(-total // len(samples)))
    out = []
    for sample in samples:
        qs = sample.questions
        step = max(1, len(qs) / per)
        out += [(sample.sample_id, qs[int(i * step)].text) for i in range(min(per, len(qs)))]
    return out[:total]


def dataset_name(sample_id: str) -> str:
    """Cognee's dataset names take no hyphen."""
    return "locomo_" + sample_id.replace("-", "_")


def _load() -> dict[str, float]:
    one, five, _ = os.getloadavg()
    return {"load1": round(one, 2), "load5": round(five, 2)}


async def _ours(args: argparse.Namespace, samples: list, questions: list, embedder: Any) -> dict:
    with tempfile.TemporaryDirectory(prefix="peers-ours-") as tmp:
        modes = [*args.modes, ROUTED]
        return await run_ours(
            samples, questions, modes, data_dir=Path(tmp), embedder=embedder, top_k=args.top_k
        )


def run(args: argparse.Namespace) -> dict[str, Any]:
    samples = load_locomo()[: args.conversations]
    questions = pick_questions(samples, args.questions)
    embedder = make_embedder(RecallConfig())
    embedder.embed(["warm up"])  # model load is nobody's ingest time
    report: dict[str, Any] = {
        "conversations": [s.sample_id for s in samples],
        "messages": sum(len(s.conversation.messages) for s in samples),
        "questions": len(questions),
        "top_k": args.top_k,
        "modes": args.modes,
        "cpus": os.cpu_count(),
    }
    if args.only != "cognee":
        before = _load()
        report["ours"] = asyncio.run(_ours(args, samples, questions, embedder))
        report["ours"]["load"] = {"before": before, "after": _load()}
        print(f"  ours done: ingest {report['ours']['ingest']}", file=sys.stderr)
    if args.only != "ours":
        spec = {
            "samples": [spec_sample(s, dataset_name(s.sample_id)) for s in samples],
            "questions": [{"dataset": dataset_name(d), "text": t} for d, t in questions],
            "modes": [*args.modes, COGNEE_DEFAULT],
            "top_k": args.top_k,
            "window_turns": args.window_turns,
        }
        before = _load()
        with (
            tempfile.TemporaryDirectory(prefix="peers-cognee-") as tmp,
            PeerServer(embedder) as server,
        ):
            report["cognee"] = run_cognee(
                args.cognee_python,
                spec,
                base_url=server.base_url,
                root=Path(tmp),
                timeout_s=args.timeout,
            )
            report["cognee"]["server"] = server.stats()
        report["cognee"]["load"] = {"before": before, "after": _load()}
    return report


def _cell(side: dict | None) -> str:
    if side is None:
        return "n/a"
    if "error" in side:
        return "failed"
    return f"{side['p50_ms']:.1f} / {side['p95_ms']:.1f}"


def _ratio(num: dict | None, den: dict | None, key: str) -> str:
    if num and den and key in num and key in den and den[key]:
        return f"{num[key] / den[key]:.1f}x"
    return "n/a"


def _rate(ingest: dict | None) -> str:
    return f"{ingest['messages_per_s']:.1f}" if ingest else "n/a"


def table(report: dict[str, Any]) -> str:
    """The report as markdown: p50 / p95 ms per mode and ingest msg/s, with ratios and load."""
    ours, peer = report.get("ours", {}), report.get("cognee", {})
    ours_modes, peer_modes = ours.get("modes", {}), peer.get("modes", {})
    rows = [(m, m, m) for m in report["modes"]]
    rows.append(("default (no query_type)", ROUTED, COGNEE_DEFAULT))
    lines = [
        f"LoCoMo {', '.join(report['conversations'])}: {report['messages']} turns, "
        f"{report['questions']} questions, top_k {report['top_k']}, only_context; "
        f"Cognee {peer.get('version', 'not run')}",
        "",
        "| recall p50 / p95 ms | ours | Cognee | Cognee p50 / ours p50 |",
        "|---|---|---|---|",
    ]
    for label, mine, theirs in rows:
        a, b = ours_modes.get(mine), peer_modes.get(theirs)
        lines.append(f"| {label} | {_cell(a)} | {_cell(b)} | {_ratio(b, a, 'p50_ms')} |")
    if EMBED in ours_modes:
        lines.append(f"| (query embedding alone) | {_cell(ours_modes[EMBED])} | | |")
    oi, pi = ours.get("ingest"), peer.get("ingest")
    lines += [
        "",
        "| ingest msg/s | ours | Cognee | ours / Cognee |",
        "|---|---|---|---|",
        f"| remember | {_rate(oi)} | {_rate(pi)} | {_ratio(oi, pi, 'messages_per_s')} |",
        "",
    ]
    for side, name in ((ours, "ours"), (peer, "Cognee")):
        if "load" in side:
            b, a = side["load"]["before"], side["load"]["after"]
            lines.append(
                f"load average (1 min) during {name}: {b['load1']} before, {a['load1']} after"
            )
    if "server" in peer:
        lines.append(f"Cognee's calls to the local server: {peer['server']}")
    if "graph" in peer:
        lines.append(f"Cognee's graph: {peer['graph']}")
    lines.append(f"machine: {report['cpus']} CPUs")
    return "\n".join(lines)


def main() -> None:
    doc = __doc__ or ""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--cognee-python",
        type=Path,
        default=Path(os.environ.get("COGNEE_PYTHON", "/work/cognee-venv/bin/python")),
        help="the Python of Cognee's venv (default: $COGNEE_PYTHON or /work/cognee-venv)",
    )
    parser.add_argument("--conversations", type=int, default=1, help="LoCoMo dev conversations")
    parser.add_argument("--questions", type=int, default=80, help="questions in all")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated search types")
    parser.add_argument("--window-turns", type=int, default=6, help="turns per Cognee document")
    parser.add_argument("--only", choices=["ours", "cognee"], default=None)
    parser.add_argument("--timeout", type=float, default=3600, help="seconds for Cognee's side")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    try:
        args.modes = [parse_search_type(m).value for m in args.modes.split(",") if m.strip()]
    except ValueError as error:
        parser.error(f"--modes: {error}")
    for name, value in (("conversations", args.conversations), ("questions", args.questions)):
        if value < 1:
            parser.error(f"--{name} must be at least 1, got {value}")
    if args.top_k < 1 or args.window_turns < 1:
        parser.error("--top-k and --window-turns must be at least 1")
    try:
        report = run(args)
    except PeerError as error:
        sys.exit(f"bench.peers: {error}")
    print(table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
