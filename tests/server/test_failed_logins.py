"""Failed logins, driven as an attacker would against a running server: junk keys
from an address never lock a valid key out of it; wrong keys are counted per
address and per key; X-Forwarded-For counts only behind a trusted proxy."""

from __future__ import annotations

import secrets

import pytest

from recall_engine.core.errors import InvalidInputError
from recall_engine.server.addresses import ClientAddress
from recall_engine.server.auth import FAILURE_BURST
from recall_engine.server.ratelimit import TokenBuckets
from tests.server.conftest import ADMIN_KEY, KEYS, LiveServer, error_of


def _no_refill(live: LiveServer) -> None:
    """Failed-login buckets that do not refill while the test runs."""
    auth = live.server.config.app.state.auth
    auth.failures = TokenBuckets(1e-6, FAILURE_BURST)


def _junk(client, forwarded: str | None = None, key: str | None = None) -> int:
    headers = {"Authorization": f"Bearer {key or secrets.token_urlsafe(24)}"}
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
    return client.get("/metrics", headers=headers).status_code


def test_junk_keys_from_an_address_leave_its_valid_keys_served(make_server):
    live = make_server(rate=0)
    _no_refill(live)
    with live.client(None) as attacker:
        codes = [_junk(attacker) for _ in range(25)]
        missing = attacker.get("/metrics")
    assert codes == [401] * FAILURE_BURST + [429] * (25 - FAILURE_BURST)
    assert missing.status_code == 429 and error_of(missing)["error_code"] == "RATE_LIMITED"
    for key in (KEYS["acme"], ADMIN_KEY):
        with live.client(key) as valid:
            assert valid.get("/metrics").status_code == 200
            remembered = valid.post("/api/v1/remember", json={"data": "kept", "tenant_id": "acme"})
            assert remembered.status_code == 200, remembered.text
    with live.client(None) as attacker:  # the address's junk stays refused
        assert _junk(attacker) == 429


def test_a_revoked_key_is_refused_at_once_from_a_throttled_address(make_server):
    live = make_server(rate=0)
    _no_refill(live)
    with live.client(None) as attacker:
        for _ in range(FAILURE_BURST):
            _junk(attacker)
    with live.client(ADMIN_KEY) as admin:
        record = live.engine.tenants.registry.keys("acme")[0]
        revoked = admin.post("/api-keys/revoke_api_key", json={"key_id": record.key_id})
        assert revoked.status_code == 200
    with live.client(KEYS["acme"]) as revoked:
        assert revoked.get("/metrics").status_code == 429


def test_the_forwarded_header_is_ignored_by_default(make_server):
    live = make_server(rate=0)
    _no_refill(live)
    with live.client(None) as attacker:
        codes = [_junk(attacker, forwarded=f"203.0.113.{n}") for n in range(FAILURE_BURST + 1)]
    # Every spoofed address was counted as the peer's: the header picked nothing.
    assert codes == [401] * FAILURE_BURST + [429]


def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(make_server):
    live = make_server(rate=0, trusted_proxies=("127.0.0.1",))
    _no_refill(live)
    with live.client(None) as proxy:
        codes = [_junk(proxy, forwarded="203.0.113.7") for _ in range(FAILURE_BURST + 1)]
        assert codes == [401] * FAILURE_BURST + [429]
        # Another client behind the same proxy is not held back by the first one.
        assert _junk(proxy, forwarded="203.0.113.8") == 401
        # A client cannot escape by writing its own hop to the left: the proxy's
        # right-most entry counts.
        assert _junk(proxy, forwarded="198.51.100.1, 203.0.113.7") == 429
    with live.client(KEYS["globex"]) as valid:
        response = valid.get("/metrics", headers={"X-Forwarded-For": "203.0.113.7"})
        assert response.status_code == 200


def test_one_wrong_key_is_counted_across_addresses(make_server):
    live = make_server(rate=0, trusted_proxies=("127.0.0.0/8",))
    _no_refill(live)
    wrong = secrets.token_urlsafe(24)
    with live.client(None) as proxy:
        codes = [
            _junk(proxy, forwarded=f"203.0.113.{n}", key=wrong) for n in range(FAILURE_BURST + 1)
        ]
        assert codes == [401] * FAILURE_BURST + [429]
        assert _junk(proxy, forwarded="203.0.113.200") == 401  # another key, another address


@pytest.mark.parametrize(
    ("trusted", "peer", "forwarded", "counted"),
    [
        ((), "10.0.0.5", ["198.51.100.1"], "10.0.0.5"),
        (("10.0.0.0/8",), "192.0.2.9", ["198.51.100.1"], "192.0.2.9"),
        (("10.0.0.0/8",), "10.0.0.5", ["198.51.100.1"], "198.51.100.1"),
        (("10.0.0.0/8",), "10.0.0.5", ["6.6.6.6, 198.51.100.1, 10.0.0.4"], "198.51.100.1"),
        (("10.0.0.0/8",), "10.0.0.5", ["6.6.6.6", "198.51.100.1"], "198.51.100.1"),
        (("10.0.0.0/8",), "10.0.0.5", ["10.0.0.3, 10.0.0.4"], "10.0.0.3"),
        (("10.0.0.0/8",), "10.0.0.5", [], "10.0.0.5"),
        (("::1",), "::1", ["2001:db8::7"], "2001:db8::7"),
        (("10.0.0.0/8",), None, ["198.51.100.1"], "unknown"),
    ],
)
def test_client_address(trusted, peer, forwarded, counted):
    assert ClientAddress(trusted)(peer, forwarded) == counted


def test_a_trusted_proxy_must_be_an_address_or_cidr():
    with pytest.raises(InvalidInputError, match=r"'proxy\.local' is not an IP address or CIDR"):
        ClientAddress(["10.0.0.1", "proxy.local"])


def test_serve_refuses_a_bad_trusted_proxy(tmp_path, capsys, monkeypatch):
    from recall_engine.server.__main__ import main

    monkeypatch.setenv("RECALL_ENGINE_TRUSTED_PROXIES", "10.0.0.0/8, 10.0.0.300")
    assert main(["--data-dir", str(tmp_path / "d")]) == 2
    assert "'10.0.0.300' is not an IP address or CIDR" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()
