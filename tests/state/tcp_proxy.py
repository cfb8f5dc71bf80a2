"""A TCP forwarder on 127.0.0.1 that a test can break and mend, to play a server
that goes away under a client (the machine's own servers cannot be stopped):

    with TcpProxy(5432) as proxy:       # forwards 127.0.0.1:<proxy.port> -> :5432
        ...                             # the client talks to proxy.port
        proxy.down()                    # open connections reset, new ones refused
        proxy.stall()                   # connections accepted, nothing forwarded either way
        proxy.up()                      # forwarding again (stalled connections resume)

Each accepted connection is served by one thread that copies bytes both ways
with ``select``; stalled bytes stay in the kernel buffers until ``up``.
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
import threading
from types import TracebackType
from typing import Literal

Mode = Literal["up", "down", "stall"]
_TICK_S = 0.05


class TcpProxy:
    """Forwards connections to ``127.0.0.1:target_port`` from a free local port."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.mode: Mode = "up"
        self.accepted = 0
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        self._closed = threading.Event()
        self._listener: socket.socket | None = None
        self.port = self._listen(0)
        self._acceptor = threading.Thread(target=self._accept_loop, daemon=True)
        self._acceptor.start()

    def _listen(self, port: int) -> int:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        for _ in range(100):  # the accept thread may still hold the old listener a moment
            try:
                listener.bind(("127.0.0.1", port))
                break
            except OSError:
                if port == 0:
                    raise
                self._closed.wait(_TICK_S)
        else:
            listener.bind(("127.0.0.1", port))
        listener.listen(64)
        listener.settimeout(_TICK_S)
        self._listener = listener
        return int(listener.getsockname()[1])

    def __enter__(self) -> TcpProxy:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def up(self) -> None:
        """Forward again, listening on the same port if ``down`` closed it."""
        with self._lock:
            if self._listener is None:
                self._listen(self.port)
            self.mode = "up"

    def stall(self) -> None:
        """Accept and keep connections, forward nothing (a hung or blackholed server)."""
        with self._lock:
            if self._listener is None:
                self._listen(self.port)
            self.mode = "stall"

    def down(self) -> None:
        """Reset every open connection and refuse new ones (a stopped server)."""
        with self._lock:
            self.mode = "down"
            if self._listener is not None:
                self._listener.close()
                self._listener = None
            conns, self._conns = self._conns, []
        for conn in conns:
            _reset(conn)

    def close(self) -> None:
        self.down()
        self._closed.set()
        self._acceptor.join()

    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            listener = self._listener
            if listener is None:
                self._closed.wait(_TICK_S)
                continue
            try:
                client, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                self._conns += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()

    def _pipe(self, client: socket.socket, upstream: socket.socket) -> None:
        peer = {client: upstream, upstream: client}
        try:
            while not self._closed.is_set():
                if self.mode == "down":
                    return
                if self.mode == "stall":
                    self._closed.wait(_TICK_S)
                    continue
                readable, _, _ = select.select(list(peer), [], [], _TICK_S)
                for sock in readable:
                    if self.mode != "up":
                        break
                    data = sock.recv(65536)
                    if not data:
                        return
                    peer[sock].sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for sock in (client, upstream):
                _reset(sock)


def _reset(sock: socket.socket) -> None:
    """Close ``sock`` with a reset (as a server that died), not a polite FIN."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.close()
