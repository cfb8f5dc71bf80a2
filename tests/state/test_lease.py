"""The writer lease on SQLite and Postgres: one holder at a time, renewal, release,
and expiry of a dead holder's lease, also with threads and processes racing."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from recall_engine.core.errors import InvalidInputError
from recall_engine.state.lease import WriterLeases, new_holder
from recall_engine.state.sql import SqlDatabase

OpenDb = Callable[[], SqlDatabase]
ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_one_holder_renews_and_releases(open_db: OpenDb) -> None:
    clock = Clock()
    a, b = WriterLeases(open_db(), ttl_s=10, clock=clock), WriterLeases(open_db(), clock=clock)
    lease = a.acquire("acme", "A")
    assert lease is not None and lease.expires_at == 1_010.0
    assert b.acquire("acme", "B") is None
    assert b.acquire("other", "B") is not None  # leases are per tenant
    clock.now = 1_008.0
    renewed = a.renew(lease)
    assert renewed is not None and renewed.expires_at == 1_018.0
    clock.now = 1_015.0  # past the first expiry, before the renewed one
    assert b.acquire("acme", "B") is None
    assert b.current("acme") == renewed
    assert a.release(renewed) and not a.release(renewed)
    assert b.current("acme") is None
    assert b.acquire("acme", "B") is not None  # free at once after a release


def test_a_dead_holders_lease_expires_and_it_cannot_renew_it(open_db: OpenDb) -> None:
    clock = Clock()
    a, b = WriterLeases(open_db(), ttl_s=10, clock=clock), WriterLeases(open_db(), clock=clock)
    dead = a.acquire("acme", "A")
    assert dead is not None
    clock.now = 1_010.0  # A stopped renewing: its time is up
    assert b.current("acme") is None
    taken = b.acquire("acme", "B", ttl_s=10)
    assert taken is not None and taken.holder == "B"
    assert a.renew(dead) is None and not a.release(dead)  # A lost it for good
    assert a.acquire("acme", "A") is None
    assert b.current("acme") == taken


def test_an_expired_lease_nobody_took_is_still_its_holders(open_db: OpenDb) -> None:
    clock = Clock()
    leases = WriterLeases(open_db(), ttl_s=5, clock=clock)
    lease = leases.acquire("acme", "A")
    assert lease is not None
    clock.now = 1_100.0
    renewed = leases.renew(lease)
    assert renewed is not None and renewed.expires_at == 1_105.0


def test_the_database_clock_keeps_a_live_lease(open_db: OpenDb) -> None:
    a, b = WriterLeases(open_db()), WriterLeases(open_db())
    before = time.time()
    lease = a.acquire("acme", new_holder())
    after = time.time()
    # The default 30 s, counted on the database's clock (this machine's, give or take 1 s).
    assert lease is not None and before + 29 <= lease.expires_at <= after + 31
    assert b.acquire("acme", new_holder()) is None
    assert b.current("acme") == lease
    assert a.acquire("acme", lease.holder) is not None  # its holder may take it again


@pytest.mark.parametrize("ttl", [0, -1, float("nan"), float("inf"), "30", True])
def test_a_bad_ttl_is_refused_and_changes_nothing(open_db: OpenDb, ttl: object) -> None:
    leases = WriterLeases(open_db())
    with pytest.raises(InvalidInputError, match="ttl_s"):
        WriterLeases(open_db(), ttl_s=ttl)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="ttl_s"):
        leases.acquire("acme", "A", ttl_s=ttl)  # type: ignore[arg-type]
    assert leases.current("acme") is None


def test_racing_threads_get_exactly_one_lease_per_tenant(open_db: OpenDb) -> None:
    contenders, rounds = 6, 15
    leases = [WriterLeases(open_db()) for _ in range(contenders)]
    barrier = threading.Barrier(contenders)
    won: list[list[str]] = [[] for _ in range(contenders)]
    errors: list[BaseException] = []

    def race(n: int) -> None:
        try:
            for r in range(rounds):
                barrier.wait(timeout=60)
                if leases[n].acquire(f"t{r}", f"holder-{n}") is not None:
                    won[n].append(f"t{r}")
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=race, args=(n,)) for n in range(contenders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    winners = sorted(t for w in won for t in w)
    assert winners == sorted(f"t{r}" for r in range(rounds))  # each once, none twice


def test_holders_taking_turns_never_overlap(open_db: OpenDb) -> None:
    contenders, turns = 4, 5
    leases = [WriterLeases(open_db()) for _ in range(contenders)]
    inside: list[str] = []
    overlaps: list[list[str]] = []
    errors: list[BaseException] = []

    def work(n: int) -> None:
        holder = f"holder-{n}"
        try:
            done = 0
            while done < turns:
                lease = leases[n].acquire("acme", holder)
                if lease is None:
                    time.sleep(0.001)
                    continue
                inside.append(holder)
                if len(inside) > 1:
                    overlaps.append(list(inside))
                inside.remove(holder)
                assert leases[n].release(lease)
                done += 1
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(contenders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and not overlaps, (errors, overlaps)


_PROCESS = """
import sys, time
from pathlib import Path
from recall_engine.config import RecallConfig
from recall_engine.state.lease import WriterLeases
from recall_engine.state.store import open_state
data_dir, url, go, me = sys.argv[1:5]
db = open_state(RecallConfig(data_dir=data_dir, state_url=url or None))
leases = WriterLeases(db)
while not Path(go).exists():
    time.sleep(0.002)
