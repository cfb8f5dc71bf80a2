"""``python -m recall_engine.mcp`` (also ``recall-engine mcp``): run the MCP server.

stdio by default (an MCP host starts it as a subprocess); ``--transport
streamable-http`` serves ``http://HOST:PORT/mcp`` statelessly, behind the data dir's
API keys unless ``--no-auth`` and behind ``recall-engine serve``'s rate limits
(``--rate-limit``, ``--burst``, ``--trusted-proxy``). Light to import: the SDK
loads only in ``serve``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from recall_engine.server.__main__ import _whole, add_limit_arguments  # serve's checks

    parser.add_argument(
        "--transport", choices=("stdio", "streamable-http"), default="stdio",
        help="default: stdio",
    )  # fmt: skip
    parser.add_argument("--host", default="127.0.0.1", help="HTTP only; default: 127.0.0.1")
    parser.add_argument(
        "--port", type=_whole(0, 65535), default=DEFAULT_PORT, help=f"default: {DEFAULT_PORT}"
    )
    parser.add_argument(
        "--no-auth", action="store_true", help="HTTP without API keys (development only)"
    )
    add_limit_arguments(parser)  # HTTP only: serve's limits
    parser.add_argument(
        "--tools", default="default",
        help="default (remember, recall, forget, status), all, or a comma list of tool names",
    )  # fmt: skip
    parser.add_argument(
        "--files-root", type=Path, default=None,
        help="remember(path=...) reads only files under it; default: the current folder",
    )  # fmt: skip
    parser.add_argument(
        "--log-level", default="warning", choices=("debug", "info", "warning", "error", "critical"),
        help="default: warning",
    )  # fmt: skip


def serve(args: argparse.Namespace) -> int:
    from recall_engine.mcp.transports import serve as run

    return run(args)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recall_engine.mcp", description=__doc__)
    parser.add_argument("--data-dir", default=None, help="default: $RECALL_ENGINE_DATA_DIR")
    parser.add_argument("--tenant", default=None, help="default: $RECALL_ENGINE_TENANT")
    add_arguments(parser)
    return serve(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
