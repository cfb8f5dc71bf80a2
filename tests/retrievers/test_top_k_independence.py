"""The head of every ranking does not depend on top_k (issue 19 item 5).

For every search type that ranks, and for the routed default, with
``only_context=True``: the first 10 results at top_k 10, 15, 25 and 70 are the
same (same hits, same order, same scores). The corpus is ``examples/data`` plus
a few conversations written here, large enough (about 150 chunks) that top_k=70
reaches past the passage lane's candidate depth and every lane has more than it
lists.
"""

from __future__ import annotations

import itertools
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.core.models import ResponseGraphEntry
from retrievers import RETRIEVERS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"
TOP_KS = (10, 15, 25, 70)
HEAD = 10

PEOPLE = ("Ann", "Bruno", "Chiara", "Dmitri", "Esther", "Farid")
PLACES = ("Lyon", "Porto", "Krakow", "Nairobi", "Osaka", "Quito", "Tromso", "Seville")
THINGS = (
    "a pottery class",
    "a half marathon",
    "the new bakery",
    "a jazz concert",
    "a hiking trip",
    "the chess club",
    "a violin lesson",
    "the book fair",
    "a sailing course",
    "the photo exhibition",
)
SAYINGS = (
    "I went to {thing} in {place} with {friend} last weekend.",
    "{friend} told me {thing} in {place} was sold out in {month}.",
    "We are planning {thing} for {month}, maybe in {place}.",
    "My sister moved to {place} in {month} and started {thing}.",
    "Do you remember when {friend} and I got lost on the way to {thing}?",
    "I finally signed up for {thing}; {friend} recommended it.",
    "The weather in {place} ruined {thing} two weeks ago.",
    "{friend} works at a clinic in {place} now, since {month}.",
)
MONTHS = ("January", "March", "May", "July", "September", "November")

RULES = [
    f"Coding rule: {text}."
    for text in (
        "use parameterised SQL queries, never string formatting",
        "log errors with the request id",
        "keep functions under fifty lines",
        "pin dependencies with lower bounds",
        "write a test that fails before the fix",
        "never commit secrets to the repository",
        "name booleans as questions",
        "prefer composition to inheritance",
        "document why, not what",
        "return typed results, not dictionaries",
        "close database connections in a finally block",
        "retry network calls with a backoff",
        "keep the default test run fast",
        "validate input at the boundary",
    )
]

# A question per kind of path: graph links, a time the store dates, a bare "when",
# exact words. Every type is asked all four (TEMPORAL falls back on the others).
QUERIES = (
    "Who went to the jazz concert in Porto with Bruno?",
    "What did Chiara do in Lyon in March 2023?",
    "When did Esther start the sailing course?",
    "pottery class Krakow",
)
CYPHER = "MATCH (c:Chunk) RETURN c.id AS id, c.text AS text ORDER BY id LIMIT 20"


def _conversation(n: int, rng: random.Random) -> Conversation:
    a, b = PEOPLE[2 * n], PEOPLE[2 * n + 1]
    start = datetime(2023, 1, 5, 18, 0) + timedelta(days=11 * n)
    messages = []
    for turn in range(45):
        speaker = (a, b)[turn % 2]
        friend = rng.choice([p for p in PEOPLE if p != speaker])
        text = rng.choice(SAYINGS).format(
            thing=rng.choice(THINGS),
            place=rng.choice(PLACES),
            friend=friend,
            month=rng.choice(MONTHS),
        )
        session = turn // 9
        when = start + timedelta(days=30 * session, minutes=turn)
        messages.append(
            Message(id=f"D{session + 1}:{turn + 1}", speaker=speaker, text=text, timestamp=when)
        )
    return Conversation(messages=messages, title=f"chat {a} and {b}")


