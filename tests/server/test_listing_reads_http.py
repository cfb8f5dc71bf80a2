"""v1 and v2 listings over HTTP read one page of item rows, however many items the
collection holds (``tests/tenants/test_listing_reads.py`` checks every page); by ids
or with a filter, the rows of those ids or holding those values; and they list
alike on both graph backends."""

from __future__ import annotations

import json

from tests.conversation_turns import conversation_turn
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


def test_http_listings_by_ids_and_filters_read_their_rows(live: LiveServer, rows: Rows) -> None:
    with live.client(KEYS["acme"]) as http:
        http.post("/databases", json={"database": "acme"}).raise_for_status()
        sources = [source(n, 2000 + n) for n in range(N)]
        stored = http.post(
            "/context/ingest", json={"database": "acme", "app_knowledge": json.dumps(sources)}
        )
        assert stored.json()["data"]["success_count"] == N, stored.text
        ids = [f"s{n:03d}" for n in (33, 4, 18, 27, 9)]
        in_order = sorted(ids)
        team = [f"s{n:03d}" for n in range(N) if n % 5 == 2]
        for path, body, want in [
            ("/list/data", {"tenant_id": "acme", "source_ids": ids}, in_order),
            ("/context/list", {"database": "acme", "ids": ids}, in_order),
            (
                "/list/data",
                {"tenant_id": "acme", "filters": {"tenant_metadata": {"team": "t2"}}},
                team,
            ),
            ("/context/list", {"database": "acme", "filters": {"metadata": {"team": "t2"}}}, team),
        ]:
            rows.read, rows.chunks_of = 0, []
            reply = http.post(path, json=body)
            assert reply.status_code == 200, reply.text
            data = reply.json().get("data", reply.json())
            assert [s["id"] for s in data["sources"]] == want, body
            assert rows.read == len(want), (body, rows.read)
            assert len(rows.chunks_of) == len(want), (body, rows.chunks_of)


def test_listings_by_ids_and_filters_list_alike_in_both_profiles(
    live_in_both_profiles: LiveServer,
) -> None:
    turns = [conversation_turn(n, f"Turn {n} of the chat.") for n in range(3)]
    sources = [source(n, 2000 + n) for n in range(12)]
    with live_in_both_profiles.client(KEYS["acme"]) as http:
        http.post("/databases", json={"database": "acme"}).raise_for_status()
        for part in (sources[:6], turns, sources[6:]):
            stored = http.post(
                "/context/ingest", json={"database": "acme", "app_knowledge": json.dumps(part)}
            )
            assert stored.json()["data"]["success_count"] == len(part), stored.text
        everything = http.post("/list/data", json={"tenant_id": "acme"}).json()["sources"]
        assert len(everything) == 15

        def v1(**body: object) -> list[str]:
            reply = http.post("/list/data", json={"tenant_id": "acme", **body})
            assert reply.status_code == 200, reply.text
            return [s["id"] for s in reply.json()["sources"]]

        def v2(**body: object) -> list[str]:
            reply = http.post("/context/list", json={"database": "acme", **body})
            assert reply.status_code == 200, reply.text
            return [s["id"] for s in reply.json()["data"]["sources"]]

        ids = ["s011", "t2", "s003", "t0", "none"]
        want = [s["id"] for s in everything if s["id"] in ids]
        assert v1(source_ids=ids) == want == v2(ids=ids)
        want = [s["id"] for s in everything if s["tenant_metadata"].get("team") == "t3"]
        assert want and v1(filters={"tenant_metadata": {"team": "t3"}}) == want
        assert v2(filters={"metadata": {"team": "t3"}}) == want
        want = [s["id"] for s in everything if s["type"] == "conversation"]
        assert v1(filters={"source_fields": {"type": "conversation"}}) == want == ["t0", "t1", "t2"]
        want = [s["id"] for s in everything if s["type"] == "note" and s["id"] in ids]
        assert v2(ids=ids, filters={"source_fields": {"type": "note"}}) == want == ["s003", "s011"]
        assert v1(filters={"document_metadata": {"rank": 2}}) == [
            s["id"] for s in everything if s["document_metadata"].get("rank") == 2
        ]
