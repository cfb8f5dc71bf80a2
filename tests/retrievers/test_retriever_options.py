"""Retriever options (``retriever_specific_config``) of the graph and hybrid searches
each change what a recall returns when set away from their default, so none of these
is a knob with no effect."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_engine import Conversation, Message, RecallEngine, SearchType
from recall_engine.core.errors import InvalidInputError

TEXTS = [
    "Ada Lovelace worked with Charles Babbage in London on the Analytical Engine.",
    "Charles Babbage designed the Difference Engine in London in 1822.",
    "Grace Hopper joined Remington Rand in 1949 and built the first compiler.",
    "Alan Turing worked at Bletchley Park and later in Manchester.",
    "The Analytical Engine was never built in Babbage's lifetime.",
    "Ada Lovelace wrote the first program for the Analytical Engine.",
    "Who did Ada Lovelace work with?",
    "Manchester built the first stored-program computer in 1948.",
]
TURNS = Conversation(
    messages=[
        Message(text="Did you visit London last May?", speaker="Mia"),
        Message(text="Yes, I saw the Analytical Engine at the Science Museum.", speaker="Leo"),
        Message(text="Ada Lovelace would have liked that.", speaker="Mia"),
    ]
)
QUERY = "Who did Ada Lovelace work with in London?"

GRAPH = SearchType.GRAPH_COMPLETION
HYBRID = SearchType.HYBRID_COMPLETION
TEMPORAL = SearchType.TEMPORAL
SUMMARY = SearchType.GRAPH_SUMMARY_COMPLETION
# (search type, option) -> a value away from its default that this corpus shows
CHANGED: dict[tuple[SearchType, str], object] = {
    (GRAPH, "dense_weight"): 0.0,
    (GRAPH, "lexical_weight"): 0.0,
    (GRAPH, "entity_weight"): 0.0,
    (GRAPH, "question_weight"): 0.0,
    (GRAPH, "triplet_weight"): 0.0,
    (GRAPH, "relation_lane_k"): 0,
    (GRAPH, "include_passages"): False,
    (GRAPH, "passages_ahead"): 0,
    (HYBRID, "neighbour_share"): 0.0,
    (HYBRID, "neighbour_window"): 0,
    (HYBRID, "neighbour_seeds"): 0,
    (GRAPH, "join_mode"): "reciprocal_rank",
    (HYBRID, "join_mode"): "reciprocal_rank",
    (TEMPORAL, "time_weight"): 0.0,
    (TEMPORAL, "event_weight"): 0.0,
    (TEMPORAL, "events_k"): 0,
    (SUMMARY, "offline_lines"): 1,
}
# options that change only what is listed past the first five items
WIDE: dict[tuple[SearchType, str], object] = {
    (GRAPH, "projection_k"): 1,
    (GRAPH, "triplets_k"): 0,
    (GRAPH, "walk_weight"): 0.0,
    (GRAPH, "entity_seed_weight"): 0.0,
    (HYBRID, "entities_k"): 0,
    (HYBRID, "facts_k"): 0,
    (HYBRID, "edges_per_entity"): 0,
}
WIDE_K = 20
# internal constants, no longer options: refused like any unknown key
REMOVED = [
    (GRAPH, "neighborhood_depth"),
    (GRAPH, "expand_seeds"),
    (GRAPH, "expand_degree"),
    (GRAPH, "expand_limit"),
    (SearchType.GRAPH_COMPLETION_COT, "round_k"),
]


async def _context(
    engine: RecallEngine,
    search_type: SearchType,
    options: dict[str, object] | None,
    top_k: int = 5,
) -> list[object]:
    results = await engine.recall(
        QUERY,
        search_type,
        only_context=True,
        top_k=top_k,
        retriever_specific_config=options,
    )
    return [r.model_dump(mode="json") for r in results]


async def test_each_option_changes_the_context(tmp_path: Path, hash_embedder) -> None:
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    try:
        await engine.remember(TEXTS, dataset_name="docs")
        await engine.remember(TURNS, dataset_name="docs")
        unchanged = []
        for table, top_k in ((CHANGED, 5), (WIDE, WIDE_K)):
            types = {search_type for search_type, _ in table}
            defaults = {t: await _context(engine, t, None, top_k) for t in types}
            unchanged += [
                (search_type.value, name)
                for (search_type, name), value in table.items()
                if await _context(engine, search_type, {name: value}, top_k)
                == defaults[search_type]
            ]
    finally:
        engine.close()
    assert unchanged == []


@pytest.mark.parametrize(("search_type", "name"), REMOVED)
async def test_internal_constants_are_not_options(
    engine: RecallEngine, search_type: SearchType, name: str
) -> None:
    await engine.remember(TEXTS[:2], dataset_name="docs")
    with pytest.raises(InvalidInputError, match=name):
        await engine.recall(
            QUERY, search_type, only_context=True, retriever_specific_config={name: 1}
        )
