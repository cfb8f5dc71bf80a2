"""Loaded by Python at start-up in Cognee's process (``bench.peers`` puts this folder on
its ``PYTHONPATH``): refuse every connection and name lookup that leaves 127.0.0.1, and
append each refused host to the file named by ``PEERS_NET_LOG``, so the report can say
that Cognee's figures were taken offline and what it tried to reach."""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Any

_LOG = os.environ.get("PEERS_NET_LOG")
_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def _local(host: Any) -> bool:
    if host in (None, ""):
        return True
    host = (host.decode() if isinstance(host, bytes) else str(host)).strip("[]").lower()
    if host in ("localhost", "ip6-localhost") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _check(address: Any) -> None:
    if isinstance(address, tuple) and address and not _local(address[0]):
        if _LOG:
            with open(_LOG, "a", encoding="utf-8") as log:
                log.write(f"{address[0]}\n")
        raise ConnectionRefusedError(f"bench.peers runs offline: {address[0]!r} refused")


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check(address)
    return _connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check(address)
    return _connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    _check((host, 0))
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign,assignment]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign,assignment]
socket.getaddrinfo = _guarded_getaddrinfo
