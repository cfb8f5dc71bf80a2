"""Users, dataset ownership, grants and the scoping rules of recall() (issue 12)."""

from __future__ import annotations

import pytest

from recall_engine import RecallEngine, SearchType
from recall_engine.core.errors import (
    DatasetNotFoundError,
    InvalidInputError,
    PermissionDeniedError,
    RecallPreconditionError,
    UserNotFoundError,
)
from recall_engine.identity import default_user_id

LEX = SearchType.CHUNKS_LEXICAL


async def texts(engine, query="ulm", **kwargs):
    return sorted(r.text for r in await engine.recall(query, LEX, **kwargs))


@pytest.fixture
async def shared(engine):
    """The default user's 'physics', Alice's 'notes' and Bob's 'notes'."""
    await engine.remember("Einstein was born in Ulm.", dataset_name="physics")
    alice = await engine.create_user("alice")
    bob = await engine.create_user("bob")
    a = await engine.remember("Alice visited Ulm in May.", dataset_name="notes", user=alice)
    b = await engine.remember("Bob never went to Ulm.", dataset_name="notes", user=bob.id)
    return engine, alice, bob, a.dataset_id, b.dataset_id


async def test_default_user_is_created_on_first_remember(engine):
    assert await engine.users() == []
    await engine.remember("Einstein was born in Ulm.")
    (user,) = await engine.users()
    assert user.is_default and user.id == default_user_id("default")
    (ds,) = await engine.datasets()
    assert (ds.name, ds.owner_id, ds.permission) == ("main_dataset", user.id, "owner")


async def test_create_user_names_are_unique_per_tenant(engine):
    alice = await engine.create_user("alice")
    assert alice.name == "alice" and alice.id
    with pytest.raises(InvalidInputError, match="already exists"):
        await engine.create_user("alice")
    assert await engine.create_user("alice", exist_ok=True) == alice
    other = await engine.create_user("alice", tenant_id="other")
    assert other.id != alice.id
    with pytest.raises(UserNotFoundError, match="tenant"):
        await engine.datasets(user=other)


async def test_datasets_belong_to_their_creators(shared):
    engine, alice, bob, a_id, b_id = shared
    assert a_id != b_id  # two users' "notes" are two datasets
    assert await texts(engine) == ["Einstein was born in Ulm."]
    assert await texts(engine, user=alice) == ["Alice visited Ulm in May."]
    assert await texts(engine, user=bob, datasets=["notes"]) == ["Bob never went to Ulm."]
    assert [(d.name, d.owner_name) for d in await engine.datasets(user=alice)] == [
        ("notes", "alice")
    ]


async def test_grant_read_shares_by_id_and_revoke_takes_it_back(shared):
    engine, alice, bob, a_id, _ = shared
    await engine.grant(a_id, to=bob, permission="read", by=alice)
    listed = {d.id: d for d in await engine.datasets(user=bob)}
    assert listed[a_id].permission == "read" and listed[a_id].owner_id == alice.id
    assert await texts(engine, user=bob) == ["Alice visited Ulm in May.", "Bob never went to Ulm."]
    assert await texts(engine, user=bob, dataset_ids=[a_id]) == ["Alice visited Ulm in May."]
    # names resolve among bob's own datasets only: "notes" is bob's
    assert await texts(engine, user=bob, datasets=["notes"]) == ["Bob never went to Ulm."]
    # dataset_ids win over names
    got = await texts(engine, user=bob, datasets=["notes"], dataset_ids=[a_id])
    assert got == ["Alice visited Ulm in May."]
    await engine.revoke(a_id, to=bob, by=alice)
    assert await texts(engine, user=bob) == ["Bob never went to Ulm."]
    with pytest.raises(PermissionDeniedError, match="grant"):
        await engine.recall("ulm", LEX, user=bob, dataset_ids=[a_id])


async def test_a_shared_name_points_at_dataset_ids(shared):
    engine, alice, _bob, a_id, _ = shared
    carol = await engine.create_user("carol")
    await engine.grant(a_id, to=carol, by=alice)
    with pytest.raises(DatasetNotFoundError) as info:
        await engine.recall("ulm", LEX, user=carol, datasets=["notes"])
    assert a_id in str(info.value) and "dataset_ids" in str(info.value)
    # a name of someone else's dataset that is not shared says nothing about it
    with pytest.raises(DatasetNotFoundError) as info:
        await engine.recall("ulm", LEX, user=carol, datasets=["physics"])
    assert "dataset_ids" not in str(info.value)


