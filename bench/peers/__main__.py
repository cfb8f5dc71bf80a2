"""Cognee and this engine on the same LoCoMo conversations, back to back.

    .venv/bin/python -m bench.peers [--cognee-python /work/cognee-venv/bin/python]
        [--conversations 1] [--questions 80] [--top-k 10] [--modes ...]
        [--rounds 4] [--only ours|cognee] [--json FILE]

Both sides remember the same conversations (ours: one ``Conversation`` per
sample; Cognee: its own LoCoMo evaluation's documents, in one ``remember``), one
conversation each in turn, then answer the same questions with
``only_context=True`` in each mode. The questions are asked in ``--rounds``
slices; each slice in every mode (the modes' order reversed every other slice),
each side in turn (the order swapped every other slice), so that both sides and
every mode run under the same load on a shared machine, whatever their place in
the order (the first minutes after an ingest measured slower in some runs). The
table gives p50/p95 recall latency per mode (and for the default, no
``query_type``: our router against Cognee's), ingest messages per second, the
ratios, and the machine's load. Every recall pays its own query embedding on
both sides.

Cognee runs in its own venv (``bench/peers/requirements.txt``; ``--cognee-python``
or ``COGNEE_PYTHON``), driven over a pipe (``bench/peers/cognee_driver.py``), and
talks to a server this command starts on 127.0.0.1: embeddings from our packaged
MiniLM (the same model and runtime our side uses), chat completions from
scripted replies (a small knowledge graph of the text's capitalised names, a
first-sentence summary), so Cognee's figures carry almost no LLM time. Its
process refuses every connection off 127.0.0.1 (``bench/peers/offline``), and
the report lists any it tried.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench._data import Sample, load_locomo, percentile
from bench.peers._cognee import CogneePeer, PeerError, spec_sample
from bench.peers._ours import ROUTED, OursPeer
from bench.peers._server import PeerServer
from recall_engine.config import RecallConfig
from recall_engine.core.search_types import parse_search_type
from recall_engine.embedding import make_embedder

MODES = ("CHUNKS", "CHUNKS_LEXICAL", "RAG_COMPLETION", "HYBRID_COMPLETION", "GRAPH_COMPLETION")
DEFAULT_ROW = "default"
"""The row of a recall with no ``query_type``: our router against Cognee's."""
COGNEE_DEFAULT = "DEFAULT"
EMBED = "EMBED"
"""Not a mode: our query embedding alone, every recall's floor."""


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


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _figures(seconds: list[float], empty: int) -> dict[str, Any]:
    ms = [1000 * t for t in seconds]
    return {
        "p50_ms": statistics.median(ms),
        "p95_ms": percentile(ms, 0.95),
        "n": len(ms),
        "empty": empty,
    }


class _Tally:
    """Seconds and empty answers per side and mode, over the rounds."""

    def __init__(self) -> None:
        self.seconds: dict[str, list[float]] = {}
        self.empty: dict[str, int] = {}
        self.errors: dict[str, str] = {}

    def add(self, mode: str, reply: dict[str, Any]) -> None:
        if "error" in reply:
            self.errors[mode] = reply["error"]
            return
        self.seconds.setdefault(mode, []).extend(reply["seconds"])
        self.empty[mode] = self.empty.get(mode, 0) + reply["empty"]

    def figures(self) -> dict[str, Any]:
        out: dict[str, Any] = {m: {"error": e} for m, e in self.errors.items()}
        for mode, seconds in self.seconds.items():
            out.setdefault(mode, _figures(seconds, self.empty[mode]))
        return out


