"""The command line the retrieval-quality benches share (LoCoMo, HotpotQA)."""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from recall_engine import SearchType

RunFn = Callable[[list[SearchType], int | None, Path, str], Awaitable[dict]]


def quality_main(
    doc: str | None,
    run: RunFn,
    print_report: Callable[[dict], None],
    default_modes: Callable[[], list[SearchType]],
    *,
    limit_help: str,
) -> None:
    """Parse --modes/--limit/--json/--store/--graph-extractor, run, print, save."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--modes", default=None, help="comma-separated search types")
    parser.add_argument("--limit", type=int, default=None, help=limit_help)
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--store", type=Path, default=None, help="keep/reuse the store here")
    parser.add_argument("--graph-extractor", choices=["rules", "llm", "none"], default="rules")
    args = parser.parse_args()
    modes = (
        [SearchType(m.strip()) for m in args.modes.split(",")] if args.modes else default_modes()
    )
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.store or Path(tmp)
        report = asyncio.run(run(modes, args.limit, data_dir, args.graph_extractor))
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
