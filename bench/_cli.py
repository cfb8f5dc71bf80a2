"""The command line the retrieval-quality benches share (LoCoMo, HotpotQA)."""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from recall_engine import SearchType

RunFn = Callable[..., Awaitable[dict]]
"""(modes, limit, data_dir, graph_extractor[, top_k=...]) -> the report."""


def quality_main(
    doc: str | None,
    run: RunFn,
    print_report: Callable[[dict], None],
    default_modes: Callable[[], list[SearchType]],
    *,
    limit_help: str,
    top_k: int | None = None,
    int_options: dict[str, tuple[int, str]] | None = None,
) -> None:
    """Parse --modes/--limit/--json/--store/--graph-extractor, run, print, save.

    ``top_k``: the bench's default ``top_k``; given, a ``--top-k`` option is offered
    and ``run`` gets ``top_k=`` (a ranking whose head depends on ``top_k`` shows up
    as different figures at ``--top-k 10`` and at the default).
    ``int_options``: further ``--NAME`` integer options (name -> (default, help)),
    passed to ``run`` as keyword arguments (``--copies 2`` as ``copies=2``).
    """
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--modes", default=None, help="comma-separated search types")
    parser.add_argument("--limit", type=int, default=None, help=limit_help)
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--store", type=Path, default=None, help="keep/reuse the store here")
    parser.add_argument("--graph-extractor", choices=["rules", "llm", "none"], default="rules")
    if top_k is not None:
        parser.add_argument(
            "--top-k", type=int, default=top_k, help=f"top_k of every recall (default {top_k})"
        )
    for name, (default, text) in (int_options or {}).items():
        parser.add_argument(f"--{name}", type=int, default=default, help=text)
    args = parser.parse_args()
    if top_k is not None and args.top_k < 1:
        parser.error(f"--top-k must be at least 1, got {args.top_k}")
    extra = {"top_k": args.top_k} if top_k is not None else {}
    extra |= {
        name.replace("-", "_"): getattr(args, name.replace("-", "_")) for name in int_options or {}
    }
    modes = (
        [SearchType(m.strip()) for m in args.modes.split(",")] if args.modes else default_modes()
    )
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.store or Path(tmp)
        report = asyncio.run(run(modes, args.limit, data_dir, args.graph_extractor, **extra))
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
