"""The graph-completion variants (COT, context extension, summary, decomposition),
TRIPLET_COMPLETION and SUMMARIES: offline, and with the fake LLM server."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from recall_engine import RecallEngine, SearchType
from recall_engine.core.hits import ChunkHit, TripletHit
from recall_engine.llm import LLMConfig
from recall_engine.pipeline.llm_port import PromptLLM
from recall_engine.testing import FakeLLMServer
from retrievers.graph_completion_context_extension import (
    OFFLINE_MODE,
    GraphCompletionContextExtensionRetriever,
)
from retrievers.graph_completion_cot import GraphCompletionCotRetriever
from retrievers.graph_completion_decomposition import (
    _CONJUNCTION,
    GraphCompletionDecompositionRetriever,
    split_question,
)
from retrievers.graph_rounds import Stop, hit_key, offline_follow_up
from retrievers.graph_search import GraphResult
from retrievers.graph_summary_completion import GraphSummaryCompletionRetriever
from retrievers.summaries import SummariesRetriever
from retrievers.triplet_completion import TripletCompletionRetriever
from tests.retrievers.graph_fixtures import make_ctx, remember_docs

QUERY = "Who worked with Charles Babbage?"
VARIANTS = [
    GraphCompletionCotRetriever,
    GraphCompletionContextExtensionRetriever,
    GraphSummaryCompletionRetriever,
    GraphCompletionDecompositionRetriever,
]


@pytest.fixture
def server():
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
def llm(server):
    return PromptLLM(
        LLMConfig(
            model="openai/fake-model",
            api_base=server.base_url,
            api_key=SecretStr("test"),
            timeout_s=5.0,
            max_retries=0,
        )
    )


@pytest.mark.parametrize("cls", VARIANTS)
async def test_offline_variants_return_ranked_deduplicated_context(engine, cls):
    await remember_docs(engine)
    for top_k in (1, 4):
        out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, top_k=top_k))
        assert 0 < len(out.hits) <= top_k
        keys = [hit_key(h) for h in out.hits]
        assert len(keys) == len(set(keys))
        assert out.hits[0].sources[0].document_name == "lovelace"
        assert out.context
    empty = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, datasets=[]))
    assert empty.hits == []


async def test_offline_rounds_converge_and_say_what_ran(engine):
    await remember_docs(engine)
    for cls in (GraphCompletionCotRetriever, GraphCompletionContextExtensionRetriever):
        out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, top_k=3))
        assert out.details["mode"].startswith("offline")
        assert 1 <= len(out.details["rounds"]) <= 4
        assert out.details["stopped"] in {"converged", "max_rounds"}
        if out.details["stopped"] == "converged" and len(out.details["rounds"]) > 1:
            assert out.details["rounds"][-1]["new"] == 0


def _passages(*texts: str) -> GraphResult:
    hits = [
        ChunkHit(score=1.0 / n, chunk_id=t, data_id="d", chunk_index=0, text=t, document_name="n")
        for n, t in enumerate(texts, start=1)
    ]
    return GraphResult(hits=hits, passages=hits)


async def test_offline_follow_ups_bridge_or_gather():
    """Offline chain-of-thought asks the question plus the best evidence not used yet;
    context extension (``gather``) the question plus all of it so far, newest last."""
    merged = _passages("Ada met Babbage.", "Babbage built the Engine.", "The Engine ran.")
    for gather, second, third in [
        (False, "Q? Babbage built the Engine.", "Q? The Engine ran."),
        (True, "Q? Ada met Babbage. Babbage built the Engine.", None),
    ]:
        step, used = offline_follow_up("Q?", gather=gather), set()
        assert await step(merged, used) == "Q? Ada met Babbage."
        assert await step(merged, used) == second
        if third is not None:
            assert await step(merged, used) == third
        else:
            assert await step(merged, used) == second + " The Engine ran."
        assert await step(merged, used) == Stop("converged")
    assert await offline_follow_up("Q?")(_passages(), set()) == Stop("no_context")


async def test_offline_extension_says_so_and_keeps_the_question(engine):
    await remember_docs(engine)
    cls = GraphCompletionContextExtensionRetriever
    out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, top_k=6))
    assert out.details["mode"] == OFFLINE_MODE
    assert all(r["query"].startswith(QUERY) for r in out.details["rounds"])


async def test_cot_stops_when_the_answer_is_validated(engine, server, llm):
    await remember_docs(engine)
    server.enqueue("Ada Lovelace.", "The context supports it. Missing: nothing")
    cls = GraphCompletionCotRetriever
    out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, llm=llm))
    assert out.details["stopped"] == "validated" and len(out.details["rounds"]) == 1
    assert len(server.requests) == 2


async def test_cot_follows_up_and_stops_when_a_round_adds_nothing(engine, server, llm):
    await remember_docs(engine)
    # round 1: answer, validation, follow-up; round 2 brings the Curie document
    server.enqueue("Ada Lovelace.", "Missing: where Marie Curie was born", "Marie Curie Warsaw")
    # round 2: answer, validation, the same follow-up again -> nothing new -> stop
    server.enqueue("Ada Lovelace.", "Missing: Warsaw", "Marie Curie Warsaw")
    cls = GraphCompletionCotRetriever
    out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, top_k=6, llm=llm))
    rounds = out.details["rounds"]
    assert [r["query"] for r in rounds] == [QUERY, "Marie Curie Warsaw", "Marie Curie Warsaw"]
    assert rounds[1]["new"] > 0 and rounds[2]["new"] == 0
    assert out.details["stopped"] == "converged"
    docs = {s.document_name for h in out.hits for s in h.sources}
    assert {"lovelace", "curie"} <= docs
    keys = [hit_key(h) for h in out.hits]
    assert len(keys) == len(set(keys))


async def test_context_extension_uses_the_completion_as_next_query(engine, server, llm):
    await remember_docs(engine)
    server.enqueue("Marie Curie was born in Warsaw.", "Marie Curie was born in Warsaw.")
    cls = GraphCompletionContextExtensionRetriever
    out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, top_k=6, llm=llm))
    queries = [r["query"] for r in out.details["rounds"]]
    assert queries[1] == "Marie Curie was born in Warsaw."
    assert out.details["stopped"] == "converged" and len(queries) == 3


async def test_graph_summary_answers_from_a_summary(engine, server, llm):
    await remember_docs(engine)
    cls = GraphSummaryCompletionRetriever
    offline = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY))
    assert offline.details["summary"]["mode"] == "extractive"
    assert offline.context and "Ada Lovelace" in offline.context
    server.enqueue("Ada Lovelace worked with Babbage in London.")
    out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, llm=llm))
    assert out.details["summary"]["mode"] == "llm"
    assert out.context and out.context.endswith("Ada Lovelace worked with Babbage in London.")
    assert "Connections:" in (server.last_request.message("user") or "")


def test_rule_based_split_on_question_marks_and_conjunctions():
    assert split_question("Where was Marie Curie born? Who worked with Babbage?") == [
        "Where was Marie Curie born?",
        "Who worked with Babbage?",
    ]
    assert split_question("Where was Marie Curie born and who did Ada Lovelace work with?") == [
        "Where was Marie Curie born",
        "who did Ada Lovelace work with?",
    ]
    # a conjunction inside one question is not a split
    assert split_question("What do Ada and Marie have in common?") == [
        "What do Ada and Marie have in common?"
    ]
    assert len(split_question("? ".join(f"Who is person {n}" for n in range(9)) + "?")) == 5


async def test_decomposition_retrieves_per_subquestion(engine, server, llm):
    await remember_docs(engine)
    cls = GraphCompletionDecompositionRetriever
    query = "Where was Marie Curie born and who worked with Charles Babbage?"
    offline = await cls().retrieve(query, await make_ctx(engine, cls, query, top_k=6))
    assert offline.details["split"] == "rules" and len(offline.details["subquestions"]) == 2
    docs = {s.document_name for h in offline.hits for s in h.sources}
    assert {"lovelace", "curie"} <= docs
    server.enqueue('["Where was Marie Curie born?", "Who worked with Charles Babbage?"]')
    server.enqueue("Warsaw.", "Ada Lovelace.")
    out = await cls().retrieve(query, await make_ctx(engine, cls, query, top_k=6, llm=llm))
    assert out.details["split"] == "llm"
    assert [a["answer"] for a in out.details["subquestions"]] == ["Warsaw.", "Ada Lovelace."]
    assert out.context and out.context.startswith("Sub-answers:")


async def test_max_subquestions_bounds_the_searches(engine):
    await remember_docs(engine)
    cls = GraphCompletionDecompositionRetriever
    query = "Where was Marie Curie born and who worked with Charles Babbage?"
    ctx = await make_ctx(engine, cls, query, top_k=6, max_subquestions=1)
    out = await cls().retrieve(query, ctx)
    assert [s["question"] for s in out.details["subquestions"]] == ["Where was Marie Curie born"]


async def test_decomposition_falls_back_to_rules_on_an_unusable_reply(engine, server, llm):
    await remember_docs(engine)
    server.enqueue("I cannot split this.")
    cls = GraphCompletionDecompositionRetriever
    out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, llm=llm))
    assert out.details["split"] == "rules" and out.hits


async def test_a_reply_of_brackets_that_never_close_falls_back_to_rules(engine, server, llm):
    """An LLM reply is searched for its JSON list once, from the first "[" to the
    last "]": a reply of 20,000 "[" and no "]" is unusable, not a long scan."""
    await remember_docs(engine)
    server.enqueue("[" * 20_000)
    cls = GraphCompletionDecompositionRetriever
    out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, llm=llm))
    assert out.details["split"] == "rules" and out.hits
    server.enqueue('Here: ["Where was Marie Curie born?", "Who wrote the first program?"] ok')
    out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, llm=llm))
    assert out.details["split"] == "llm"


async def test_triplet_completion_returns_nearest_relations(engine):
    await remember_docs(engine)
    cls = TripletCompletionRetriever
    out = await cls().retrieve(QUERY, await make_ctx(engine, cls, QUERY, top_k=2))
    assert 0 < len(out.hits) <= 2 and all(isinstance(h, TripletHit) for h in out.hits)
    assert out.context and out.context.startswith("Connections:")
    assert out.hits[0].sources[0].document_name == "lovelace"


async def test_summaries_are_searched_by_meaning(engine):
    await remember_docs(engine)
    cls = SummariesRetriever
    out = await cls().retrieve("vegan lunch", await make_ctx(engine, cls, "vegan lunch", top_k=1))
    assert len(out.hits) == 1 and "vegan" in out.hits[0].text


@pytest.mark.parametrize(
    "search_type",
    [
        SearchType.GRAPH_COMPLETION,
        SearchType.GRAPH_COMPLETION_COT,
        SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION,
        SearchType.GRAPH_SUMMARY_COMPLETION,
        SearchType.GRAPH_COMPLETION_DECOMPOSITION,
        SearchType.TRIPLET_COMPLETION,
    ],
)
async def test_only_context_makes_no_llm_call(tmp_path, hash_embedder, server, search_type):
    engine = RecallEngine(
        tmp_path,
        embedder=hash_embedder,
        llm_model="openai/fake-model",
        llm_api_base=server.base_url,
        llm_api_key=SecretStr("test"),
        llm_max_retries=0,
    )
    try:
        await remember_docs(engine)
        before = len(server.requests)
        (entry,) = await engine.recall(QUERY, search_type, only_context=True)
        assert entry.metadata["answer_mode"] == "context_only"
        assert entry.metadata["sources"]
        assert len(server.requests) == before
    finally:
        engine.close()


def test_split_question_reads_a_long_run_of_spaces_once():
    # A query of max_query_chars spaces took the old pattern minutes (nested \s*/\s+ tried
    # from every space); a generous regex timeout stands in for a step count.
    for filler in (" " * 4096, " ," * 2048, " ;" * 2048, "\t" * 4096):
        text = "what" + filler + "x"
        assert _CONJUNCTION.split(text, timeout=20.0) == [text]
    assert split_question("Where was Ada born ,  and   who met her?") == [
        "Where was Ada born",
        "who met her?",
    ]
    assert split_question("Where was Ada born ; who met her?") == [
        "Where was Ada born",
        "who met her?",
    ]
