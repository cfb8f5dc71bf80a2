"""Two notes of one person, one per team, and a reader that may read team "a" only:
the store the reader-filter tests share (``metadata_filters`` at the reader)."""

from __future__ import annotations

from recall_engine import Document, RecallEngine
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.store_reader import StoreReader
from recall_engine.read.tenant_reader import TenantReader

ALLOWED_TEXT = "Ada Lovelace works at Acme Corp in Boston."
EXCLUDED_TEXT = "Ada Lovelace founded Zenith Labs with Boris Vance in Oslo."


async def by_team(engine: RecallEngine) -> tuple[StoreReader, TenantReader]:
    """Remember ``ALLOWED_TEXT`` for team "a" and ``EXCLUDED_TEXT`` for team "b";
    (a reader of everything, a reader of team "a")."""
    await engine.remember(
        [
            Document(text=ALLOWED_TEXT, title="alpha", metadata={"team": "a"}),
            Document(text=EXCLUDED_TEXT, title="beta", metadata={"team": "b"}),
        ],
        dataset_name="docs",
    )
    store = engine.store()
    ids = list(store.datasets())
    team_a = ChunkFilter(equals=((("team",), "a"),))
    return StoreReader(store, ids), TenantReader(store, ids, where=team_a)