async def _fill(engine: RecallEngine) -> None:
    rng = random.Random(19)
    await engine.remember(EXAMPLES, dataset_name="corpus")
    for n in range(3):
        await engine.remember(_conversation(n, rng), dataset_name="corpus")
    rules = [Document(text=rule, title=f"rule {n}") for n, rule in enumerate(RULES, start=1)]
    await engine.remember(rules, dataset_name="corpus", node_set=["coding_agent_rules"])


@pytest.fixture
async def corpus(tmp_path, hash_embedder, prebuilt):
    """The corpus above, filled once per session, copied per test."""
    eng = RecallEngine(prebuilt(_fill, tmp_path / "data"), embedder=hash_embedder)
    yield eng
    eng.close()


def _head(results: list[Any]) -> list[Any]:
    """The first 10 results as comparable values: per hit for item results, the hits
    behind the one context entry for answering types."""
    entries = [r for r in results if isinstance(r, ResponseGraphEntry)]
    if len(entries) == 1 and entries[0].metadata.get("answer_mode") == "context_only":
        (entry,) = entries
        return [(entry.kind, entry.search_type, hit) for hit in entry.raw[:HEAD]]
    return [(e.kind, e.search_type, e.text, e.score, e.raw) for e in entries[:HEAD]]


async def _heads(engine: RecallEngine, query: str, search_type: SearchType | None, **kw: Any):
    heads = []
    for top_k in TOP_KS:
        results = await engine.recall(
            query, search_type, datasets=["corpus"], top_k=top_k, only_context=True, **kw
        )
        heads.append(_head(results))
    return heads


SKIPPED = {
    SearchType.CYPHER: "returns the rows of the caller's own query, in the query's order",
}
RANKING = [
    pytest.param(t, marks=pytest.mark.skip(reason=SKIPPED[t])) if t in SKIPPED else t
    for t in RETRIEVERS
    if not RETRIEVERS[t].needs_llm  # only_context=True refuses them: nothing ranks offline
]


@pytest.mark.parametrize("search_type", [*RANKING, None], ids=lambda t: t.value if t else "routed")
async def test_the_first_ten_results_are_the_same_for_every_top_k(corpus, search_type):
    queries = [CYPHER] if search_type is SearchType.CYPHER else QUERIES
    filled = 0
    for query in queries:
        heads = await _heads(corpus, query, search_type)
        for top_k, head in zip(TOP_KS[1:], heads[1:], strict=True):
            assert head == heads[0], f"{query!r}: top_k={top_k} starts unlike top_k=10"
        filled += len(heads[0]) == HEAD
    assert filled, "no query filled a head of 10: the corpus tests nothing"


async def test_a_larger_top_k_only_appends(corpus):
    """Past the head too: each top_k's results start with the smaller top_k's."""
    query = QUERIES[0]
    for search_type in (SearchType.HYBRID_COMPLETION, SearchType.GRAPH_COMPLETION):
        lists = []
        for top_k in TOP_KS:
            (entry,) = await corpus.recall(
                query, search_type, datasets=["corpus"], top_k=top_k, only_context=True
            )
            lists.append(entry.raw)
        assert [len(hits) for hits in lists] == list(TOP_KS)
        for shorter, longer in itertools.pairwise(lists):
            assert longer[: len(shorter)] == shorter


async def test_feedback_keeps_the_head_the_same_for_every_top_k(corpus):
    (answer,) = await corpus.recall(
        "Who recommended the violin lesson?",
        SearchType.RAG_COMPLETION,
        datasets=["corpus"],
        session_id="rated",
        top_k=5,
    )
    await corpus.add_feedback("rated", answer.metadata["qa_id"], score=5)
    for search_type in (SearchType.CHUNKS_LEXICAL, SearchType.HYBRID_COMPLETION):
        heads = await _heads(corpus, "violin lesson", search_type, feedback_influence=0.8)
        plain = await _heads(corpus, "violin lesson", search_type)
        assert heads[0] != plain[0], "feedback moved nothing: the test tests nothing"
        assert all(head == heads[0] for head in heads[1:])
