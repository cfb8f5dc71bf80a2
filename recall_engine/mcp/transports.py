"""Running the MCP server: stdio, or stateless streamable HTTP behind bearer keys.

Over HTTP every request is served on its own (no MCP session is kept), so replicas
on the same stores can sit behind a load balancer. With auth on, a request needs
``Authorization: Bearer <key>`` with a key the data dir's registry knows (the keys
``recall-engine serve --api-key/--admin-key`` stored); a tenant key acts in its
tenant, an admin key in the server's tenant. A missing or unknown key gets 401.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from recall_engine.core.errors import RecallEngineError
from recall_engine.engine import RecallEngine
from recall_engine.mcp.server import choose_tools, create_server
from recall_engine.mcp.tools import TENANT_STATE, McpSettings
from recall_engine.tenants.registry import TenantRegistry


def key_tenant(registry: TenantRegistry, authorization: str) -> str | None:
    """The tenant of a ``Bearer <key>`` header value (``ADMIN`` for an admin key), None
    when the header is missing, not bearer, or the key is unknown."""
    scheme, _, key = authorization.partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key:
        return None
    return registry.key_tenant(key)


class BearerKeys:
    """ASGI middleware: refuse HTTP requests without a known key, pass the key's tenant on."""

    def __init__(self, app: ASGIApp, registry: TenantRegistry) -> None:
        self.app = app
        self.registry = registry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        header = headers.get(b"authorization", b"").decode("latin-1")
        tenant = key_tenant(self.registry, header)
        if tenant is None:
            message = "Invalid API key." if header else "Missing API key."
            body = json.dumps(
                {
                    "error": "unauthorized",
                    "message": message + (" Send 'Authorization: Bearer <key>'."),
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b"Bearer"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        scope.setdefault("state", {})[TENANT_STATE] = tenant
        await self.app(scope, receive, send)


def http_app(
    engine: RecallEngine, settings: McpSettings, *, auth: bool, host: str = "127.0.0.1"
) -> Any:
    """The ASGI app of the stateless streamable-HTTP endpoint (``/mcp``), behind keys when
    ``auth``. Run it with its lifespan on (the SDK's session manager starts there)."""
    server = create_server(engine, settings)
    app = server.streamable_http_app(stateless_http=True, json_response=True, host=host)
    return BearerKeys(app, engine.tenants.registry) if auth else app


def serve(args: argparse.Namespace) -> int:
    """Run ``recall-engine mcp`` (arguments of ``recall_engine.mcp.__main__``) until the
    client hangs up (stdio) or it is interrupted (HTTP); returns the exit status."""
    try:
        engine = RecallEngine(getattr(args, "data_dir", None))
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
            anyio.run(create_server(engine, settings).run_stdio_async)
            return 0
        return _serve_http(engine, settings, args)
    finally:
        engine.close()


def _serve_http(engine: RecallEngine, settings: McpSettings, args: argparse.Namespace) -> int:
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
            "add keys with `recall-engine serve --api-key TENANT=KEY` (or --admin-key KEY), "
            "or pass --no-auth for local development.",
            file=sys.stderr,
        )
    app = http_app(engine, settings, auth=not args.no_auth, host=args.host)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws="none")
    return 0
