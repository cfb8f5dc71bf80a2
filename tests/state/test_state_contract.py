"""The state seam's contract, run against SQLite (a data dir) and Postgres (a schema
of its own per test, dropped afterwards)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from recall_engine.identity.registry import IdentityRegistry
from recall_engine.sessions.store import QARecord, SessionStore
from recall_engine.state.sql import SqlDatabase
from recall_engine.tenants.errors import TenantAlreadyExistsError
from recall_engine.tenants.registry import TenantRegistry

PG_URL = "postgresql://postgres@127.0.0.1:5432/test"


def _postgres(schema: str) -> SqlDatabase:
    try:
        import psycopg

        psycopg.connect(PG_URL, connect_timeout=2).close()
    except Exception:
        pytest.skip("Postgres is not reachable on 127.0.0.1:5432")
    from recall_engine.state.postgres import PostgresDatabase

    return PostgresDatabase(f"{PG_URL}?schema={schema}")


def _drop(schema: str) -> None:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgres"])
def source(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | SqlDatabase]:
    if request.param == "sqlite":
        yield tmp_path
        return
    schema = f"re_test_{secrets.token_hex(6)}"
    db = _postgres(schema)
    try:
        yield db
    finally:
        db.close()
        _drop(schema)


def test_tenants_and_key_digests(source: Path | SqlDatabase) -> None:
    registry = TenantRegistry(source)
    registry.create("acme", [])
    with pytest.raises(TenantAlreadyExistsError):
        registry.create("acme", [])
    record, key = registry.create_key("acme")
    assert registry.key_tenant(key) == "acme"
    assert registry.key_tenant(key + "x") is None
    assert TenantRegistry(source).key_tenant(key) == "acme"  # a second process sees it
    registry.revoke_key(record.key_id)
    assert registry.key_tenant(key) is None
    assert registry.tenants() == ["acme"]


def test_users_and_grants(source: Path | SqlDatabase) -> None:
    identity = IdentityRegistry(source)
    ann = identity.create_user("t", "ann")
    identity.set_owner("t", "d1", identity.ensure_default_user("t").id)
    identity.grant("t", "d1", ann.id, "write")
    identity.grant("t", "d1", ann.id, "read")  # never lowers
    assert identity.access("t", ann, {"d1": "docs"}) == {"d1": "write"}
    identity.revoke("t", "d1", ann.id, "write")
    assert identity.access("t", ann, {"d1": "docs"}) == {"d1": "read"}


def test_sessions_and_feedback(source: Path | SqlDatabase) -> None:
    store = SessionStore(source)
    first = store.append("t", "u", "s", question="q1", context="c", answer="a",
                         element_ids=["chunk:1"])  # fmt: skip
    store.append("t", "u", "s", question="q2", context="c", answer="a")
    assert [r.question for r in store.entries("t", "u", "s")] == ["q1", "q2"]
    store.append("t", "u", "s", question="q3", context="c", answer="a")
    # the most recent only, oldest first (one bounded read: a long session's load)
    assert [r.question for r in store.entries("t", "u", "s", last=2)] == ["q2", "q3"]
    store.set_feedback("t", "u", "s", first.qa_id, score=5, text="good")
    store.set_feedback("t", "u", "s", first.qa_id, score=1, text="bad")
    assert store.element_weights("t", ["chunk:1"]) == {"chunk:1": -1.0}
    assert store.entries("t", "other", "s") == []


def test_an_identical_session_entry_is_kept_once(source: Path | SqlDatabase) -> None:
    now = [1000.0]
    store = SessionStore(source, clock=lambda: now[0])

    def write(answer: str = "a") -> QARecord:
        return store.append("t", "u", "s", question="q1", context="c", answer=answer,
                            element_ids=["chunk:1"])  # fmt: skip

    first = write()
    store.set_feedback("t", "u", "s", first.qa_id, score=5, text="good")
    store.append("t", "u", "s", question="q2", context="c", answer="b")
    now[0] += 10
    again = write()
    # the same entry, moved to now, its rating kept; the tally counts it once
    assert (again.qa_id, again.time, again.feedback_score) == (first.qa_id, 1010.0, 5)
    assert [(r.question, r.time) for r in store.entries("t", "u", "s")] == [
        ("q2", 1000.0),
        ("q1", 1010.0),
    ]
    store.set_feedback("t", "u", "s", again.qa_id, score=1, text="bad")
    assert store.element_weights("t", ["chunk:1"]) == {"chunk:1": -1.0}
    # any difference (here the answer) is a new entry
    other = write("a2")
    assert other.qa_id != first.qa_id and len(store.entries("t", "u", "s")) == 3
    store.close()