async def test_only_the_owner_may_grant_or_revoke(shared):
    engine, alice, bob, a_id, _ = shared
    with pytest.raises(PermissionDeniedError, match="owner"):
        await engine.grant(a_id, to=bob, by=bob)
    with pytest.raises(PermissionDeniedError):
        await engine.grant(a_id, to=bob)  # the default user does not own it
    with pytest.raises(DatasetNotFoundError):
        await engine.grant("no-such-dataset", to=bob, by=alice)
    with pytest.raises(InvalidInputError, match="permission"):
        await engine.grant(a_id, to=bob, permission="admin", by=alice)
    with pytest.raises(UserNotFoundError):
        await engine.grant(a_id, to="nobody", by=alice)


async def test_writing_into_a_dataset_needs_write_permission(shared):
    engine, alice, bob, a_id, _ = shared
    with pytest.raises(PermissionDeniedError, match="nothing was stored"):
        await engine.remember("Bob's secret: Ulm has a tall spire.", dataset_id=a_id, user=bob)
    await engine.grant(a_id, to=bob, permission="read", by=alice)
    with pytest.raises(PermissionDeniedError):
        await engine.remember("Bob's secret: Ulm has a tall spire.", dataset_id=a_id, user=bob)
    assert await texts(engine, user=alice) == ["Alice visited Ulm in May."]
    await engine.grant(a_id, to=bob, permission="write", by=alice)
    stored = await engine.remember("Ulm has a tall spire.", dataset_id=a_id, user=bob)
    assert stored.dataset_id == a_id and stored.dataset_name == "notes"
    assert "Ulm has a tall spire." in await texts(engine, user=alice)
    await engine.revoke(a_id, to=bob, permission="write", by=alice)
    assert [d.permission for d in await engine.datasets(user=bob) if d.id == a_id] == ["read"]
    with pytest.raises(DatasetNotFoundError):
        await engine.remember("x", dataset_id="no-such-dataset", user=bob)


async def test_forget_respects_ownership(shared):
    engine, alice, bob, _a_id, _ = shared
    alice_items = [r.metadata["data_id"] for r in await engine.recall("alice", LEX, user=alice)]
    with pytest.raises(PermissionDeniedError, match="nothing was deleted"):
        await engine.forget(data_id=alice_items, user=bob)
    with pytest.raises(DatasetNotFoundError):
        await engine.forget(dataset_name="physics", user=bob)
    assert await texts(engine, user=alice) == ["Alice visited Ulm in May."]
    await engine.forget(dataset_name="notes", user=bob)  # bob's own "notes"
    assert await texts(engine, user=alice) == ["Alice visited Ulm in May."]
    assert [d.name for d in await engine.datasets(user=bob)] == []
    await engine.forget(data_id=alice_items, user=alice)
    assert await texts(engine, user=alice) == []


async def test_users_datasets_and_grants_survive_a_restart(tmp_path, hash_embedder):
    data = tmp_path / "data"
    async with RecallEngine(data, embedder=hash_embedder) as engine:
        alice = await engine.create_user("alice")
        bob = await engine.create_user("bob")
        a = await engine.remember("Alice visited Ulm in May.", dataset_name="notes", user=alice)
        await engine.grant(a.dataset_id, to=bob, by=alice)
    async with RecallEngine(data, embedder=hash_embedder) as engine:
        assert [u.name for u in await engine.users()] == ["alice", "bob"]
        assert await texts(engine, user=bob.id) == ["Alice visited Ulm in May."]
        assert await texts(engine, user=alice, datasets=["notes"]) == ["Alice visited Ulm in May."]
        assert await texts(engine) == []  # the default user owns nothing here


async def test_tenants_keep_their_users_apart(engine):
    await engine.remember("Einstein was born in Ulm.", tenant_id="t1")
    alice = await engine.create_user("alice", tenant_id="t2")
    await engine.remember("Alice visited Ulm.", user=alice, tenant_id="t2")
    with pytest.raises(UserNotFoundError):
        await engine.recall("ulm", LEX, user=alice, tenant_id="t1")
    with pytest.raises(UserNotFoundError):
        await engine.recall("ulm", LEX, user=alice.id, tenant_id="t1")
    assert await texts(engine, user=alice, tenant_id="t2") == ["Alice visited Ulm."]
    assert await texts(engine, tenant_id="t2") == []


async def test_an_unknown_user_on_a_fresh_data_dir_stores_nothing(engine):
    with pytest.raises(UserNotFoundError):
        await engine.remember("A note.", dataset_name="notes", user="no-such-user")
    with pytest.raises(RecallPreconditionError):  # no store was created on the way
        await engine.recall("note", LEX)
