"""Engine-level options: custom router rules and written dates."""

from datetime import date, datetime

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.core.errors import InvalidInputError, InvalidRuleError

RULES = """
[[rules]]
id = "team.grep"
pattern = '\\bgrep\\b'
target = "CHUNKS_LEXICAL"
weight = 6.0
examples = ["grep the notes for invoices"]
"""


async def test_engine_routes_with_rules_from_a_file(tmp_path, hash_embedder):
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES)
    engine = RecallEngine(tmp_path / "d", embedder=hash_embedder, router_rules=rules)
    assert "team.grep" in [r.id for r in engine.router.rules]
    await engine.remember("Invoice 42 was paid late.", dataset_name="notes")
    results = await engine.recall("grep invoice")
    assert results[0].search_type == SearchType.CHUNKS_LEXICAL
    assert "team.grep" in results[0].metadata["route"]["fired"]
    engine.close()


def test_environment_names_the_rules_file(tmp_path, hash_embedder, monkeypatch):
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES)
    monkeypatch.setenv("RECALL_ENGINE_ROUTER_RULES", str(rules))
    engine = RecallEngine(tmp_path / "d", embedder=hash_embedder)
    assert engine.router.rules[-1].id == "team.grep"


def test_bad_rules_file_is_refused_when_the_engine_is_built(tmp_path, hash_embedder):
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES.replace("CHUNKS_LEXICAL", "NO_SUCH_TYPE"))
    with pytest.raises(InvalidRuleError, match=r"team\.grep"):
        RecallEngine(tmp_path / "d", embedder=hash_embedder, router_rules=rules)
    with pytest.raises(InvalidInputError, match="does not exist"):
        RecallEngine(tmp_path / "d", embedder=hash_embedder, router_rules=tmp_path / "nope.toml")


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
        ("2023-05-08T13:56:00", datetime(2023, 5, 8, 13, 56)),
        ("8 May 2023", datetime(2023, 5, 8)),
        (date(2023, 5, 8), datetime(2023, 5, 8)),
    ],
)
def test_timestamps_accept_iso_and_written_dates(written, expected):
    assert Message(text="x", timestamp=written).timestamp == expected
    assert Document(text="x", created_at=written).created_at == expected


@pytest.mark.parametrize("relative", ["yesterday", "last week", "someday"])
def test_relative_or_unreadable_dates_are_refused(relative):
    with pytest.raises(ValueError, match="ISO 8601"):
        Message(text="x", timestamp=relative)


async def test_written_dates_reach_the_chunk_prefix(engine):
    chat = Conversation(
        messages=[Message(id="a", speaker="Ann", text="Hi", timestamp="8 May 2023")]
    )
    await engine.remember(chat, dataset_name="c")
    (hit,) = await engine.recall("Hi", SearchType.CHUNKS_LEXICAL)
    assert hit.text == "[2023-05-08 00:00] Ann: Hi"


async def test_a_turn_that_mentions_only_its_speaker_is_stored(engine):
    # Regression: a batch whose mentions all lack offsets (implied speakers) broke Kuzu typing.
    chat = Conversation(messages=[Message(id="a", speaker="Ann", text="ok, sounds good")])
    stored = await engine.remember(chat, dataset_name="c")
    assert stored.entity_count == 1
    rows = engine.store().graph.execute(
        "MATCH (:Chunk)-[m:MENTIONS]->(e:Entity) RETURN e.name, e.type, m.start_offset"
    )
    assert rows == [["Ann", "PERSON", None]]
