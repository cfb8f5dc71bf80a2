"""A request about some sources reads those sources only: fetching one by id reads
the chunks of its item and no other row, a page reads the chunks of its own items;
and what they return is what the full listing holds for them."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants.source_filter import SourceFilter
from tests.conversation_turns import conversation_turn

N = 30


class Reads:
    """The items whose chunks were read, and how many item rows were read."""

    def __init__(self) -> None:
        self.chunks_of: list[str] = []
        self.rows = 0

    def clear(self) -> None:
        self.chunks_of.clear()
        self.rows = 0


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    seen = Reads()
    chunks_of_data = TenantReader.chunks_of_data
    documents = TenantReader.documents

    async def counted_chunks(self: TenantReader, data_ids: Sequence[str]):
        seen.chunks_of += list(data_ids)
        return await chunks_of_data(self, data_ids)

    async def counted_documents(self: TenantReader):
        rows = await documents(self)
        seen.rows += len(rows)
        return rows

    monkeypatch.setattr(TenantReader, "chunks_of_data", counted_chunks)
    monkeypatch.setattr(TenantReader, "documents", counted_documents)
    return seen


@pytest.fixture
async def tenant(engine):
    await engine.create_tenant("acme")
    sources = [
        {
            "id": f"s{n:03d}",
            "title": f"Source {n}",
            "text": f"Source number {n} is about topic {n % 4}.",
            "tenant_metadata": {"team": "red" if n % 3 else "blue"},
        }
        for n in range(N)
    ]
    turns = [
        conversation_turn(0, "We adopted a puppy."),
        conversation_turn(1, "Her name is Pepper."),
    ]
    stored = await engine.upload_knowledge("acme", [*sources, *turns])
    assert stored.success_count == N + 2, stored.results
    return engine


async def test_one_source_by_id_reads_that_source_only(tenant, reads: Reads) -> None:
    everything = await tenant.tenants.list_sources("acme")
    assert len(everything) == N + 2
    reads.clear()
    found = await tenant.tenants.source("acme", "s017")
    want = next(s for s in everything if s["id"] == "s017")
    assert found == {**want, "collection": "kb"}
    assert reads.chunks_of == [want["data_id"]] and reads.rows == 0


async def test_ids_found_as_listed(tenant, reads: Reads) -> None:
    everything = await tenant.tenants.list_sources("acme")
    reads.clear()
    found = await tenant.tenants.find_sources("acme", ["s003", "s021", "nope"])
    assert found == [s for s in everything if s["id"] in {"s003", "s021"}]
    # a turn is found in its conversation, an unknown id costs no other item's chunks
    turn = await tenant.tenants.find_sources("acme", ["t1"])
    assert turn == [s for s in everything if s["id"] == "t1"]
    conversation = turn[0]["data_id"]
    assert set(reads.chunks_of) <= {s["data_id"] for s in found} | {conversation}


async def test_a_page_reads_the_chunks_of_its_items_only(tenant, reads: Reads) -> None:
    everything = await tenant.tenants.list_sources("acme")
    reads.clear()
    listing = await tenant.tenants.listing("acme")
    assert listing.total == len(everything)
    page = await listing.page(5, 10)
    assert page == everything[5:10]
    conversation = next(s["data_id"] for s in everything if s["id"] == "t0")
    # the count reads the conversation's chunks (its turns are sources); the page its own
    assert set(reads.chunks_of) == {s["data_id"] for s in page} | {conversation}
    pages = [await listing.page(at, at + 7) for at in range(0, listing.total, 7)]
    assert [s for p in pages for s in p] == everything


async def test_a_filtered_listing_pages_as_the_full_listing(tenant) -> None:
    everything = await tenant.tenants.list_sources("acme")
    blue = [s for s in everything if s["tenant_metadata"].get("team") == "blue"]
    listing = await tenant.tenants.listing("acme", where=SourceFilter(attributes={"team": "blue"}))
    assert listing.total == len(blue)
    assert await listing.page(2, 6) == blue[2:6]
    by_ids = await tenant.tenants.listing("acme", source_ids=["t1", "s002", "s001", "gone"])
    assert by_ids.total == 3
    assert await by_ids.page(0, 10) == [s for s in everything if s["id"] in {"t1", "s002", "s001"}]
