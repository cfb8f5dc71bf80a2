"""The client address that rate limits count: the TCP peer, or, behind trusted
reverse proxies, the right-most ``X-Forwarded-For`` hop that is not one of them.

Off by default: with no trusted proxy the header is ignored, so a client cannot
pick the address it is counted under. ``--trusted-proxy ADDRESS_OR_CIDR``
(repeatable) or ``RECALL_ENGINE_TRUSTED_PROXIES="10.0.0.0/8,127.0.0.1"`` name the
proxies; a request whose peer is one of them is counted under the address its
proxies saw. Hops are read right to left (each proxy appends the address it was
reached from), so the left-most entries, which a client may write, only count
when every hop to their right is a trusted proxy.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

from recall_engine.core.errors import InvalidInputError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

ENV_VAR = "RECALL_ENGINE_TRUSTED_PROXIES"


def parse_networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or CIDRs (``127.0.0.1``, ``10.0.0.0/8``, ``::1``) as networks.

    Raises:
        InvalidInputError: an entry that is neither (named in the message).
    """
    networks = []
    for entry in (e.strip() for e in entries):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise InvalidInputError(
                f"trusted proxy {entry[:60]!r} is not an IP address or CIDR; write e.g. "
                "127.0.0.1, 10.0.0.0/8 or ::1."
            ) from None
    return tuple(networks)


def split_list(text: str) -> list[str]:
    """A comma or space separated list (the environment variable's form)."""
    return [part for part in text.replace(",", " ").split() if part]


class ClientAddress:
    """Which address a request counts under.

    Args:
        trusted: the reverse proxies (addresses or CIDRs) whose ``X-Forwarded-For``
            is believed; empty: the header is ignored.

    Raises:
        InvalidInputError: an entry of ``trusted`` that is not an address or CIDR.
    """

    def __init__(self, trusted: Iterable[str] = ()) -> None:
        self.trusted = parse_networks(trusted)

    def _is_trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)

    def __call__(self, peer: str | None, forwarded_for: Sequence[str] = ()) -> str:
        """The address to count: ``peer`` unless it is a trusted proxy, else the
        right-most untrusted hop of the ``X-Forwarded-For`` values (left-most when
        every hop is trusted)."""
        peer = peer or "unknown"
        if not self.trusted or not self._is_trusted(peer):
            return peer
        hops = [h.strip() for value in forwarded_for for h in value.split(",") if h.strip()]
        for hop in reversed(hops):
            if not self._is_trusted(hop):
                return hop[:64]  # a proxy's own words, bounded as a bucket key
        return hops[0][:64] if hops else peer
