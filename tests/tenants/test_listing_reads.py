"""A listing page costs what one page costs: the rows are ordered, counted and cut in
the store, so a page of ``k`` sources reads about ``k`` item rows (and the rows of
grouped conversations, whose turns are sources of their own), however many items
the collection holds; and every page holds what the full listing holds there."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from recall_engine.read.tenant_reader import TenantReader
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
    chunks_of_data = TenantReader.chunks_of_data

    async def counted_documents(self: TenantReader):
        found = await documents(self)
        seen.read += len(found)
        return found

    async def counted_page(self: TenantReader, **options: object):
        found = await documents_page(self, **options)  # type: ignore[arg-type]
        seen.read += len(found)
        return found

    async def counted_chunks(self: TenantReader, data_ids: Sequence[str]):
        seen.chunks_of += list(data_ids)
        return await chunks_of_data(self, data_ids)

    monkeypatch.setattr(TenantReader, "documents", counted_documents)
    monkeypatch.setattr(TenantReader, "documents_page", counted_page)
    monkeypatch.setattr(TenantReader, "chunks_of_data", counted_chunks)
    return seen


def source(n: int, year: int) -> dict[str, object]:
    """Source ``n``, dated January 1st of ``year`` (its place in a listing)."""
    text = f"Note {n} is about topic {n % 5}."
    return {"id": f"s{n:03d}", "text": text, "timestamp": f"{year}-01-01"}


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
