"""The shared state stores when their server goes away: Postgres and Redis behind a
TCP forwarder (``tcp_proxy``) that the tests stop, stall and start again.

A call on a server that is down, or that stopped answering, fails with a
``StoreError`` naming the server without its password (never hangs); a
transaction left open by a stalled replica does not hold its locks forever;
once the server is back the next call works, without reopening anything.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator

import psycopg
import pytest

from recall_engine.core.errors import StoreError
from recall_engine.state.lease import WriterLeases
from recall_engine.state.postgres import POOL_MAX, PostgresDatabase
from tests.state.conftest import PG_URL
from tests.state.tcp_proxy import TcpProxy

PASSWORD = "pg-NEVER-SHOWN-41"
SAFETY_NET_S = 60.0
"""How long a test waits for a call that should fail within a few seconds before it
calls it hung (far beyond every bound configured here: a busy machine passes)."""


def outcome(call: Callable[[], object]) -> object:
    """What ``call`` returned or raised, run in a thread; fails the test when it is
    still waiting after ``SAFETY_NET_S`` (it hangs)."""
    return outcomes(call, 1)[0]


def outcomes(call: Callable[[], object], n: int) -> list[object]:
    """``outcome`` of ``n`` calls made at once."""
    done: queue.Queue[object] = queue.Queue()

    def run() -> None:
        try:
            done.put(call())
        except BaseException as exc:  # handed to the test
            done.put(exc)

    for _ in range(n):
        threading.Thread(target=run, daemon=True).start()
    try:
        return [done.get(timeout=SAFETY_NET_S) for _ in range(n)]
    except queue.Empty:
        pytest.fail(f"a call still waits after {SAFETY_NET_S:g} s: it hangs")


@pytest.fixture
def pg_proxy() -> Iterator[TcpProxy]:
    with TcpProxy(5432) as proxy:
        yield proxy


def _open(proxy: TcpProxy, schema: str, **bounds: float) -> PostgresDatabase:
    # The server trusts every local user; the password is only there to be hidden.
    url = f"postgresql://postgres:{PASSWORD}@127.0.0.1:{proxy.port}/test?schema={schema}"
    return PostgresDatabase(url, **bounds)


def _shown(error: object) -> str:
    assert isinstance(error, StoreError), error
    text = str(error)
    assert PASSWORD not in text and "postgres:***@127.0.0.1" in text
    assert "\n" not in text
    return text


def test_a_statement_the_server_never_answers_fails_and_the_next_call_works(
    pg_proxy: TcpProxy, pg_schema: str
) -> None:
    db = _open(pg_proxy, pg_schema, timeout_s=1.0)
    leases = WriterLeases(db)
    try:
        assert leases.acquire("t", "a") is not None

        def stalled_mid_transaction() -> object:
            with db.write() as conn:
                conn.execute("SELECT 1")
                pg_proxy.stall()
                return conn.execute("SELECT 1")

        assert "did not answer within 2 s" in _shown(outcome(stalled_mid_transaction))
        pg_proxy.up()
        lease = leases.current("t")
        assert lease is not None and lease.holder == "a"
    finally:
        db.close()


def test_a_lock_held_by_a_stalled_replica_is_waited_for_a_bounded_time(
    pg_schema: str,
) -> None:
    db = PostgresDatabase(f"{PG_URL}?schema={pg_schema}", timeout_s=1.0)
    leases = WriterLeases(db)
    try:
        assert leases.acquire("t", "a") is not None
        with psycopg.connect(PG_URL, autocommit=True) as stalled:
            # Another replica's transaction holds the lease row and goes no further.
            stalled.execute("BEGIN")
            stalled.execute(f"UPDATE {pg_schema}.writer_leases SET holder = holder")
            error = outcome(lambda: leases.acquire("t", "a"))
            assert "statement timeout" in _text(error)
            stalled.execute("ROLLBACK")
        assert leases.acquire("t", "a") is not None
    finally:
        db.close()


def _text(error: object) -> str:
    assert isinstance(error, StoreError), error
    assert "\n" not in str(error)
    return str(error)


def test_a_replica_stalled_inside_a_transaction_loses_it_and_its_locks(pg_schema: str) -> None:
    url = f"{PG_URL}?schema={pg_schema}"
    stalled, other = PostgresDatabase(url, timeout_s=1.0), PostgresDatabase(url, timeout_s=1.0)
    leases, others = WriterLeases(stalled), WriterLeases(other)
    wake = threading.Event()
    locked = threading.Event()

    def write_then_stall() -> object:
        with stalled.write() as conn:
            conn.execute("INSERT INTO writer_leases VALUES ('t', 'stalled', 0)")
            locked.set()
            wake.wait()  # a replica paused (SIGSTOP, a long GC) mid-transaction
        return "committed"

    try:
        result: queue.Queue[object] = queue.Queue()
        writer = threading.Thread(target=lambda: result.put(_catch(write_then_stall)))
        writer.start()
        assert locked.wait(SAFETY_NET_S)
        # The server ends the idle transaction: its row lock goes, its row never lands.
        taken = None
        deadline = time.monotonic() + SAFETY_NET_S
        while taken is None and time.monotonic() < deadline:
            try:
                taken = others.acquire("t", "other")
            except StoreError:
                continue
        assert taken is not None and taken.holder == "other"
        wake.set()
        writer.join()
        assert isinstance(result.get(), StoreError)
        assert leases.current("t") == taken  # and its pool works again
    finally:
        wake.set()
        stalled.close()
        other.close()


def _catch(call: Callable[[], object]) -> object:
    try:
        return call()
    except StoreError as exc:
        return exc


def test_after_an_outage_the_first_call_works_without_a_restart(
    pg_proxy: TcpProxy, pg_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from psycopg_pool.base import AttemptWithBackoff

    db = _open(pg_proxy, pg_schema, pool_timeout_s=2.0)
    leases = WriterLeases(db)
    try:
        assert leases.acquire("t", "a") is not None
        # The pool's reconnection backoff as it stands after a long outage (it doubles
        # from 1 s on each failure): the next attempt half a minute away.
        monkeypatch.setattr(AttemptWithBackoff, "INITIAL_DELAY", 30.0)
        pg_proxy.down()
        # Calls during the outage fail, naming the server and what to check; as many
        # at once as the pool holds connections, so that each finds its own broken.
        for error in outcomes(lambda: leases.current("t"), POOL_MAX):
            text = _shown(error)
            assert "cannot be reached" in text and "RECALL_ENGINE_STATE_URL" in text
        pg_proxy.up()
        lease = outcome(lambda: leases.current("t"))
        assert not isinstance(lease, BaseException), lease
        assert lease is not None and lease.holder == "a"
    finally:
        db.close()


@pytest.mark.slow
def test_after_a_long_outage_the_first_call_works_with_the_default_bounds(
    pg_proxy: TcpProxy, pg_schema: str
) -> None:
    db = _open(pg_proxy, pg_schema)
    leases = WriterLeases(db)
    try:
        assert leases.acquire("t", "a") is not None
        pg_proxy.down()
        failed_at = time.monotonic()
        while time.monotonic() - failed_at < 35.0:
            for error in outcomes(lambda: leases.current("t"), POOL_MAX):
                _shown(error)
        pg_proxy.up()
        lease = outcome(lambda: leases.current("t"))
        assert not isinstance(lease, BaseException), lease
    finally:
        db.close()


def test_an_unreachable_server_at_open_is_one_line_with_what_to_do(pg_proxy: TcpProxy) -> None:
    pg_proxy.down()
    error = outcome(lambda: _open(pg_proxy, "re_never_made"))
    text = _shown(error)
    assert "could not be opened" in text and "Check that the server runs" in text


def test_redis_down_or_silent_fails_each_call_clearly_and_the_next_call_works(
    redis_prefix: str,
) -> None:
    from recall_engine.state.redis_buckets import RedisTokenBuckets
    from recall_engine.state.redis_store import RedisStore

    with TcpProxy(6379) as proxy:
        # Redis here has no password: it is given only to be hidden.
        store = RedisStore(f"redis://:{PASSWORD}@127.0.0.1:{proxy.port}/0?prefix={redis_prefix}")
        store.client.connection_pool.connection_kwargs.pop("password")
        buckets = RedisTokenBuckets(store, rate=100.0, burst=10)
        try:
            assert buckets.take("client") == 0.0
            proxy.down()
            for _ in range(4):  # the pooled connection reset, then new ones refused
                text = str(outcome(lambda: buckets.take("client")))
                assert text.startswith(f"Redis at redis://:***@127.0.0.1:{proxy.port}/0 failed")
                assert PASSWORD not in text
                assert ".." not in text and "\n" not in text  # one sentence, one line
            proxy.stall()
            assert "Timeout" in str(outcome(lambda: buckets.take("client")))
            proxy.up()
            assert buckets.take("client") == 0.0
        finally:
            store.close()
