"""A listing page costs what one page costs: the rows are ordered, counted and cut in
the store, so a page of ``k`` sources reads about ``k`` item rows (and the rows of
grouped conversations, whose turns are sources of their own), however many items
the collection holds; and every page holds what the full listing holds there. A
listing by ids reads the rows of those ids, a filtered one the rows the store finds
holding its values, and neither reads any item's chunks but the conversations'."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from recall_engine.read.tenant_reader import TenantReader
from recall_engine.tenants.source_filter import SourceFilter
from tests.conversation_turns import conversation_turn

N = 40


class Rows:
    """Item rows the tenant reader handed out, and the items whose chunks it read."""

    def __init__(self) -> None:
        self.read = 0
        self.chunks_of: list[str] = []


@pytest.fixture
def rows(monkeypatch: pytest.MonkeyPatch) -> Rows:
    seen = Rows()
    documents = TenantReader.documents
    documents_page = TenantReader.documents_page
    documents_matching = TenantReader.documents_matching
    chunks_of_data = TenantReader.chunks_of_data

    async def counted_documents(self: TenantReader):
        found = await documents(self)
        seen.read += len(found)
        return found

    async def counted_page(self: TenantReader, **options: object):
        found = await documents_page(self, **options)  # type: ignore[arg-type]
        seen.read += len(found)
        return found

    async def counted_matching(self: TenantReader, **options: object):
        found = await documents_matching(self, **options)  # type: ignore[arg-type]
        seen.read += len(found)
        return found

    async def counted_chunks(self: TenantReader, data_ids: Sequence[str]):
        seen.chunks_of += list(data_ids)
        return await chunks_of_data(self, data_ids)

    monkeypatch.setattr(TenantReader, "documents", counted_documents)
    monkeypatch.setattr(TenantReader, "documents_page", counted_page)
    monkeypatch.setattr(TenantReader, "documents_matching", counted_matching)
    monkeypatch.setattr(TenantReader, "chunks_of_data", counted_chunks)
    return seen


def source(n: int, year: int) -> dict[str, object]:
    """Source ``n``, dated January 1st of ``year`` (its place in a listing), of team
    ``t<n % 5>``."""
    text = f"Note {n} is about topic {n % 5}."
    return {
        "id": f"s{n:03d}",
        "text": text,
        "timestamp": f"{year}-01-01",
        "type": "note" if n % 2 else "memo",
        "tenant_metadata": {"team": f"t{n % 5}"},
        "document_metadata": {"rank": n % 3},
    }


async def test_every_page_reads_its_own_rows(engine, rows: Rows) -> None:
    await engine.create_tenant("acme")
    # a conversation is dated by its turns: the first one's (2023) sit mid-list, the
    # other one's (2200) last
    early = [source(n, 2000 + n) for n in range(N // 2)]
    late = [source(n, 2100 + n) for n in range(N // 2, N)]
    turns = [conversation_turn(n, f"Turn {n} of the chat.") for n in range(3)]
    last = [
        conversation_turn(
            n,
            f"Turn {n} of another chat.",
            metadata={"conversation_id": "other"},
            timestamp=f"2200-01-01T00:{n}:00",
        )
        for n in (10, 11)
    ]
    for batch in (early, turns, late, last):
        stored = await engine.upload_knowledge("acme", batch)
        assert stored.success_count == len(batch), stored.results
    everything = await engine.tenants.list_sources("acme")
    assert len(everything) == N + 5
    conversations = list(dict.fromkeys(s["data_id"] for s in everything if s["id"][0] == "t"))
    assert [s["id"] for s in everything[N // 2 : N // 2 + 3]] == ["t0", "t1", "t2"]
    assert [s["id"] for s in everything[-2:]] == ["t10", "t11"]

    rows.read, rows.chunks_of = 0, []
    listing = await engine.tenants.listing("acme")
    assert listing.total == N + 5
    # the count reads the conversations' rows and chunks (their turns are sources)
    assert rows.read == 2 and sorted(rows.chunks_of) == sorted(conversations)
    for size in (1, 2, 5, 7):
        for start in range(0, listing.total + 1, size):
            rows.read, rows.chunks_of = 0, []
            page = await listing.page(start, start + size)
            assert page == everything[start : start + size], (start, size)
            assert rows.read <= size, (start, size, rows.read)
            assert set(rows.chunks_of) == {s["data_id"] for s in page}


async def _stored(engine) -> tuple[list[dict[str, object]], list[str]]:
    """N sources and a conversation of three turns stored; the full listing, and the
    conversation's item."""
    await engine.create_tenant("acme")
    turns = [conversation_turn(n, f"Turn {n} of the chat.") for n in range(3)]
    batch = [source(n, 2000 + n) for n in range(N)]
    for part in (batch[: N // 2], turns, batch[N // 2 :]):
        stored = await engine.upload_knowledge("acme", part)
        assert stored.success_count == len(part), stored.results
    everything = await engine.tenants.list_sources("acme")
    conversations = list(dict.fromkeys(s["data_id"] for s in everything if s["id"][0] == "t"))
    return everything, conversations


async def test_a_listing_by_ids_reads_those_rows(engine, rows: Rows) -> None:
    everything, conversations = await _stored(engine)
    ids = ["s031", "s002", "t1", "s017", "nope"]
    rows.read, rows.chunks_of = 0, []
    listing = await engine.tenants.listing("acme", source_ids=ids)
    wanted = [s for s in everything if s["id"] in ids]
    assert listing.total == 4 and await listing.page(0, 10) == wanted
    # the three declared items' rows and the conversation's (a turn is named in its
    # chunks), whose chunks alone the count read; then the page's own
    assert rows.read == 3 + len(conversations)
    assert set(rows.chunks_of) == set(conversations) | {s["data_id"] for s in wanted}
    many = [f"s{n:03d}" for n in range(0, N, 2)] * 10  # more ids than one query binds
    listing = await engine.tenants.listing("acme", source_ids=many)
    assert await listing.page(0, N) == [s for s in everything if s["id"] in many]


async def test_a_filtered_listing_reads_the_rows_that_hold_its_values(engine, rows: Rows) -> None:
    everything, conversations = await _stored(engine)
    for where, passes in [
        (SourceFilter(attributes={"team": "t2"}), lambda s: s["tenant_metadata"] == {"team": "t2"}),
        (
            SourceFilter(attributes={"team": "t1"}, source_fields={"type": "note"}),
            lambda s: s["tenant_metadata"] == {"team": "t1"} and s["type"] == "note",
        ),
        (SourceFilter(source_fields={"type": "conversation"}), lambda s: s["id"][0] == "t"),
    ]:
        rows.read, rows.chunks_of = 0, []
        listing = await engine.tenants.listing("acme", where=where)
        wanted = [s for s in everything if passes(s)]
        assert wanted and listing.total == len(wanted), where
        # the rows holding the values, the conversation's row, its chunks alone
        assert rows.read == len([s for s in wanted if s["id"][0] == "s"]) + len(conversations)
        assert set(rows.chunks_of) == set(conversations)
        for start in range(0, len(wanted), 3):
            rows.chunks_of = []
            page = await listing.page(start, start + 3)
            assert page == wanted[start : start + 3], (where, start)
            assert set(rows.chunks_of) == {s["data_id"] for s in page}
    # a value the store cannot look for (a number) is checked on every row, and
    # still on no item's chunks but the conversation's
    rows.read, rows.chunks_of = 0, []
    listing = await engine.tenants.listing("acme", where=SourceFilter(additional={"rank": 1}))
    assert await listing.page(0, N) == [
        s for s in everything if s["document_metadata"] == {"rank": 1}
    ]
    assert set(rows.chunks_of) <= set(conversations) | {
        s["data_id"] for s in everything if s["document_metadata"] == {"rank": 1}
    }
