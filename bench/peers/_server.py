"""A local OpenAI-compatible server for a peer under test: embeddings and chat.

``/v1/embeddings`` embeds with the engine's own packaged MiniLM (the same model
and runtime our engine uses, so both sides pay the same per-text cost);
``/v1/chat/completions`` answers with ``_scripted.reply_for`` in well under a
millisecond. Standard library HTTP on 127.0.0.1, in a daemon thread. Each
route's request count and the seconds spent serving it are kept, so a report
can say how much of the peer's time was spent here.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections import Counter
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from bench.peers._scripted import reply_for, schema_title
from recall_engine.embedding import Embedder


class PeerServer:
    """Serve ``embedder`` and scripted chat replies on a free port of 127.0.0.1.

    Args:
        embedder: embeds the texts of ``/v1/embeddings`` requests.
        model_name: the model name the replies carry.
    """

    def __init__(self, embedder: Embedder, *, model_name: str = "all-MiniLM-L6-v2") -> None:
        self.embedder = embedder
        self.model_name = model_name
        self.calls: Counter[str] = Counter()
        self.seconds: dict[str, float] = {}
        self.texts_embedded = 0
        self._lock = threading.Lock()
        handler = type("_Bound", (_Handler,), {"owner": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def record(self, route: str, seconds: float, texts: int = 0) -> None:
        with self._lock:
            self.calls[route] += 1
            self.seconds[route] = self.seconds.get(route, 0.0) + seconds
            self.texts_embedded += texts

    def stats(self) -> dict[str, Any]:
        """Requests and serving seconds per route since the last ``reset_stats``."""
        with self._lock:
            return {
                "calls": dict(self.calls),
                "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
                "texts_embedded": self.texts_embedded,
            }

    def reset_stats(self) -> None:
        with self._lock:
            self.calls.clear()
            self.seconds.clear()
            self.texts_embedded = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def __enter__(self) -> PeerServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    owner: PeerServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": self.owner.model_name}]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        started = time.perf_counter()
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"error": {"message": "body is not JSON", "type": "invalid_request"}})
            return
        path = self.path.split("?", 1)[0].rstrip("/")
        if path.endswith("/embeddings"):
            texts = body.get("input", [])
            texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
            reply = self._embeddings(body, texts)
            # Counted before the reply goes out: a client that reads the stats right
            # after its call must see it.
            self.owner.record("embeddings", time.perf_counter() - started, len(texts))
            self._json(200, reply)
        elif path.endswith("/chat/completions"):
            content = reply_for(body)
            self.owner.record(f"chat:{schema_title(body)}", time.perf_counter() - started)
            if body.get("stream"):
                self._stream(body, content)
            else:
                self._json(200, _completion(body, content))
        else:
            self._json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})

    def _embeddings(self, body: dict[str, Any], texts: list[str]) -> dict[str, Any]:
        vectors = self.owner.embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
        as_b64 = body.get("encoding_format") == "base64"
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": (
                    base64.b64encode(v.astype("<f4").tobytes()).decode()
                    if as_b64
                    else [float(x) for x in v]
                ),
            }
            for i, v in enumerate(vectors)
        ]
        tokens = sum(len(t.split()) for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": body.get("model", self.owner.model_name),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        out = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def _stream(self, body: dict[str, Any], content: str) -> None:
        full = _completion(body, content)
        chunk = {k: full[k] for k in ("id", "created", "model")} | {
            "object": "chat.completion.chunk"
        }
        events = [
            chunk | {"choices": [{"index": 0, "delta": {"role": "assistant", "content": content}}]},
            chunk
            | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            | {"usage": full["usage"]},
        ]
        out = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def _completion(body: dict[str, Any], content: str) -> dict[str, Any]:
    prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    completion = len(content.split())
    return {
        "id": "chatcmpl-peer",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }
