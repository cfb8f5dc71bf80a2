"""The ingest ledger on SQLite and Postgres: pending -> committed per item, and what
a dead writer left pending found, rolled back or retried by the next one."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from recall_engine.core.errors import InvalidInputError, StoreError
from recall_engine.ingest.writer import TenantWriters, WriteTicket
from recall_engine.state.lease import WriterLeases
from recall_engine.state.ledger import IngestLedger
from recall_engine.state.sql import SqlDatabase

OpenDb = Callable[[], SqlDatabase]


def test_an_item_goes_from_pending_to_committed(open_db: OpenDb) -> None:
    ledger = IngestLedger(open_db())
    assert ledger.entry("t", "d", "x") is None
    assert ledger.begin("t", "d", "x", content_hash="h1", holder="A") == "started"
    assert ledger.begin("t", "d", "x", content_hash="h1", holder="A") == "started"  # A again
    entry = ledger.entry("t", "d", "x")
    assert entry is not None and (entry.status, entry.holder, entry.content_hash) == (
        "pending",
        "A",
        "h1",
    )
    assert not ledger.commit("t", "d", "x", holder="B")  # not B's to commit
    assert ledger.commit("t", "d", "x", holder="A")
    assert not ledger.commit("t", "d", "x", holder="A")  # once
    assert ledger.pending("t") == []
    # The same content again: nothing to write; new content: a new version starts.
    assert ledger.begin("t", "d", "x", content_hash="h1", holder="B") == "done"
    assert ledger.begin("t", "d", "x", content_hash="h2", holder="B") == "started"
    assert [e.holder for e in IngestLedger(open_db()).pending("t")] == ["B"]  # another replica


def test_an_item_pending_under_another_holder_is_busy(open_db: OpenDb) -> None:
    ledger = IngestLedger(open_db())
    assert ledger.begin("t", "d", "x", content_hash="h1", holder="A") == "started"
    assert ledger.begin("t", "d", "x", content_hash="h1", holder="B") == "busy"
    assert ledger.begin("t", "d", "x", content_hash="h2", holder="B") == "busy"
    assert ledger.begin("t", "d2", "x", content_hash="h1", holder="B") == "started"
    assert ledger.begin("u", "d", "x", content_hash="h1", holder="B") == "started"
    assert [e.holder for e in ledger.pending("t", holder="A")] == ["A"]
    assert len(ledger.pending("t")) == 2


def test_a_dead_writers_pending_items_are_found_and_rolled_back_or_retried(
    open_db: OpenDb,
) -> None:
    clock = [1_000.0]
    leases = WriterLeases(open_db(), ttl_s=10, clock=lambda: clock[0])
    ledger = IngestLedger(open_db())
    dead = leases.acquire("t", "A")
    assert dead is not None
    for data_id in ("x", "y", "z"):
        ledger.begin("t", "d", data_id, content_hash=f"h-{data_id}", holder="A")
    ledger.commit("t", "d", "z", holder="A")
    assert ledger.orphans("t", leases) == []  # A holds the lease: its items are in flight
    clock[0] = 1_011.0  # A died: its lease ran out
    assert [e.data_id for e in ledger.orphans("t", leases)] == ["x", "y"]
    assert leases.acquire("t", "B") is not None
    x, y = ledger.orphans("t", leases)
    assert ledger.roll_back(x) and not ledger.roll_back(x)
    assert ledger.entry("t", "d", "x") is None
    assert ledger.take_over(y, "B") and not ledger.take_over(y, "C")  # taken once
    assert ledger.orphans("t", leases) == []  # y is B's now, in flight
    assert not ledger.commit("t", "d", "y", holder="A")  # the dead writer cannot finish it
    assert ledger.commit("t", "d", "y", holder="B")
    assert ledger.begin("t", "d", "x", content_hash="h-x", holder="B") == "started"  # anew
    assert ledger.drop("t", "d", ["x", "y", "nope"]) == 2
    assert ledger.entry("t", "d", "z") is not None


def test_racing_writers_start_an_item_once(open_db: OpenDb) -> None:
    contenders, items = 5, 12
    ledgers = [IngestLedger(open_db()) for _ in range(contenders)]
    barrier = threading.Barrier(contenders)
    started: list[str] = []
    errors: list[BaseException] = []

    def race(n: int) -> None:
        try:
            for i in range(items):
                barrier.wait(timeout=60)
                if ledgers[n].begin("t", "d", f"i{i}", content_hash="h", holder=f"w{n}") == (
                    "started"
                ):
                    started.append(f"i{i}")
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=race, args=(n,)) for n in range(contenders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert sorted(started) == sorted(f"i{i}" for i in range(items))


@pytest.mark.parametrize(("content_hash", "holder"), [("", "A"), ("h", ""), (None, "A")])
def test_begin_without_a_hash_or_holder_is_refused_and_writes_nothing(
    open_db: OpenDb, content_hash: object, holder: str
) -> None:
    ledger = IngestLedger(open_db())
    with pytest.raises(InvalidInputError, match=r"content_hash|holder"):
        ledger.begin("t", "d", "x", content_hash=content_hash, holder=holder)  # type: ignore[arg-type]
    assert ledger.entry("t", "d", "x") is None


def test_a_failed_write_commits_again_the_items_it_stored_again(open_db: OpenDb) -> None:
    # An item remember() stores again (a failed extraction retried) is still stored as
    # before when the write fails: its row goes back to committed; a new item's goes.
    writers = TenantWriters(open_db(), ttl_s=10, wait_s=1)
    ticket = WriteTicket(writers, "t")
    ledger = writers.ledger
    ledger.begin("t", "d", "old", content_hash="h-old", holder=writers.holder)
    assert ledger.commit("t", "d", "old", holder=writers.holder)
    ticket.pending("d", [("old", "h-old"), ("new", "h-new")])
    assert {e.data_id for e in ledger.pending("t")} == {"old", "new"}
    ticket.abandoned("d", ["old", "new"], stored=["old"])
    assert ledger.pending("t") == []
    entry = ledger.entry("t", "d", "old")
    assert entry is not None and (entry.status, entry.content_hash) == ("committed", "h-old")
    assert ledger.entry("t", "d", "new") is None


def test_a_commit_recorded_after_a_takeover_is_not_acknowledged(open_db: OpenDb) -> None:
    # A replica that stalled past its lease may commit its graph after another replica
    # rolled its pending items back: the write must fail, saying how to complete it.
    writers = TenantWriters(open_db(), ttl_s=10, wait_s=1)
    ticket = WriteTicket(writers, "t")
    ticket.pending("d", [("x", "h-x"), ("y", "h-y")])
    (taken,) = [e for e in writers.ledger.pending("t") if e.data_id == "x"]
    assert writers.ledger.roll_back(taken)  # what the next writer's recovery does
    with pytest.raises(StoreError, match="remember the same data again"):
        ticket.committed("d", ["x", "y"])
    entry = writers.ledger.entry("t", "d", "y")
    assert entry is not None and entry.status == "committed"  # the other one is recorded
