"""GRAPH_COMPLETION's own options (``retriever_specific_config``) each change what a
recall returns when set away from their default, so none is a knob with no effect."""

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

# option -> a value away from its default that this corpus shows
CHANGED = {
    "dense_weight": 0.0,
    "lexical_weight": 0.0,
    "entity_weight": 0.0,
    "question_weight": 0.0,
    "triplet_weight": 0.0,
    "relation_lane_k": 0,
    "include_passages": False,
    "passages_ahead": 0,
}


async def _context(engine: RecallEngine, options: dict[str, object] | None) -> list[object]:
    results = await engine.recall(
        QUERY,
        SearchType.GRAPH_COMPLETION,
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
        default = await _context(engine, None)
        unchanged = [
            name
            for name, value in CHANGED.items()
            if await _context(engine, {name: value}) == default
        ]
    finally:
        engine.close()
    assert unchanged == []
