"""``python -m recall_engine.server`` (also ``recall-engine serve``): run the HTTP server.

API keys: ``--api-key TENANT=KEY`` (repeatable) and ``--admin-key KEY`` (every
tenant), or ``RECALL_ENGINE_API_KEYS="t1=key1,t2=key2"`` and
``RECALL_ENGINE_ADMIN_KEY``. Keys are stored hashed in the data dir's registry
and stay valid across restarts. ``--no-auth`` turns authentication off for
local development only.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import sys
from collections.abc import Callable, Sequence

NO_AUTH_BANNER = """
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
!!  recall-engine serve --no-auth: AUTHENTICATION IS OFF.             !!
!!  Anyone who can reach {where} can read and write EVERY tenant.
!!  Use this for local development only.                              !!
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
"""


def _whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high]; argparse reports anything else."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    return parse


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (off) or a positive number, got {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="default: 127.0.0.1")
    parser.add_argument("--port", type=_whole(0, 65535), default=8000, help="default: 8000")
    parser.add_argument("--no-auth", action="store_true", help="no API keys (development only)")
    parser.add_argument(
        "--api-key", action="append", default=[], metavar="TENANT=KEY", help="a tenant's key"
    )
    parser.add_argument("--admin-key", action="append", default=[], help="a key for every tenant")
    parser.add_argument("--max-body-bytes", type=_whole(1), default=None, help="default: 16 MiB")
    parser.add_argument(
        "--rate-limit", type=_rate, default=200.0, help="requests/s per key (0: off)"
    )
    parser.add_argument("--burst", type=_whole(1), default=400, help="token bucket size per key")
    parser.add_argument(
        "--log-level", default="info", choices=("critical", "error", "warning", "info", "debug")
    )


def _keys(args: argparse.Namespace) -> tuple[list[tuple[str, str]], list[str]]:
    pairs = list(args.api_key)
    pairs += [p for p in os.environ.get("RECALL_ENGINE_API_KEYS", "").split(",") if p.strip()]
    tenant_keys = []
    for pair in pairs:
        tenant, sep, key = pair.strip().partition("=")
        if not sep or not tenant or not key:
            raise SystemExit(f"error: --api-key takes TENANT=KEY, got {pair!r}")
        tenant_keys.append((tenant, key))
    admin = list(args.admin_key)
    if os.environ.get("RECALL_ENGINE_ADMIN_KEY"):
        admin.append(os.environ["RECALL_ENGINE_ADMIN_KEY"])
    return tenant_keys, admin


def serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted; returns the exit status."""
    import uvicorn

    from recall_engine.engine import RecallEngine
    from recall_engine.server.app import DEFAULT_MAX_BODY_BYTES, ServerSettings, create_app
    from recall_engine.tenants.registry import ADMIN

    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    engine = RecallEngine(getattr(args, "data_dir", None))
    registry = engine.tenants.registry
    tenant_keys, admin_keys = _keys(args)
    try:
        for tenant, key in tenant_keys:
            registry.add_key(key, tenant)
        for key in admin_keys:
            registry.add_key(key, ADMIN)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from None
    if args.no_auth:
        banner = NO_AUTH_BANNER.format(where=f"http://{args.host}:{args.port}")
        print(banner, file=sys.stderr, flush=True)
        logging.getLogger("recall_engine.server").warning("authentication is OFF (--no-auth)")
    elif not registry.has_keys():
        print(
            "warning: no API keys are configured, so every request will get 401; pass "
            "--api-key TENANT=KEY or --admin-key KEY (or --no-auth for local development).",
            file=sys.stderr,
        )
    settings = ServerSettings(
        auth=not args.no_auth,
        max_body_bytes=args.max_body_bytes or DEFAULT_MAX_BODY_BYTES,
        rate=args.rate_limit,
        burst=args.burst,
    )
    app = create_app(engine, settings)
    try:
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            ws="none",
            lifespan="off",
        )
    finally:
        engine.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from recall_engine.core.errors import RecallEngineError

    parser = argparse.ArgumentParser(prog="python -m recall_engine.server", description=__doc__)
    parser.add_argument("--data-dir", default=None, help="default: $RECALL_ENGINE_DATA_DIR")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return serve(args)
    except RecallEngineError as exc:  # a bad data dir or configuration: no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError | TypeError) else 1


if __name__ == "__main__":
    sys.exit(main())
