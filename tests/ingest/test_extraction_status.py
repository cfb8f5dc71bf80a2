"""Ingest honesty: remember() reports per data item whether graph extraction
succeeded, a failed extraction is recorded and retried by the next remember()
of the same content, and a bad time is an input error, never a silent None."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.core.errors import InvalidInputError, LLMError
from recall_engine.core.graph import ChunkExtraction
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.rules import RuleBasedExtractor
from recall_engine.graph.stage import parse_time
from recall_engine.ingest import ingestor
from recall_engine.testing import DeterministicEmbedder

ADA = Document(text="Ada Lovelace worked with Charles Babbage in London.", title="ada")
QUIET = Document(text="It rained in Paris. Grace Hopper wrote a compiler.", title="quiet")


class DownExtractor:
    """An async extractor whose provider is down."""

    name = "down"

    async def extract(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        raise LLMError("Model 'openai/x' failed (503): provider down")


class GivesUpOnParis(RuleBasedExtractor):
    """The rules, except that the chunk mentioning Paris comes back failed."""

    def extract_sync(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        out = super().extract_sync(chunks)
        return [
            ChunkExtraction(
                chunk_id=e.chunk_id,
                namespace=e.namespace,
                data_id=e.data_id,
                failed="unusable LLM output: not JSON",
            )
            if "Paris" in c.text
            else e
            for c, e in zip(chunks, out, strict=True)
        ]


@pytest.fixture
async def engine(tmp_path):
    eng = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    yield eng
    eng.close()


def entity_count(eng: RecallEngine) -> int:
    return eng.store().graph.execute("MATCH (e:Entity) RETURN count(e)")[0][0]


async def test_each_item_reports_ok_then_skipped_as_a_duplicate(engine) -> None:
    first = await engine.remember([ADA, QUIET], dataset_name="d")
    assert first.extraction == dict.fromkeys(first.data_ids, "ok")
    again = await engine.remember(ADA, dataset_name="d")
    assert again.extraction == {again.data_ids[0]: "skipped"}
    assert again.retried_data_ids == []


async def test_no_extractor_is_skipped(tmp_path) -> None:
    eng = RecallEngine(tmp_path / "d", embedder=DeterministicEmbedder(), graph_extractor="none")
    try:
        stored = await eng.remember(ADA, dataset_name="d")
        assert stored.extraction == {stored.data_ids[0]: "skipped"}
    finally:
        eng.close()


async def test_a_failed_extraction_stores_the_chunks_records_it_and_is_retried(
    tmp_path, monkeypatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setattr(ingestor, "build_extractor", lambda config: DownExtractor())
    eng = RecallEngine(data, embedder=DeterministicEmbedder())
    try:
        stored = await eng.remember(ADA, dataset_name="d")
        (data_id,) = stored.data_ids
        assert stored.extraction[data_id].startswith("failed: LLMError: ")
        assert "provider down" in stored.extraction[data_id]
        assert entity_count(eng) == 0
        hits = await eng.recall("Babbage", SearchType.CHUNKS, only_context=True)
        assert hits  # the chunks are stored and found
        chunks = len(eng.store().index)
    finally:
        eng.close()
    monkeypatch.undo()
    eng = RecallEngine(data, embedder=DeterministicEmbedder())  # recorded across a restart
    try:
        assert eng.store().graph.extraction_failures([data_id]) == {
            data_id: stored.extraction[data_id].removeprefix("failed: ")
        }
        retried = await eng.remember(ADA, dataset_name="d")
        assert retried.retried_data_ids == [data_id] and retried.new_data_ids == [data_id]
        assert retried.extraction == {data_id: "ok"}
        assert entity_count(eng) > 0
        assert eng.store().graph.extraction_failures([data_id]) == {}
        assert len(eng.store().index) == chunks  # stored once, not twice
        assert (await eng.remember(ADA, dataset_name="d")).extraction == {data_id: "skipped"}
    finally:
        eng.close()


async def test_a_chunk_the_extractor_gave_up_on_fails_its_item_only(engine, monkeypatch) -> None:
    monkeypatch.setattr(ingestor, "build_extractor", lambda config: GivesUpOnParis())
    stored = await engine.remember([ADA, QUIET], dataset_name="d")
    ada, quiet = stored.data_ids
    assert stored.extraction[ada] == "ok"
    assert stored.extraction[quiet] == "failed: 1 of 1 chunk(s): unusable LLM output: not JSON"
    assert engine.store().graph.extraction_failures([ada, quiet]).keys() == {quiet}


async def test_a_time_set_after_validation_is_refused_naming_the_field(engine) -> None:
    await engine.remember(ADA, dataset_name="d")
    doc = Document(text="Ada Lovelace lived in London.")
    doc.created_at = "yesterday"  # type: ignore[assignment]
    with pytest.raises(InvalidInputError, match=r"Document\.created_at.*'yesterday'"):
        await engine.remember(doc, dataset_name="d")
    conv = Conversation(messages=[Message(id="D1:1", text="I moved to Lyon")])
    conv.messages[0].timestamp = "sometime"  # type: ignore[assignment]
    with pytest.raises(InvalidInputError, match=r"Message D1:1 timestamp.*'sometime'"):
        await engine.remember(conv, dataset_name="d")
    constructed = Document.model_construct(
        text="x", title=None, metadata={}, created_at="2023-99-99", source_id=None
    )
    with pytest.raises(InvalidInputError, match=r"Document\.created_at"):
        await engine.remember(constructed, dataset_name="d")
    assert len(await engine.list_items()) == 1  # nothing of the refused inputs stored


def test_parse_time_refuses_instead_of_returning_none() -> None:
    assert parse_time(None) is None and parse_time("") is None
    assert parse_time("2023-05-08T13:56:00").year == 2023
    with pytest.raises(InvalidInputError, match="chunk c1 timestamp: 'May-ish'"):
        parse_time("May-ish", what="chunk c1 timestamp")
