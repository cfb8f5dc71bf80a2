"""Running the MCP server: stdio, or stateless streamable HTTP behind bearer keys.

Over HTTP every request is served on its own (no MCP session is kept), so replicas
on the same stores can sit behind a load balancer. With auth on, a request needs
``Authorization: Bearer <key>`` with a key the data dir's registry knows (the keys
``recall-engine serve --api-key/--admin-key`` stored); a tenant key acts in its
tenant, an admin key in the server's tenant. A missing or unknown key gets 401.
The limits are ``recall-engine serve``'s (``server.auth``): requests per key
(``--rate-limit``, ``--burst``; per address with ``--no-auth``), failed logins per
address and per presented key, ``--trusted-proxy``, and the Redis buckets every
replica shares in the distributed profile; an empty bucket answers 429 with
``Retry-After``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from recall_engine.cli_interrupt import exit_on_interrupt
from recall_engine.core.errors import RecallEngineError
from recall_engine.engine import RecallEngine
from recall_engine.mcp.server import choose_tools, create_server
from recall_engine.mcp.tools import TENANT_STATE, McpSettings
from recall_engine.pipeline.settle import serving_default
from recall_engine.server.app import ServerSettings, authenticator
from recall_engine.server.auth import Authenticator, Principal
from recall_engine.server.errors import ApiError
from recall_engine.telemetry.asgi import TelemetryMiddleware


class BearerKeys:
    """ASGI middleware: refuse HTTP requests without a known key (401) or over a
    limit (429), and pass the key's tenant on to the tools."""

    def __init__(self, app: ASGIApp, auth: Authenticator) -> None:
        self.app = app
        self.auth = auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = list(scope.get("headers") or [])
        header = b"".join(v for k, v in headers if k == b"authorization").decode("latin-1")
        forwarded = [v.decode("latin-1") for k, v in headers if k == b"x-forwarded-for"]
        peer = scope.get("client")
        client = self.auth.addresses(peer[0] if peer else None, forwarded)
        try:
            who = await self._check(header, client)
        except ApiError as exc:
            await _refuse(send, exc)
            return
        scope.setdefault("state", {})[TENANT_STATE] = who.tenant_id
        await self.app(scope, receive, send)

    async def _check(self, header: str, client: str) -> Principal:
        if self.auth.is_local():  # microseconds: on the loop, as the HTTP API does
            return self.auth.check(header, client)
        return await asyncio.to_thread(self.auth.check, header, client)


async def _refuse(send: Send, error: ApiError) -> None:
    message = error.message
    if error.status == 401 and "Bearer" not in message:
        message += " Send 'Authorization: Bearer <key>'."
    body = json.dumps({"error": error.code.lower(), "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in error.headers.items()]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def http_app(
    engine: RecallEngine,
    settings: McpSettings,
    *,
    auth: bool,
    host: str = "127.0.0.1",
    limits: ServerSettings | None = None,
) -> BearerKeys:
    """The ASGI app of the stateless streamable-HTTP endpoint (``/mcp``), behind keys when
    ``auth`` and behind ``limits``' rate limits (rate, burst, trusted proxies, Redis;
    default: ``recall-engine serve``'s defaults, in the engine's Redis when it has one).
    Run it with its lifespan on (the SDK's session manager starts there)."""
    server = create_server(engine, settings)
    app = server.streamable_http_app(stateless_http=True, json_response=True, host=host)
    limits = dataclasses.replace(
        limits or ServerSettings(redis_url=engine.config.redis_url), auth=auth
    )
    return BearerKeys(TelemetryMiddleware(app), authenticator(engine, limits))


def serve(args: argparse.Namespace) -> int:
    """Run ``recall-engine mcp`` (arguments of ``recall_engine.mcp.__main__``) until the
    client hangs up (stdio) or it is interrupted (HTTP); returns the exit status."""
    from recall_engine.server.__main__ import trusted_proxies

    try:
        proxies = trusted_proxies(args)
        engine = RecallEngine(getattr(args, "data_dir", None), settle_heap=serving_default())
        settings = McpSettings(
            tenant_id=engine.tenant_name(getattr(args, "tenant", None)),
            files_root=args.files_root or Path.cwd(),
            tools=choose_tools(args.tools),
            log_level=args.log_level.upper(),
        )
    except RecallEngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.transport == "stdio":
            anyio.run(_serve_stdio, create_server(engine, settings))
            return 0
        limits = ServerSettings(
            rate=args.rate_limit,
            burst=args.burst,
            trusted_proxies=proxies,
            redis_url=engine.config.redis_url,
        )
        return _serve_http(engine, settings, args, limits)
    finally:
        engine.close()


async def _serve_stdio(server: MCPServer) -> None:
    """Serve over stdio until the client hangs up. Ctrl-C ends the process at once
    (``cli_interrupt``; the SDK reads stdin in a thread that no cancel stops): a
    call in flight then leaves nothing it had not committed."""
    exit_on_interrupt(
        "interrupted: recall-engine mcp stopped; the data dir keeps only what was "
        "committed before (a remember in flight stores nothing)."
    )
    await server.run_stdio_async()


def _serve_http(
    engine: RecallEngine, settings: McpSettings, args: argparse.Namespace, limits: ServerSettings
) -> int:
    import uvicorn

    if args.no_auth:
        print(
            f"warning: recall-engine mcp --no-auth: anyone who can reach "
            f"http://{args.host}:{args.port}/mcp can read and write tenant "
            f"{settings.tenant_id!r}. Use it for local development only.",
            file=sys.stderr,
        )
    elif not engine.tenants.registry.has_keys():
        print(
            "warning: no API keys are stored in this data dir, so every request will get 401; "
            "create one with `recall-engine keys create TENANT` (or `keys create --admin`; "
            "this server accepts it at once), or pass --no-auth for local development.",
            file=sys.stderr,
        )
    app = http_app(engine, settings, auth=not args.no_auth, host=args.host, limits=limits)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws="none",
        proxy_headers=False,  # X-Forwarded-For counts only under --trusted-proxy
    )
    return 0
