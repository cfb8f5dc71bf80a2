"""Scoping is exclusive: random users, datasets, grants and queries, zero leaks.

A model of owners and grants, kept apart from the engine, says what each call
may see; every result of every call (graph results and session entries) must
come from inside it, and every call outside it must raise the documented error.
"""

from __future__ import annotations

import random
from functools import partial

import pytest

from recall_engine import ResponseGraphEntry, ResponseQAEntry, SearchType
from recall_engine.core.errors import DatasetNotFoundError, PermissionDeniedError
from tests.remote_fixture import MODES, opened

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma"]
NAMES = ["notes", "work"]
TYPES = [SearchType.CHUNKS_LEXICAL, SearchType.CHUNKS]


class Model:
    """Who owns what and who may read what, as the engine should see it."""

    def __init__(self) -> None:
        self.owner: dict[str, str] = {}  # dataset id -> user key
        self.name: dict[str, str] = {}
        self.grants: dict[tuple[str, str], str] = {}  # (dataset id, user key) -> permission
        self.qa: dict[str, tuple[str, str, frozenset[str]]] = {}  # qa_id -> user, session, ds

    def readable(self, user: str) -> set[str]:
        return {d for d, o in self.owner.items() if o == user or (d, user) in self.grants}

    def own(self, user: str, name: str) -> str | None:
        return next((d for d, o in self.owner.items() if o == user and self.name[d] == name), None)


@pytest.fixture(params=MODES)
def open_engine(request):
    """``open_engine(path, ...)`` for ``RecallEngine(path, ...)`` in ``async with``: the
    engine itself, or the engine served on 127.0.0.1 and reached through
    ``RecallEngine.connect``."""
    return partial(opened, request.param)


def _sources(entry: ResponseGraphEntry) -> set[str]:
    found = {s["dataset_id"] for s in entry.metadata.get("sources", [])}
    if entry.dataset_id is not None:
        found.add(entry.dataset_id)
    return found


async def _run(open_engine, tmp_path, embedder, *, queries: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    model = Model()
    counts = {"queries": 0, "results": 0, "errors": 0, "session_hits": 0}
    async with open_engine(tmp_path / f"d{seed}", embedder=embedder, graph_extractor="none") as e:
        users: dict[str, object] = {"default": None}
        for key in ("u1", "u2", "u3"):
            users[key] = await e.create_user(key)
        for key, user in users.items():
            for name in rng.sample(NAMES, rng.randint(1, 2)):
                docs = [f"{key} {name} " + " ".join(rng.choices(WORDS, k=6)) for _ in range(3)]
                stored = await e.remember(docs, dataset_name=name, user=user)
                model.owner[stored.dataset_id] = key
                model.name[stored.dataset_id] = name
        all_ids = list(model.owner)
        sessions = ["s1", "s2"]
        while counts["queries"] < queries:
            key = rng.choice(list(users))
            user = users[key]
            roll = rng.random()
            if roll < 0.08:  # an owner shares or takes back
                dataset_id = rng.choice(all_ids)
                owner = model.owner[dataset_id]
                other = rng.choice([u for u in users if u != owner])
                if rng.random() < 0.6:
                    permission = rng.choice(["read", "write"])
                    await e.grant(dataset_id, to=users[other] or _default(e), by=users[owner],
                                  permission=permission)  # fmt: skip
                    model.grants[(dataset_id, other)] = permission
                else:
                    await e.revoke(dataset_id, to=users[other] or _default(e), by=users[owner])
                    model.grants.pop((dataset_id, other), None)
                continue
            counts["queries"] += 1
            query = " ".join(rng.sample(WORDS, 2))
            readable = model.readable(key)
            if roll < 0.16:  # an answer written to the session
                session = rng.choice(sessions)
                phrase = f'"{query}"'
                results = await e.recall(
                    phrase, SearchType.RAG_COMPLETION, session_id=session, user=user
                )
                for r in results:
                    assert _sources(r) <= readable
                    if "qa_id" in r.metadata:
                        model.qa[r.metadata["qa_id"]] = (key, session, frozenset(_sources(r)))
                continue
            if roll < 0.30:  # session first, then the (lexically routed) graph
                session = rng.choice(sessions)
                results = await e.recall(f'"{query}"', session_id=session, user=user)
                for r in results:
                    if isinstance(r, ResponseQAEntry):
                        counts["session_hits"] += 1
                        owner, sid, used = model.qa[r.qa_id]
                        assert (owner, sid) == (key, session), "another user's session entry"
                        assert used <= readable, "a session entry from an unreadable dataset"
                    else:
                        assert _sources(r) <= readable
                counts["results"] += len(results)
                continue
            names = ids = None
            mode = rng.choice(["all", "names", "ids", "both"])
            if mode in ("names", "both"):
                names = rng.sample([*NAMES, "nope"], rng.randint(1, 2))
            if mode in ("ids", "both"):
                ids = rng.sample(all_ids, rng.randint(1, 3))
                if rng.random() < 0.05:
                    ids.append("00000000-0000-0000-0000-000000000000")
            expected: set[str] | type[Exception]
            if ids is not None:
                if any(i not in model.owner for i in ids):
                    expected = DatasetNotFoundError
                elif any(i not in readable for i in ids):
                    expected = PermissionDeniedError
                else:
                    expected = set(ids)
            elif names is not None:
                own = [model.own(key, n) for n in names]
                expected = DatasetNotFoundError if None in own else set(own)  # type: ignore[arg-type]
            else:
                expected = readable
            call = e.recall(
                query, rng.choice(TYPES), datasets=names, dataset_ids=ids,
                top_k=rng.randint(1, 30), user=rng.choice([user, getattr(user, "id", None)]),
            )  # fmt: skip
            if isinstance(expected, type):
                with pytest.raises(expected):
                    await call
                counts["errors"] += 1
                continue
            results = await call
            counts["results"] += len(results)
            for r in results:
                assert isinstance(r, ResponseGraphEntry)
                assert r.dataset_id in expected, (key, mode, r.dataset_id, expected)
                assert r.raw["dataset_id"] in expected
    return counts


def _default(engine) -> str:
    from recall_engine.identity import default_user_id

    return default_user_id("default")


async def test_scoping_is_exclusive_over_random_calls(open_engine, tmp_path, hash_embedder):
    counts = await _run(open_engine, tmp_path, hash_embedder, queries=2000, seed=12)
    assert counts["results"] > 2000 and counts["errors"] > 50 and counts["session_hits"] > 20


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_scoping_is_exclusive_over_many_more_calls(
    open_engine, tmp_path, hash_embedder, seed
):
    counts = await _run(open_engine, tmp_path, hash_embedder, queries=5000, seed=seed)
    assert counts["results"] > 5000
