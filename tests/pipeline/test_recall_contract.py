"""recall()'s signature, validation and error contract (issue 12), engine and module level."""

from __future__ import annotations

import inspect

import pytest

from recall_engine import Document, RecallEngine, SearchType, api
from recall_engine.core.errors import (
    DatasetNotFoundError,
    InvalidInputError,
    RecallPreconditionError,
    UserNotFoundError,
)
from recall_engine.testing import DeterministicEmbedder
from retrievers import RETRIEVERS
from tests.own_loop import run_on_own_loop
from tests.remote_fixture import MODES, built, engine_in_mode


@pytest.fixture(params=MODES)
async def engine(request, tmp_path, hash_embedder):
    """The embedded engine and the same engine through RecallEngine.connect."""
    async for eng in engine_in_mode(request.param, tmp_path / "data", hash_embedder):
        yield eng


@pytest.fixture(scope="module", params=MODES)
def remembered(request, tmp_path_factory):
    """One engine per mode for the module that remembered one sentence: a bad value is
    refused before anything runs, so the tests that use it share it."""
    path = tmp_path_factory.mktemp("contract") / "data"
    with built(request.param, path, embedder=DeterministicEmbedder()) as eng:
        run_on_own_loop(lambda: eng.remember("Einstein was born in Ulm."))
        yield eng


SIGNATURE = [
    ("query_text", inspect.Parameter.empty),
    ("query_type", None),
    ("datasets", None),
    ("dataset_ids", None),
    ("top_k", 15),
    ("auto_route", True),
    ("session_id", None),
    ("only_context", False),
    ("system_prompt", None),
    ("system_prompt_path", None),
    ("node_name", None),
    ("node_name_filter_operator", "OR"),
    ("wide_search_top_k", None),
    ("triplet_distance_penalty", None),
    ("feedback_influence", 0.0),
    ("recency_bias", 0.0),
    ("as_of", None),
    ("metadata_filters", None),
    ("verbose", False),
    ("retriever_specific_config", None),
    ("response_model", None),
    ("include_references", False),
    ("user", None),
    ("tenant_id", None),
    ("scope", None),
]


@pytest.mark.parametrize("function", [RecallEngine.recall, api.recall], ids=["engine", "module"])
def test_the_signature_is_cognees(function):
    params = [p for p in inspect.signature(function).parameters.values() if p.name != "self"]
    assert [(p.name, p.default) for p in params] == SIGNATURE
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[2:])
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


async def test_unknown_keyword_is_a_type_error(engine, monkeypatch):
    await engine.remember("Einstein was born in Ulm.")
    with pytest.raises(TypeError):
        await engine.recall("Ulm", node_type="Person")
    monkeypatch.setattr(api, "_default", engine)
    with pytest.raises(TypeError):
        await api.recall("Ulm", node_type="Person")


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"top_k": 0}, "top_k"),
        ({"top_k": -3}, "top_k"),
        ({"query_text": "   "}, "query_text"),
        ({"node_name_filter_operator": "XOR"}, "node_name_filter_operator"),
        ({"session_id": ""}, "session_id"),
        ({"session_id": 42}, "session_id"),
        ({"feedback_influence": 2}, "feedback_influence"),
        ({"feedback_influence": True}, "feedback_influence"),
        ({"user": 3.5}, "user"),
        ({"include_references": "yes"}, "include_references"),
    ],
)
async def test_bad_values_are_clear_validation_errors(remembered, kwargs, named):
    call = {"query_text": "Where was Einstein born?", **kwargs}
    with pytest.raises(InvalidInputError) as info:
        await remembered.recall(**call)
    assert named in str(info.value)
    assert isinstance(info.value, ValueError)


async def test_recall_before_anything_was_remembered(tmp_path, hash_embedder):
    async with RecallEngine(tmp_path / "data", embedder=hash_embedder) as engine:
        await engine.create_user("alice")  # users alone are not memory
        with pytest.raises(RecallPreconditionError, match=r"remember\(\) first"):
            await engine.recall("anything")
        with pytest.raises(RecallPreconditionError):
            await engine.recall("anything", session_id="s1")
    assert not (tmp_path / "data" / "tenants").exists()


async def test_empty_dataset_and_no_match_give_an_empty_list(engine):
    stored = await engine.remember(Document(text="Einstein was born in Ulm."), dataset_name="d")
    assert await engine.recall("zebra quagga", SearchType.CHUNKS_LEXICAL) == []
    await engine.forget(data_id=stored.data_ids)
    for query_type in RETRIEVERS:
        assert await engine.recall("Einstein", query_type, datasets=["d"]) == []
    assert await engine.recall('"Einstein born"', session_id="s") == []


async def test_scope_errors(engine):
    await engine.remember("Einstein was born in Ulm.", dataset_name="physics")
    with pytest.raises(DatasetNotFoundError, match="physics"):
        await engine.recall("Ulm", datasets=["nope"])
    with pytest.raises(DatasetNotFoundError):
        await engine.recall("Ulm", dataset_ids=["00000000-0000-0000-0000-000000000000"])
    with pytest.raises(UserNotFoundError, match="create_user"):
        await engine.recall("Ulm", user="no-such-user")
