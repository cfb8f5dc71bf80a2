"""The HTTP side of the remote client: requests through the engine's one connection
pool, errors mapped to the engine's exception classes, a CLIENT span around each
request."""

from __future__ import annotations

from typing import TypeVar, cast

import httpx
from pydantic import BaseModel

from recall_engine.remote.errors import RemoteUnavailableError, error_from_reply
from recall_engine.remote.pool import ConnectionPool
from recall_engine.remote.wire import to_wire
from recall_engine.telemetry.client import client_request

ModelT = TypeVar("ModelT", bound=BaseModel)


class RemoteTransport:
    """Sends the remote client's requests; the client sets these attributes."""

    url: str
    _pool: ConnectionPool

    def close(self) -> None:
        """Close the connections once the calls in flight have finished (the engine
        opens new ones if used again); from sync code or any thread."""
        self._pool.close()

    async def aclose(self) -> None:
        """``close()`` for async code, on any event loop."""
        await self._pool.aclose()

    async def _send(
        self,
        method: str,
        path: str,
        *,
        json: object = None,
        params: dict[str, str | list[str]] | None = None,
    ) -> object:
        with client_request(method, self.url, path) as (span, trace_headers):
            reply = await self._request(method, path, json, params, trace_headers or None)
            span.set("http.response.status_code", reply.status_code)
            if reply.status_code >= 400:
                span.fail(reply.headers.get("x-recall-error") or str(reply.status_code))
        try:
            body: object = reply.json()
        except ValueError:
            body = None
        if reply.status_code >= 400:
            raise error_from_reply(reply.status_code, body, reply.headers.get("x-recall-error"))
        return body

    async def _request(
        self,
        method: str,
        path: str,
        json: object,
        params: dict[str, str | list[str]] | None,
        headers: dict[str, str] | None,
    ) -> httpx.Response:
        """One HTTP exchange; an unreachable or silent server as RemoteUnavailableError."""
        try:
            return await self._pool.send(
                lambda client: client.request(
                    method, path, json=json, params=params, headers=headers
                )
            )
        except httpx.TimeoutException:
            raise RemoteUnavailableError(
                f"The recall-engine server at {self.url} did not answer in time; "
                "check that it is running, or pass a larger timeout_s."
            ) from None
        except httpx.TransportError as exc:
            raise RemoteUnavailableError(
                f"Cannot reach the recall-engine server at {self.url} ({type(exc).__name__}); "
                "start it with `recall-engine serve` or check the URL."
            ) from None

    async def _call(self, name: str, *args: object, **kwargs: object) -> object:
        payload = {"args": to_wire(list(args)), "kwargs": to_wire(kwargs)}
        body = await self._send("POST", f"/api/v1/engine/{name}", json=payload)
        return cast("dict[str, object]", body)["result"]

    async def _post(self, path: str, model: type[ModelT], body: object) -> ModelT:
        return model.model_validate(await self._send("POST", path, json=to_wire(body)))
