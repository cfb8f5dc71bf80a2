"""A guard that refuses every connection leaving the local machine.

Tests install it for the whole session so that no code path (litellm price
maps, a mis-set ``api_base``, a hub download) can reach a real provider.
Loopback (127.0.0.0/8, ::1, ``localhost``) and Unix sockets stay allowed.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class NetworkBlockedError(ConnectionRefusedError):
    """A connection to a non-local address was attempted while the guard was on."""


_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})

_lock = threading.Lock()
_depth = 0
_originals: dict[str, Any] = {}


def _is_local_host(host: object) -> bool:
    if host is None or host == "":
        return True  # bind-style lookups of the wildcard address
    raw = host.decode("ascii", "replace") if isinstance(host, bytes) else host
    name = str(raw).strip("[]").split("%", 1)[0].lower()
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _check_address(address: object) -> None:
    if isinstance(address, (str, bytes)):
        return  # AF_UNIX path
    if isinstance(address, tuple) and address and not _is_local_host(address[0]):
        raise NetworkBlockedError(
            f"Network access to {address[0]!r} is blocked (recall_engine network guard): "
            "tests may only talk to 127.0.0.1; use recall_engine.testing.FakeLLMServer."
        )


def _guarded_connect(self: socket.socket, address: object) -> None:
    _check_address(address)
    return _originals["connect"](self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    _check_address(address)
    return int(_originals["connect_ex"](self, address))


def _guarded_create_connection(address: object, *args: object, **kwargs: object) -> socket.socket:
    _check_address(address)
    return _originals["create_connection"](address, *args, **kwargs)  # type: ignore[no-any-return]


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    _check_address((host, 0))
    return _originals["getaddrinfo"](host, *args, **kwargs)


def install_network_guard() -> None:
    """Patch ``socket`` so non-local connects and lookups raise ``NetworkBlockedError``.

    Calls nest: each install needs one ``uninstall_network_guard()``.
    """
    global _depth
    with _lock:
        _depth += 1
        if _depth > 1:
            return
        _originals.update(
            connect=socket.socket.connect,
            connect_ex=socket.socket.connect_ex,
            create_connection=socket.create_connection,
            getaddrinfo=socket.getaddrinfo,
        )
        socket.socket.connect = _guarded_connect  # type: ignore[method-assign,assignment]
        socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign,assignment]
        socket.create_connection = _guarded_create_connection
        socket.getaddrinfo = _guarded_getaddrinfo


def uninstall_network_guard() -> None:
    """Undo one ``install_network_guard()``; the last one restores ``socket``."""
    global _depth
    with _lock:
        if _depth == 0:
            return
        _depth -= 1
        if _depth > 0:
            return
        socket.socket.connect = _originals["connect"]  # type: ignore[method-assign,assignment]
        socket.socket.connect_ex = _originals["connect_ex"]  # type: ignore[method-assign,assignment]
        socket.create_connection = _originals["create_connection"]
        socket.getaddrinfo = _originals["getaddrinfo"]
        _originals.clear()


def network_guard_installed() -> bool:
    return _depth > 0


@contextmanager
def block_network() -> Iterator[None]:
    """Within the block, only loopback connections are allowed."""
    install_network_guard()
    try:
        yield
    finally:
        uninstall_network_guard()