async def compare(
    args: argparse.Namespace,
    samples: list[Sample],
    questions: list[tuple[str, str]],
    ours: OursPeer | None,
    peer: CogneePeer | None,
) -> dict[str, Any]:
    """Ingest, then time every mode in rounds: each round one slice of the questions,
    in every mode, on both sides (module docstring)."""
    out: dict[str, Any] = {"load": {"start": _load()}}
    ingest = {"ours": 0.0, "cognee": 0.0}
    for i, sample in enumerate(samples):
        steps = ["ours", "cognee"] if i % 2 == 0 else ["cognee", "ours"]
        for side in steps:
            if side == "ours" and ours:
                ingest["ours"] += (await ours.remember(sample))["seconds"]
            elif side == "cognee" and peer:
                spec = spec_sample(sample, dataset_name(sample.sample_id))
                reply = peer.call("remember", sample=spec, window_turns=args.window_turns)
                ingest["cognee"] += reply["seconds"]
        print(f"  remembered {sample.sample_id}: {ingest}", file=sys.stderr, flush=True)
    messages = sum(len(s.conversation.messages) for s in samples)
    out["load"]["after_ingest"] = _load()
    tallies = {"ours": _Tally(), "cognee": _Tally()}
    per = max(1, -(-len(questions) // args.rounds))
    slices = [questions[i : i + per] for i in range(0, len(questions), per)]
    modes = [*args.modes, DEFAULT_ROW]
    for r, part in enumerate(slices):
        for mode in modes if r % 2 == 0 else modes[::-1]:
            for side in ["ours", "cognee"] if r % 2 == 0 else ["cognee", "ours"]:
                if side == "ours" and ours:
                    mine = ROUTED if mode == DEFAULT_ROW else mode
                    reply = await ours.recall(mine, part, args.top_k, warm_up=r == 0)
                    # The floor, sampled in every round so it sees the same load.
                    tallies["ours"].add(EMBED, ours.embed(part))
                elif side == "cognee" and peer:
                    theirs = COGNEE_DEFAULT if mode == DEFAULT_ROW else mode
                    cognee_qs = [{"dataset": dataset_name(d), "text": t} for d, t in part]
                    reply = peer.call(
                        "recall",
                        mode=theirs,
                        questions=cognee_qs,
                        top_k=args.top_k,
                        warm_up=r == 0,
                    )
                else:
                    continue
                tallies[side].add(mode, reply)
        print(f"  timed round {r + 1} of {len(slices)}", file=sys.stderr, flush=True)
    out["load"]["end"] = _load()
    for side, tally in tallies.items():
        if (side == "ours" and ours) or (side == "cognee" and peer):
            out[side] = {
                "ingest": {
                    "messages": messages,
                    "seconds": ingest[side],
                    "messages_per_s": messages / ingest[side],
                },
                "modes": tally.figures(),
            }
    if peer:
        out["cognee"]["graph"] = peer.call("graph")
        out["cognee"]["version"] = peer.version
        out["cognee"]["refused_hosts"] = peer.refused_hosts()
    return out


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
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
    }
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="peers-")))
        ours = peer = None
        if args.only != "cognee":
            ours = OursPeer(tmp / "ours", embedder)
            stack.callback(ours.close)
        if args.only != "ours":
            server = stack.enter_context(PeerServer(embedder))
            peer = stack.enter_context(
                CogneePeer(
                    args.cognee_python,
                    base_url=server.base_url,
                    root=tmp / "cognee",
                    timeout_s=args.timeout,
                )
            )
            peer.call("setup")
            server.reset_stats()
        report |= asyncio.run(compare(args, samples, questions, ours, peer))
        if peer:
            report["cognee"]["server"] = server.stats()
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
    rows = [(m, m) for m in report["modes"]]
    rows.append(("default (no query_type: each side's router)", DEFAULT_ROW))
    lines = [
        f"LoCoMo {', '.join(report['conversations'])}: {report['messages']} turns, "
        f"{report['questions']} questions, top_k {report['top_k']}, only_context; "
        f"Cognee {peer.get('version', 'not run')}",
        "",
        "| recall p50 / p95 ms | ours | Cognee | Cognee p50 / ours p50 |",
        "|---|---|---|---|",
    ]
    for label, mode in rows:
        a, b = ours_modes.get(mode), peer_modes.get(mode)
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
    load = report.get("load", {})
    lines.append(
        f"load average (1 min): {load.get('start')} at start, {load.get('after_ingest')} after "
        f"ingest, {load.get('end')} at end; {report['rounds']} rounds, each a slice of the "
        "questions in every mode on both sides, so both sides and every mode ran under the "
        "same load"
    )
    if "server" in peer:
        lines.append(f"Cognee's calls to the local server: {peer['server']}")
    if "refused_hosts" in peer:
        lines.append(
            f"Cognee's connections off this machine, refused: {peer['refused_hosts'] or 'none'}"
        )
    if "graph" in peer:
        lines.append(f"Cognee's graph (the last dataset it opened): {peer['graph']}")
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
    parser.add_argument("--rounds", type=int, default=4, help="question slices, each in every mode")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per Cognee command")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    try:
        args.modes = [parse_search_type(m).value for m in args.modes.split(",") if m.strip()]
    except ValueError as error:
        parser.error(f"--modes: {error}")
    for name, value in (("conversations", args.conversations), ("questions", args.questions)):
        if value < 1:
            parser.error(f"--{name} must be at least 1, got {value}")
    if min(args.top_k, args.window_turns, args.rounds) < 1:
        parser.error("--top-k, --window-turns and --rounds must be at least 1")
    try:
        report = run(args)
    except PeerError as error:
        sys.exit(f"bench.peers: {error}")
    print(table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
