"""Every registered search type through recall(), on one small corpus, with the
fake LLM server for the LLM: non-empty results for a relevant query, [] for an
empty dataset, top_k respected, result kinds and search_type right, and no LLM
call at all with only_context=True (types that need the LLM to retrieve refuse
clearly instead)."""

from __future__ import annotations

import pytest

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.core.models import ResponseGraphEntry
from recall_engine.errors import LLMNotConfiguredError
from recall_engine.testing import DeterministicEmbedder, FakeLLMServer
from retrievers import RETRIEVERS
from tests.distributed_profile import distributed_profile
from tests.own_loop import filled
from tests.remote_fixture import MODES, serve

QUESTION = "Which database does the billing service use?"
QUERIES = {SearchType.CYPHER: "MATCH (c:Chunk) RETURN c.id AS id, c.text AS text"}
TOP_K = 2
# Types that may report another type as the one that ran: FEELING_LUCKY runs its
# pick; TEMPORAL falls back to graph completion on a query without a time.
DELEGATING = {SearchType.FEELING_LUCKY, SearchType.TEMPORAL}


def _reply(payload: dict) -> str:
    text = " ".join(str(m.get("content", "")) for m in payload.get("messages", []))
    if "Cypher" in text and "Schema:" in text:
        return "MATCH (c:Chunk) WHERE c.text CONTAINS 'Postgres' RETURN c.id AS id, c.text AS t"
    if "Search strategies:" in text:
        return "CHUNKS"
    return "The billing service uses Postgres."


@pytest.fixture(scope="module")
def server():
    """The module's fake LLM server; tests count its requests before and after a call."""
    with FakeLLMServer(default=_reply) as fake:
        yield fake


async def _fill(eng: RecallEngine) -> None:
    await eng.remember(
        [
            Document(text="The billing service moved to Postgres in March.", title="billing"),
            Document(text="Postgres backups run nightly for the billing service.", title="ops"),
            Document(text="Our cafeteria serves vegan lunch on Fridays.", title="food"),
        ],
        dataset_name="docs",
    )
    await eng.remember(
        "Always use parameterised SQL queries against the billing Postgres database.",
        dataset_name="docs",
        node_set=["coding_agent_rules"],
    )


@pytest.fixture(scope="module")
def distributed_filled(tmp_path_factory):
    """A distributed profile filled once for the module (by an engine that is then
    closed): each test opens a replica of its own on it, with a fresh data dir."""
    with distributed_profile() as profile, FakeLLMServer(default=_reply) as fake:
        llm = {"llm_model": "openai/fake-model", "llm_api_base": fake.base_url, "llm_api_key": "t"}
        data = tmp_path_factory.mktemp("dist") / "data"
        filled(_fill, data, embedder=DeterministicEmbedder(), **profile.options(**llm))
        yield profile


@pytest.fixture(scope="module", params=MODES)
def engine(request, tmp_path_factory, server, prebuilt):
    """One engine per mode for the module (recall writes nothing the tests read): a copy
    of the store filled once per session, used directly or served on 127.0.0.1 and
    reached through ``RecallEngine.connect``; or a replica of its own on the
    distributed profile, filled once per module."""
    llm = {"llm_model": "openai/fake-model", "llm_api_base": server.base_url, "llm_api_key": "test"}
    data = tmp_path_factory.mktemp("contract") / "data"
    if request.param == "distributed":
        profile = request.getfixturevalue("distributed_filled")
        eng = RecallEngine(data, embedder=DeterministicEmbedder(), **profile.options(**llm))
        yield eng
        eng.close()
        return
    eng = RecallEngine(prebuilt(_fill, data, **llm), embedder=DeterministicEmbedder(), **llm)
    if request.param == "embedded":
        yield eng
    else:
        served = serve(eng)
        yield served.connect()
        served.stop()
    eng.close()


@pytest.mark.parametrize("only_context", [True, False])
@pytest.mark.parametrize("search_type", list(RETRIEVERS))
async def test_every_type_through_recall(engine, server, search_type, only_context):
    cls = RETRIEVERS[search_type]
    before = len(server.requests)
    query = QUERIES.get(search_type, QUESTION)
    if cls.needs_llm and only_context:
        with pytest.raises(LLMNotConfiguredError, match="only_context"):
            await engine.recall(query, search_type, only_context=True, top_k=TOP_K)
        assert len(server.requests) == before
        return
    results = await engine.recall(query, search_type, only_context=only_context, top_k=TOP_K)
    assert results, f"{search_type.value} returned nothing for a relevant query"
    assert all(isinstance(r, ResponseGraphEntry) for r in results)
    ran = results[0].search_type
    assert ran in RETRIEVERS and all(r.search_type is ran for r in results)
    if search_type not in DELEGATING:
        assert ran is search_type
    ran_cls = RETRIEVERS[ran]
    assert {r.kind for r in results} == {ran_cls.kind}
    if ran_cls.answers:
        assert len(results) == 1
        assert results[0].metadata["answer_mode"] == ("context_only" if only_context else "llm")
    else:
        assert 1 <= len(results) <= TOP_K
    if only_context:
        assert len(server.requests) == before, "only_context=True must make no LLM call"


@pytest.mark.parametrize("search_type", list(RETRIEVERS))
async def test_an_empty_dataset_answers_nothing(tmp_path, hash_embedder, server, search_type):
    async with RecallEngine(
        tmp_path / "empty",
        embedder=hash_embedder,
        llm_model="openai/fake-model",
        llm_api_base=server.base_url,
        llm_api_key="test",
    ) as eng:
        stored = await eng.remember("Postgres runs billing.", dataset_name="gone")
        await eng.forget(data_id=stored.data_ids)
        query = QUERIES.get(search_type, QUESTION)
        for only_context in (True, False):
            assert await eng.recall(query, search_type, only_context=only_context) == []
