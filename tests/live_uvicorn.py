"""A real uvicorn server on 127.0.0.1 in a thread of the test process."""

from __future__ import annotations

import socket
import threading
import time

import uvicorn


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_in_thread(app: object) -> tuple[int, uvicorn.Server, threading.Thread]:
    """Serve ``app`` on a free port; returns once the server accepts connections."""
    port = free_port()
    config = uvicorn.Config(
        app,  # type: ignore[arg-type]
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws="none",
        lifespan="off",
        proxy_headers=False,  # as `recall-engine serve` runs it: the app reads the header
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    return port, server, thread
