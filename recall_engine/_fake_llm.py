"""An OpenAI-compatible chat-completions server for tests (public via ``recall_engine.testing``).

Standard library only: ``http.server`` in a daemon thread on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ScriptedReply:
    """One scripted answer. Build with the class methods; ``content`` is the reply text."""

    content: str = ""
    status: int = 200
    body: bytes | None = None  # raw body, sent as is (overrides content)
    delay_s: float = 0.0
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def text(cls, content: str, *, delay_s: float = 0.0) -> ScriptedReply:
        return cls(content=content, delay_s=delay_s)

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "scripted failure",
        *,
        error_type: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> ScriptedReply:
        """An OpenAI-style error envelope, e.g. ``error(429, error_type="budget_exceeded")``."""
        err = {"message": message, "type": error_type or _ERROR_TYPES.get(status, "api_error")}
        err["code"] = err["type"]
        payload = json.dumps({"error": err}).encode()
        return cls(status=status, body=payload, headers=tuple((headers or {}).items()))

    @classmethod
    def slow(cls, delay_s: float, content: str = "late answer") -> ScriptedReply:
        return cls(content=content, delay_s=delay_s)

    @classmethod
    def malformed(cls) -> ScriptedReply:
        """A 200 whose body is not JSON."""
        return cls(body=b'{"id": "chatcmpl-broken", "choices": [ {oops')


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "insufficient_quota",
    404: "model_not_found",
    429: "rate_limit_exceeded",
}

Script = str | ScriptedReply | Callable[[dict[str, object]], "str | ScriptedReply"]


@dataclass
class RecordedRequest:
    """One request the fake server got; header names are lowercased."""

    path: str
    headers: dict[str, str]
    json: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, object]]:
        return list(self.json.get("messages", []))

    def message(self, role: str) -> str | None:
        """The content of the first message with ``role``, or None."""
        for msg in self.messages:
            if msg.get("role") == role:
                content = msg.get("content")
                return content if isinstance(content, str) else json.dumps(content)
        return None


@dataclass
class _State:
    script: deque[Script] = field(default_factory=deque)
    requests: list[RecordedRequest] = field(default_factory=list)
    default: Script = "This is a fake answer."
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _count_tokens(text: str) -> int:
    return len(text.split())


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeLLM/1.0"
    state: _State  # set on the subclass built per server

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            payload = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            payload = {"_unparsed": raw.decode("utf-8", "replace")}
        path = self.path.split("?", 1)[0].rstrip("/")
        with self.state.lock:
            self.state.requests.append(
                RecordedRequest(path, {k.lower(): v for k, v in self.headers.items()}, payload)
            )
            script = self.state.script.popleft() if self.state.script else self.state.default
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._send(ScriptedReply.error(404, f"no route {path}", error_type="not_found"))
            return
        reply = script(payload) if callable(script) else script
        if isinstance(reply, str):
            reply = ScriptedReply.text(reply)
        if reply.delay_s and self.state.stopping.wait(reply.delay_s):
            return
        if reply.body is None and reply.status == 200 and payload.get("stream"):
            self._stream(payload, reply.content)
        else:
            self._send(reply, payload)

    def _completion(self, payload: dict[str, Any], content: str) -> dict[str, Any]:
        prompt = " ".join(str(m.get("content", "")) for m in payload.get("messages", []))
        prompt_tokens, completion_tokens = _count_tokens(prompt), _count_tokens(content)
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": payload.get("model", "fake-model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _send(self, reply: ScriptedReply, payload: dict[str, object] | None = None) -> None:
        body = reply.body
        if body is None:
            body = json.dumps(self._completion(payload or {}, reply.content)).encode()
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in reply.headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _stream(self, payload: dict[str, Any], content: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        full = self._completion(payload, content)
        base = {k: full[k] for k in ("id", "created", "model")} | {
            "object": "chat.completion.chunk"
        }
        pieces = re.findall(r"\S+\s*", content) or [""]
        for i, piece in enumerate(pieces):
            delta = {"content": piece} | ({"role": "assistant"} if i == 0 else {})
            chunk = base | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        final = base | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        if (payload.get("stream_options") or {}).get("include_usage"):
            final["usage"] = full["usage"]
        self.wfile.write(f"data: {json.dumps(final)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class FakeLLMServer:
    """An OpenAI-compatible chat-completions server on 127.0.0.1, on a free port.

    Replies come from a script queue, then from ``default``. A script entry is a
    string (the answer), a ``ScriptedReply`` (a failure, a delay, a raw body) or
    a callable that gets the request JSON and returns either. Usage counts
    whitespace-separated words, so token accounting is predictable.

        with FakeLLMServer() as server:
            server.enqueue("Ulm.", ScriptedReply.error(429), "Ulm.")
            cfg = LLMConfig(model="openai/fake-model", api_base=server.base_url, api_key="test")
    """

    def __init__(self, *replies: Script, default: Script = "This is a fake answer.") -> None:
        self._state = _State(default=default)
        self._state.script.extend(replies)
        handler = type("_BoundHandler", (_Handler,), {"state": self._state})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._state.lock:
            return list(self._state.requests)

    @property
    def last_request(self) -> RecordedRequest:
        reqs = self.requests
        if not reqs:
            raise AssertionError("the fake LLM server has not received any request")
        return reqs[-1]

    def enqueue(self, *replies: Script) -> FakeLLMServer:
        with self._state.lock:
            self._state.script.extend(replies)
        return self

    def reset(self) -> None:
        with self._state.lock:
            self._state.script.clear()
            self._state.requests.clear()

    def start(self) -> FakeLLMServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self._state.stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
