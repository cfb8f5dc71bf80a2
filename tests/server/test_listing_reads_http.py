"""v1 and v2 listings over HTTP read one page of item rows, however many items the
collection holds (``tests/tenants/test_listing_reads.py`` checks every page)."""

from __future__ import annotations

import json

from tests.server.conftest import KEYS, LiveServer
from tests.tenants.test_listing_reads import N, Rows, rows, source

__all__ = ["rows"]  # the fixture, shared


def test_an_http_page_reads_one_page_of_rows(live: LiveServer, rows: Rows) -> None:
    with live.client(KEYS["acme"]) as http:
        http.post("/databases", json={"database": "acme"}).raise_for_status()
        sources = [source(n, 2000 + n) for n in range(N)]
        stored = http.post(
            "/context/ingest", json={"database": "acme", "app_knowledge": json.dumps(sources)}
        )
        assert stored.json()["data"]["success_count"] == N, stored.text
        rows.read = 0
        v2 = http.post("/context/list", json={"database": "acme", "page": 3, "page_size": 5})
        assert v2.status_code == 200, v2.text
        assert [s["id"] for s in v2.json()["data"]["sources"]] == [
            f"s{n:03d}" for n in range(10, 15)
        ]
        assert v2.json()["data"]["pagination"]["total"] == N
        assert rows.read == 5
        rows.read = 0
        v1 = http.post("/list/data", json={"tenant_id": "acme", "page": 2, "page_size": 4})
        assert v1.status_code == 200, v1.text
        assert [s["id"] for s in v1.json()["sources"]] == [f"s{n:03d}" for n in range(4, 8)]
        assert v1.json()["total"] == N and rows.read == 4
