"""Datasets belong to their creators; owners share them by id with read or write access.

Runs offline on the embedded default store (./.recall_engine, or
RECALL_ENGINE_DATA_DIR).
"""

import asyncio

from recall_engine import RecallEngine, SearchType
from recall_engine.errors import PermissionDeniedError


async def main() -> None:
    async with RecallEngine() as engine:
        alice = await engine.create_user("alice", exist_ok=True)
        bob = await engine.create_user("bob", exist_ok=True)
        notes = await engine.remember(
            "Alice's launch plan: the beta opens on 3 March for 200 testers.",
            dataset_name="launch",
            user=alice,
        )
        await engine.remember("Bob's notes: the cafe opens at 8.", dataset_name="notes", user=bob)

        # Bob reads only his own datasets until Alice shares hers.
        hits = await engine.recall("When does the beta open?", SearchType.CHUNKS, user=bob)
        print("bob before the grant:", [h.text for h in hits])
        await engine.grant(notes.dataset_id, to=bob, permission="read", by=alice)
        for ds in await engine.datasets(user=bob):
            print(f"  bob can {ds.permission} {ds.name!r} (owner {ds.owner_name}, id {ds.id})")

        # Shared datasets are named by id: names resolve among Bob's own datasets.
        hits = await engine.recall(
            "When does the beta open?", SearchType.CHUNKS, dataset_ids=[notes.dataset_id], user=bob
        )
        print("bob after the grant:", [h.text for h in hits])

        # Read access is not write access.
        try:
            await engine.remember("Bob was here.", dataset_id=notes.dataset_id, user=bob)
        except PermissionDeniedError as exc:
            print("refused:", type(exc).__name__)
        await engine.revoke(notes.dataset_id, to=bob, by=alice)
        print("bob after the revoke:", [d.name for d in await engine.datasets(user=bob)])


if __name__ == "__main__":
    asyncio.run(main())
