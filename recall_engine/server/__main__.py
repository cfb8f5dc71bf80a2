"""``python -m recall_engine.server`` (also ``recall-engine serve``): run the HTTP server.

API keys live in the data dir's key store (digests only) and are managed with
``recall-engine keys create|list|revoke|rotate`` or the admin endpoints
(``/api-keys/...``). ``--api-key TENANT=KEY`` (repeatable) and ``--admin-key
KEY``, or ``RECALL_ENGINE_API_KEYS="t1=key1,t2=key2"`` and
``RECALL_ENGINE_ADMIN_KEY``, seed a key store that never had a key; on one that
has, they must name keys it holds (so restarting with the same flags works) and
the server refuses to start otherwise: a revoked or rotated key never comes
back from a flag. ``--no-auth`` turns authentication off for local development.

Behind a reverse proxy every client reaches the server from the proxy's address;
``--trusted-proxy ADDRESS_OR_CIDR`` (repeatable) or
``RECALL_ENGINE_TRUSTED_PROXIES`` (a comma list) make rate limits count the
client that the proxy names in ``X-Forwarded-For`` (off by default: the header
is ignored).

One process holds a data dir: a second server (or any other process) on it
exits at start with the holder's pid. SIGTERM shuts down gracefully, releases
the data dir and exits with status 143.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import signal
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

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
        "--api-key",
        action="append",
        default=[],
        metavar="TENANT=KEY",
        help="seed an empty key store with a tenant's key (see `keys`)",
    )
    parser.add_argument(
        "--admin-key",
        action="append",
        default=[],
        metavar="KEY",
        help="seed an empty key store with an admin key (every tenant)",
    )
    parser.add_argument("--max-body-bytes", type=_whole(1), default=None, help="default: 16 MiB")
    add_limit_arguments(parser)
    parser.add_argument(
        "--log-level", default="info", choices=("critical", "error", "warning", "info", "debug")
    )


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """The rate-limit flags that ``serve`` and ``mcp`` (over HTTP) share."""
    parser.add_argument(
        "--rate-limit", type=_rate, default=200.0, help="requests/s per key (0: off)"
    )
    parser.add_argument("--burst", type=_whole(1), default=400, help="token bucket size per key")
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS_OR_CIDR",
        help="a reverse proxy whose X-Forwarded-For names the client (repeatable; "
        "also $RECALL_ENGINE_TRUSTED_PROXIES); default: none, the header is ignored",
    )


def trusted_proxies(args: argparse.Namespace) -> tuple[str, ...]:
    """``--trusted-proxy`` entries and ``RECALL_ENGINE_TRUSTED_PROXIES``'s, checked.

    Raises:
        InvalidInputError: an entry that is not an IP address or CIDR.
    """
    from recall_engine.server.addresses import ENV_VAR, parse_networks, split_list

    entries = [*getattr(args, "trusted_proxy", []), *split_list(os.environ.get(ENV_VAR, ""))]
    parse_networks(entries)
    return tuple(entries)


def _keys(args: argparse.Namespace) -> tuple[list[tuple[str, str]], list[str]]:
    from recall_engine.tenants.keystore import ADMIN

    pairs = list(args.api_key)
    pairs += [p for p in os.environ.get("RECALL_ENGINE_API_KEYS", "").split(",") if p.strip()]
    tenant_keys = []
    for n, pair in enumerate(pairs, 1):
        tenant, sep, key = pair.strip().partition("=")
        if not sep or not tenant or not key:  # the entry may hold a key: never echo it
            raise SystemExit(
                f"error: --api-key and RECALL_ENGINE_API_KEYS take TENANT=KEY; entry {n} "
                "has no tenant, no '=' or no key."
            )
        if tenant == ADMIN:  # the key store's "every tenant": an admin key
            raise SystemExit(
                f"error: entry {n} of --api-key / RECALL_ENGINE_API_KEYS names tenant {ADMIN!r}, "
                "which is reserved for admin keys; pass the key with --admin-key instead."
            )
        _refuse_weak(key, f"the key for tenant {tenant[:40]!r}")
        tenant_keys.append((tenant, key))
    admin = list(args.admin_key)
    if os.environ.get("RECALL_ENGINE_ADMIN_KEY"):
        admin.append(os.environ["RECALL_ENGINE_ADMIN_KEY"])
    for key in admin:
        _refuse_weak(key, "an admin key")
    return tenant_keys, admin


MIN_DISTINCT_KEY_CHARS = 6
MIN_KEY_BITS = 36.0
"""A given key's least estimated entropy: its length times the Shannon entropy of
its characters (a random 16-character hex key estimates at about 50)."""


def key_weakness(key: str) -> str | None:
    """Why ``key`` is too easy to guess (few distinct characters, a repeated
    pattern, too little estimated entropy), or None. Never quotes the key."""
    counts = Counter(key)
    if len(counts) < MIN_DISTINCT_KEY_CHARS:
        return (
            f"it has {len(counts)} distinct characters (at least {MIN_DISTINCT_KEY_CHARS} needed)"
        )
    if key in (key + key)[1:-1]:
        return "it repeats a shorter pattern"
    bits = -sum(n * math.log2(n / len(key)) for n in counts.values())
    if bits < MIN_KEY_BITS:
        return f"its characters carry about {bits:.0f} bits (at least {MIN_KEY_BITS:.0f} needed)"
    return None


def _refuse_weak(key: str, who: str) -> None:
    reason = key_weakness(key)
    if reason is not None:  # the message never holds the key
        raise SystemExit(
            f"error: {who} given by a flag or environment variable is too easy to guess: "
            f"{reason}. Use a random key: `recall-engine keys create` makes one, or "
            "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`."
        )


class _Terminated(BaseException):
    """SIGTERM arrived: unwind, so that the engine releases the data dir."""


@contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """While serving, SIGTERM unwinds the stack and exits with status 143.

    uvicorn shuts down gracefully on SIGTERM and then raises the signal again
    with the handler it found; with the default one the process would die before
    ``engine.close()`` and atexit ran, and the holder file would stay behind.
    """

    def unwind(signum: int, frame: object) -> None:
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, unwind)
    try:
        yield
    except _Terminated:
        raise SystemExit(128 + signal.SIGTERM) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def _reach_redis(url: str | None) -> None:
    """Raises StoreError when the replicas' Redis (``redis_url``) does not answer."""
    if url is None:
        return
    from recall_engine.state.redis_store import RedisStore

    store = RedisStore(url)
    try:
        store.ping()
    finally:
        store.close()


def serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted; returns the exit status.

    A data dir that another process holds (or a bad configuration) ends it at
    start with a one-line message and status 1 (2 for a usage error).
    """
    with _sigterm_unwinds():
        return _serve(args)


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from recall_engine.core.errors import RecallEngineError
    from recall_engine.engine import RecallEngine
    from recall_engine.pipeline.settle import serving_default
    from recall_engine.server.app import DEFAULT_MAX_BODY_BYTES, ServerSettings, create_app
    from recall_engine.tenants.registry import ADMIN

    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    tenant_keys, admin_keys = _keys(args)
    proxies = trusted_proxies(args)
    try:
        engine = RecallEngine(getattr(args, "data_dir", None), settle_heap=serving_default())
    except RecallEngineError as exc:  # e.g. StoreLockedError: one line, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError | TypeError) else 1
    try:  # every request's rate limit asks it: unreachable, the replica would only answer 503
        _reach_redis(engine.config.redis_url)
    except RecallEngineError as exc:
        engine.close()
        print(f"error: {exc}", file=sys.stderr)
        return 1
    registry = engine.tenants.registry
    # Seeded (or refused) by the process that holds the data dir, before it serves.
    try:
        registry.seed([*tenant_keys, *((ADMIN, key) for key in admin_keys)])
    except ValueError as exc:
        engine.close()
        raise SystemExit(f"error: {exc}") from None
    if args.no_auth:
        banner = NO_AUTH_BANNER.format(where=f"http://{args.host}:{args.port}")
        print(banner, file=sys.stderr, flush=True)
        logging.getLogger("recall_engine.server").warning("authentication is OFF (--no-auth)")
    elif not registry.has_keys():
        print(
            "warning: the key store holds no API keys, so every request will get 401; create "
            "one with `recall-engine keys create --admin` (or seed an empty store with "
            "--admin-key KEY), or use --no-auth for local development.",
            file=sys.stderr,
        )
    settings = ServerSettings(
        auth=not args.no_auth,
        max_body_bytes=args.max_body_bytes or DEFAULT_MAX_BODY_BYTES,
        rate=args.rate_limit,
        burst=args.burst,
        trusted_proxies=proxies,
        redis_url=engine.config.redis_url,
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
            # X-Forwarded-For would let a local client pick the address that the
            # failed-auth limiter counts; a proxy deployment opts in with
            # --trusted-proxy, read by the authenticator (server.addresses).
            proxy_headers=False,
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