print(" ".join(t for t in ("t0", "t1", "t2", "t3", "t4") if leases.acquire(t, me)))
db.close()
"""


@pytest.mark.parametrize("driver", ["sqlite", "postgres"])
def test_racing_processes_get_exactly_one_lease_per_tenant(
    driver: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = ""
    if driver == "postgres":
        schema = request.getfixturevalue("pg_schema")
        url = f"postgresql://postgres@127.0.0.1:5432/test?schema={schema}"
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _PROCESS, str(tmp_path / "data"), url, str(go), f"p{n}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,  # this checkout's package, whatever the venv installed
        )
        for n in range(3)
    ]
    time.sleep(0.5)  # let them start (a late one only loses the race, never the test)
    go.touch()
    won = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        won += out.split()
    assert sorted(won) == ["t0", "t1", "t2", "t3", "t4"]


_HOLDER = """
import sys, time
from recall_engine.config import RecallConfig
from recall_engine.state.lease import WriterLeases
from recall_engine.state.store import open_state
data_dir, url = sys.argv[1:3]
leases = WriterLeases(open_state(RecallConfig(data_dir=data_dir, state_url=url or None)))
assert leases.acquire("acme", "doomed", ttl_s=1.0)
print("held", flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("driver", ["sqlite", "postgres"])
def test_the_lease_of_a_killed_holder_expires(
    driver: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = ""
    if driver == "postgres":
        url = f"postgresql://postgres@127.0.0.1:5432/test?schema={request.getfixturevalue('pg_schema')}"
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path / "data"), url],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    finally:
        proc.kill()  # SIGKILL: no release, no cleanup
        proc.wait(timeout=30)
    from recall_engine.config import RecallConfig
    from recall_engine.state.store import open_state

    db = open_state(RecallConfig(data_dir=tmp_path / "data", state_url=url or None))
    try:
        leases = WriterLeases(db)
        deadline = time.monotonic() + 30  # a liveness bound, not a measurement
        while (lease := leases.acquire("acme", "next")) is None:
            assert time.monotonic() < deadline, "the dead holder's lease never expired"
            time.sleep(0.05)
        assert lease.holder == "next"
    finally:
        db.close()


def test_a_stalled_writer_whose_lease_was_taken_refuses_to_commit(open_db: OpenDb) -> None:
    # A replica stalled (SIGSTOP, a long GC pause) past its lease's time to live while
    # another took the tenant over. Once it runs again its renewer thread may not have
    # run before its write reaches the commit: the check must ask the state store.
    from recall_engine.core.errors import StoreError
    from recall_engine.ingest.writer import TenantWriters, WriteTicket

    clock = Clock()
    a, b = (TenantWriters(open_db(), ttl_s=30, wait_s=0) for _ in range(2))
    for writers in (a, b):
        writers.leases = WriterLeases(writers.db, ttl_s=30, clock=clock)
    lease = a.leases.acquire("acme", a.holder)
    ticket = WriteTicket(a, "acme", lease)  # no renewer thread: it has not run yet
    ticket.check()  # held: the write may commit
    clock.now += 31  # A stalled past its time to live ...
    assert b.leases.acquire("acme", b.holder) is not None  # ... and B took the tenant over
    with pytest.raises(StoreError, match="lost the writer lease"):
        ticket.check()
    current = a.leases.current("acme")
    assert current is not None and current.holder == b.holder  # B's lease is untouched
