"""A fact is ended only by what the reader's filter passes: one replaced by a
statement the filter excludes (another team's note, or one told after ``as_of``,
whatever date it names) holds on, as far as the reader knows, until what replaced
that statement in turn, when the filter passes it, else it is current."""

from __future__ import annotations

from datetime import datetime

from recall_engine import Conversation, Document, Message, RecallEngine
from recall_engine.core.facts import Fact
from recall_engine.pipeline.as_of import AsOfReader
from recall_engine.read.filters import ChunkFilter
from recall_engine.read.store_reader import StoreReader

TEAM_A = ChunkFilter(equals=((("team",), "a"),))
MOVES = (
    ("a", "Ann moved to Lyon on 1 March 2023."),
    ("b", "Ann moved to Oslo on 5 March 2023."),
    ("a", "Ann moved to Paris on 9 March 2023."),
)


async def _readers(engine: RecallEngine, moves) -> tuple[StoreReader, StoreReader]:
    docs = [Document(text=text, metadata={"team": team}) for team, text in moves]
    await engine.remember(docs, dataset_name="docs")
    store = engine.store()
    ids = list(store.datasets())
    return StoreReader(store, ids), StoreReader(store, ids, where=TEAM_A)


def _told(facts: list[Fact]) -> dict[str, tuple[str | None, list[str], bool]]:
    """Object -> (until when, what replaced it, current)."""
    return {
        f.object: (
            f.valid_until.date().isoformat() if f.valid_until else None,
            [r.object for r in f.superseded_by],
            f.current,
        )
        for f in facts
        if f.family
    }


async def test_a_fact_replaced_only_where_the_filter_excludes_is_current(engine) -> None:
    everything, team_a = await _readers(engine, MOVES[:2])
    assert _told(await everything.facts("Ann"))["Lyon"] == ("2023-03-05", ["Oslo"], False)
    assert _told(await team_a.facts("Ann")) == {"Lyon": (None, [], True)}
    (lyon,) = await team_a.lexical_chunks(MOVES[0][1], 1)
    validity = await team_a.chunk_validity([lyon.chunk_id])
    assert _told(validity[lyon.chunk_id]) == {"Lyon": (None, [], True)}


async def test_a_fact_ends_where_the_excluded_replacement_was_replaced_in_turn(engine) -> None:
    # Lyon (a) -> Oslo (b) -> Paris (a): as team "a" knows it, Paris replaced Lyon
    everything, team_a = await _readers(engine, MOVES)
    assert _told(await everything.facts("Ann"))["Lyon"] == ("2023-03-05", ["Oslo"], False)
    told = {"Lyon": ("2023-03-09", ["Paris"], False), "Paris": (None, [], True)}
    assert _told(await team_a.facts("Ann")) == told
    (lyon,) = await team_a.lexical_chunks(MOVES[0][1], 1)
    validity = await team_a.chunk_validity([lyon.chunk_id])
    assert _told(validity[lyon.chunk_id]) == {"Lyon": told["Lyon"]}
    assert [f.object for f in await team_a.facts("Ann", history=False) if f.family] == ["Paris"]


async def test_as_of_a_move_told_later_did_not_end_the_home_then(engine) -> None:
    # told in 2025 that she had moved to Oslo in March 2023: as of 2024 the memory
    # knew only Lyon, and knew it as current
    said = ((MOVES[0][1], datetime(2023, 3, 2)), (MOVES[1][1], datetime(2025, 1, 1)))
    talks = [
        Conversation(messages=[Message(id=f"m{n}", speaker="Ann", text=text, timestamp=at)])
        for n, (text, at) in enumerate(said)
    ]
    await engine.remember(talks, dataset_name="chat")
    store = engine.store()
    ids = list(store.datasets())
    everything = StoreReader(store, ids)
    then = AsOfReader(store, ids, as_of=datetime(2024, 1, 1))
    assert _told(await everything.facts("Ann"))["Lyon"] == ("2023-03-05", ["Oslo"], False)
    assert _told(await then.facts("Ann")) == {"Lyon": (None, [], True)}
    (lyon,) = await then.lexical_chunks(MOVES[0][1], 1)
    validity = await then.chunk_validity([lyon.chunk_id])
    assert _told(validity[lyon.chunk_id]) == {"Lyon": (None, [], True)}


async def test_a_present_question_of_team_a_is_not_told_its_home_ended(engine) -> None:
    await _readers(engine, MOVES[:2])
    (everyone,) = await engine.recall("Where does Ann live?", only_context=True)
    assert "superseded by: moved_to Oslo" in everyone.text
    (answer,) = await engine.recall("Where does Ann live?", metadata_filters={"team": "a"})
    assert answer.text.startswith("Lyon")
    (context,) = await engine.recall(
        "Where does Ann live?", metadata_filters={"team": "a"}, only_context=True
    )
    assert "until 2023-03-05" not in context.text and "Oslo" not in context.text
