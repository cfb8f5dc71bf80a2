"""One writer per tenant across replicas: the writer lease and the ingest ledger
around every write of a store that replicas share (``graph_url`` set).

A replica that writes a tenant (remember, forget) first takes the tenant's
writer lease (``state.lease``), waiting up to ``wait_s`` while another replica
holds it, and renews it from a thread while it writes. Past the wait it raises
``WriterBusyError`` (HTTP 503 with Retry-After) before it changed anything.

Each new data item is recorded ``pending`` in the ledger (``state.ledger``)
before any of its chunks, vectors or graph are written, and ``committed`` after
the graph's commit, the one moment an item becomes visible: every vector row is
written before it, and readers mirror a row only once its item (or entity) is
in the graph (``storage.shared_mirror``), so no replica sees half an item.

A writer that takes the lease first deals with the orphans of a holder that
died: an item whose graph commit happened is complete and is committed; any
other is rolled back (its vector rows deleted, then its ledger row), and vector
rows that belong to no item of the graph are deleted with them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from recall_engine.config import RecallConfig
from recall_engine.core.errors import StoreError, WriterBusyError
from recall_engine.state.lease import Lease, WriterLeases, new_holder
from recall_engine.state.ledger import IngestLedger, LedgerEntry
from recall_engine.state.sql import SqlDatabase
from recall_engine.storage.graph_records import ENTITIES, EVENTS, RELATIONS, SUMMARIES
from recall_engine.storage.tenant import TenantStore

logger = logging.getLogger(__name__)

POLL_S = 0.2
"""How often a waiting writer asks for the lease again."""


@dataclass
class WriteTicket:
    """What a write holding the lease (or, embedded, holding nothing) records."""

    writers: TenantWriters | None
    tenant_id: str
    lease: Lease | None = None
    lost: threading.Event = field(default_factory=threading.Event)

    def check(self) -> None:
        """Raises StoreError when the lease was lost (this replica stalled past its
        time to live and another took it): the write must not commit.

        Asks the state store (renewing the lease): after a stall the renewer thread
        may not have run yet, and its flag alone would let a stale writer commit.
        """
        if self.writers is not None and self.lease is not None and not self.lost.is_set():
            renewed = self.writers.leases.renew(self.lease)
            if renewed is None:
                self.lost.set()
            else:
                self.lease = renewed
        if self.lost.is_set():
            raise StoreError(
                f"This replica lost the writer lease of tenant {self.tenant_id!r} while writing "
                "(it stalled for longer than writer_lease_ttl_s); nothing was committed. Retry."
            )

    def pending(self, dataset_id: str, items: Sequence[tuple[str, str]]) -> None:
        """Record ``(data_id, content_hash)`` items as being written, in one transaction.

        Raises:
            StoreError: an item is pending under another live writer, or the state
                store failed (nothing is recorded then).
        """
        if self.writers is None or not items:
            return
        self.check()
        ledger, holder = self.writers.ledger, self.writers.holder
        with self.writers.db.write():
            for data_id, digest in items:
                claim = ledger.begin(
                    self.tenant_id, dataset_id, data_id, content_hash=digest, holder=holder
                )
                if claim == "done":  # a committed row the graph no longer has: stale
                    ledger.forget(self.tenant_id, [data_id])
                    claim = ledger.begin(
                        self.tenant_id, dataset_id, data_id, content_hash=digest, holder=holder
                    )
                if claim != "started":
                    raise StoreError(
                        f"Data item {data_id} of tenant {self.tenant_id!r} is being written by "
                        "another replica; nothing was stored. Retry."
                    )

    def committed(self, dataset_id: str, data_ids: Sequence[str]) -> None:
        """Record the items as committed, after the graph commit.

        Raises:
            StoreError: another replica took an item over first (this one stalled past
                its lease): it may have rolled the item's vector rows back, so the item
                is not complete; remembering it again completes it.
        """
        if self.writers is None:
            return
        ledger, holder = self.writers.ledger, self.writers.holder
        with self.writers.db.write():
            lost = [
                data_id
                for data_id in data_ids
                if not ledger.commit(self.tenant_id, dataset_id, data_id, holder=holder)
            ]
        if lost:
            raise StoreError(
                f"{len(lost)} item(s) of tenant {self.tenant_id!r} were taken over by another "
                "replica before this one recorded their commit (it stalled past "
                "writer_lease_ttl_s), so they may be incomplete; remember the same data again "
                "to complete them."
            )

    def abandoned(
        self, dataset_id: str, data_ids: Sequence[str], *, stored: Sequence[str] = ()
    ) -> None:
        """Settle the pending rows of a write that failed (its rows were undone):
        forgotten, except those of ``stored`` (items the write stored again, which
        are still stored as before), committed again."""
        if self.writers is None or not data_ids:
            return
        again = set(stored)
        try:
            ledger, holder = self.writers.ledger, self.writers.holder
            ledger.forget(self.tenant_id, [d for d in data_ids if d not in again], holder=holder)
            with self.writers.db.write():
                for data_id in again.intersection(data_ids):
                    ledger.commit(self.tenant_id, dataset_id, data_id, holder=holder)
        except StoreError as exc:  # they stay pending: the next writer rolls them back
            logger.warning("tenant %s: pending ledger rows left: %s", self.tenant_id, exc)

    def forgotten(self, data_ids: Sequence[str]) -> None:
        """Drop the rows of data items deleted from the stores."""
        if self.writers is not None and data_ids:
            self.writers.ledger.forget(self.tenant_id, data_ids)


class TenantWriters:
    """The lease and ledger of every tenant, for one replica (one holder id)."""

    def __init__(self, db: SqlDatabase, *, ttl_s: float, wait_s: float) -> None:
        self.db = db
        self.leases = WriterLeases(db, ttl_s=ttl_s)
        self.ledger = IngestLedger(db)
        self.wait_s = wait_s
        self.holder = new_holder()

    def _acquire(self, tenant_id: str) -> Lease:
        deadline = time.monotonic() + self.wait_s
        while True:
            lease = self.leases.acquire(tenant_id, self.holder)
            if lease is not None:
                return lease
            if time.monotonic() >= deadline:
                raise WriterBusyError(
                    f"Another replica has been writing tenant {tenant_id!r} for more than "
                    f"{self.wait_s:g} s (writer_wait_s); nothing was changed. Retry later.",
                    retry_after_s=self.leases.ttl_s / 3,
                )
            time.sleep(POLL_S)

    @contextmanager
    def hold(self, store: TenantStore) -> Iterator[WriteTicket]:
        """The tenant's lease for the block (orphans of a dead holder dealt with
        first), renewed every third of its time to live, released at the end.

        Raises:
            WriterBusyError: another replica held it for longer than ``wait_s``.
            StoreError: the state store failed.
        """
        ticket = WriteTicket(self, store.tenant_id, self._acquire(store.tenant_id))
        stop = threading.Event()
        renewer = threading.Thread(
            target=self._renew, args=(ticket, stop), name="writer-lease", daemon=True
        )
        renewer.start()
        try:
            store.graph.fence_writes(self.holder)  # a stalled former holder's writes fail
            self.recover(store)
            yield ticket
        finally:
            stop.set()
            renewer.join()
            assert ticket.lease is not None
            try:
                self.leases.release(ticket.lease)
            except StoreError as exc:  # it expires on its own
                logger.warning("tenant %s: writer lease not released: %s", store.tenant_id, exc)

    def _renew(self, ticket: WriteTicket, stop: threading.Event) -> None:
        interval = self.leases.ttl_s / 3
        while not stop.wait(interval):
            assert ticket.lease is not None
            try:
                renewed = self.leases.renew(ticket.lease)
            except StoreError as exc:
                logger.warning("tenant %s: writer lease not renewed: %s", ticket.tenant_id, exc)
                continue
            if renewed is None:
                ticket.lost.set()
                return
            ticket.lease = renewed

    def recover(self, store: TenantStore) -> list[LedgerEntry]:
        """Deal with the pending items of other holders (the caller holds the lease):
        commit those the graph holds, roll back the others; returns them."""
        orphans = [e for e in self.ledger.pending(store.tenant_id) if e.holder != self.holder]
        if not orphans:
            return []
        in_graph = store.graph.document_ids([e.data_id for e in orphans])
        back = [e for e in orphans if e.data_id not in in_graph]
        for entry in orphans:
            if entry.data_id in in_graph and self.ledger.take_over(entry, self.holder):
                self.ledger.commit(*entry.key, holder=self.holder)
        if back:
            ids = [e.data_id for e in back]
            store.index.remove_data(ids)  # mirrored only where the mirror is unfiltered
            store.vectors.delete_data(ids)
            store.vectors.graph.delete_data(ids)
            for entry in back:
                self.ledger.roll_back(entry)
        sweep_vectors(store)
        logger.warning(
            "tenant %s: %d orphaned item(s) of a dead writer: %d committed, %d rolled back",
            store.tenant_id,
            len(orphans),
            len(orphans) - len(back),
            len(back),
        )
        return orphans


def sweep_vectors(store: TenantStore) -> None:
    """Delete vector rows that no item or entity of the graph owns (left by a writer
    that died between its graph commit and its own clean-up, or before the commit)."""
    tables = store.vectors.graph
    documents = store.graph.document_ids()
    stale = store.vectors.data_ids() - documents
    if stale:
        store.vectors.delete_data(sorted(stale))
    tables.delete_data(sorted(_graph_data_ids(store) - documents))
    entities = tables.column(ENTITIES, "id") - store.graph.entity_ids()
    if entities:
        tables.delete_where(ENTITIES, "id", entities)


def _graph_data_ids(store: TenantStore) -> set[str]:
    found: set[str] = set()
    for table in (RELATIONS, EVENTS, SUMMARIES):
        found |= store.vectors.graph.column(table, "data_id")
    return found


def writers_for(config: RecallConfig, db: SqlDatabase) -> TenantWriters | None:
    """The lease and ledger of replicas that share tenants' graphs (``graph_url``
    set); None for embedded stores, which one process holds (``store_lock``)."""
    if config.graph_url is None:
        return None
    return TenantWriters(db, ttl_s=config.writer_lease_ttl_s, wait_s=config.writer_wait_s)


@contextmanager
def writing(writers: TenantWriters | None, store: TenantStore) -> Iterator[WriteTicket]:
    """``writers.hold(store)``, or a ticket that records nothing (embedded stores)."""
    if writers is None:
        yield WriteTicket(None, store.tenant_id)
        return
    with writers.hold(store) as ticket:
        yield ticket
