"""Retriever options (``retriever_specific_config``) of the graph and hybrid searches
each change what a recall returns when set away from their default, so none of these
is a knob with no effect."""

from __future__ import annotations

from pathlib import Path

from recall_engine import Conversation, Message, RecallEngine, SearchType

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
}


async def _context(
    engine: RecallEngine, search_type: SearchType, options: dict[str, object] | None
) -> list[object]:
    results = await engine.recall(
        QUERY,
        search_type,
        only_context=True,
        top_k=5,
        retriever_specific_config=options,
    )
    return [r.model_dump(mode="json") for r in results]


async def test_each_option_changes_the_context(tmp_path: Path, hash_embedder) -> None:
    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    try:
        await engine.remember(TEXTS, dataset_name="docs")
        await engine.remember(TURNS, dataset_name="docs")
        defaults = {t: await _context(engine, t, None) for t in (GRAPH, HYBRID)}
        unchanged = [
            (search_type.value, name)
            for (search_type, name), value in CHANGED.items()
            if await _context(engine, search_type, {name: value}) == defaults[search_type]
        ]
    finally:
        engine.close()
    assert unchanged == []
