"""remember() and recall() end to end on real Kuzu and LanceDB stores."""

import json
import subprocess
import sys
import textwrap

import pytest

from recall_engine import Conversation, Document, Message, RecallEngine, SearchType
from recall_engine.core.errors import (
    DatasetNotFoundError,
    EmbeddingModelMismatchError,
    InvalidInputError,
    RecallPreconditionError,
    StoreError,
)
from recall_engine.testing import DeterministicEmbedder

NOTES = [
    Document(
        text="Einstein was born in Ulm in 1879.", title="einstein", metadata={"topic": "physics"}
    ),
    Document(text="Marie Curie discovered polonium and radium in Paris.", title="curie"),
    Document(
        text="Lovelace wrote the first published algorithm for the Analytical Engine.", title="ada"
    ),
]
CHAT = Conversation(
    messages=[
        Message(
            id="D1:1",
            speaker="Ann",
            text="I moved to Lyon last spring",
            timestamp="2023-05-08T13:56:00",
        ),
        Message(
            id="D1:2",
            speaker="Bob",
            text="Lyon has great food, enjoy!",
            timestamp="2023-05-08T13:57:00",
        ),
    ]
)


async def _counts(engine, tenant=None):
    store = engine.store(tenant)
    return len(store.index), store.vectors.count(), len(store.graph.document_ids())


@pytest.mark.parametrize("search_type", [SearchType.CHUNKS, SearchType.CHUNKS_LEXICAL])
async def test_chunk_results_carry_provenance(engine, search_type):
    stored = await engine.remember(NOTES, dataset_name="science")
    assert len(stored.new_data_ids) == 3 and stored.chunk_count == 3
    assert set(stored.timings) >= {"embed_s", "store_s", "total_s"}
    results = await engine.recall("Where was Einstein born?", search_type, top_k=2)
    top = results[0]
    assert top.text == "Einstein was born in Ulm in 1879."
    assert top.kind == "chunk" and top.source == "graph" and top.search_type == search_type
    assert top.dataset_name == "science" and top.dataset_id == stored.dataset_id
    assert top.metadata["document_name"] == "einstein"
    assert top.metadata["topic"] == "physics"
    assert top.metadata["chunk_index"] == 0
    assert top.metadata["data_id"] in stored.data_ids
    assert top.metadata["sources"][0]["chunk_id"] == top.metadata["chunk_id"]
    assert top.score is not None and len(results) <= 2
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


async def test_conversation_chunks_keep_message_ids_speaker_and_time(engine):
    await engine.remember(CHAT, dataset_name="chat-ann")
    (hit,) = await engine.recall("Lyon moved", SearchType.CHUNKS_LEXICAL, top_k=1)
    assert hit.text == "[2023-05-08 13:56] Ann: I moved to Lyon last spring"
    assert hit.metadata["message_ids"] == ["D1:1"]
    assert hit.metadata["speaker"] == "Ann"
    assert hit.metadata["sources"][0]["message_ids"] == ["D1:1"]


async def test_same_content_twice_adds_nothing(engine):
    first = await engine.remember(NOTES, dataset_name="science")
    before = await _counts(engine)
    again = await engine.remember(NOTES, dataset_name="science")
    assert again.new_data_ids == [] and sorted(again.skipped_data_ids) == sorted(first.data_ids)
    assert again.chunk_count == 0
    assert await _counts(engine) == before
    other = await engine.remember(NOTES[:1], dataset_name="elsewhere")
    assert other.new_data_ids and other.new_data_ids[0] not in first.data_ids


async def test_dataset_scope_is_strict(engine):
    await engine.remember(NOTES, dataset_name="science")
    await engine.remember(CHAT, dataset_name="chat-ann")
    for search_type in (SearchType.CHUNKS, SearchType.CHUNKS_LEXICAL):
        hits = await engine.recall(
            "Einstein Lyon Ulm food", search_type, datasets=["chat-ann"], top_k=15
        )
        assert hits and {h.dataset_name for h in hits} == {"chat-ann"}
        hits = await engine.recall("Einstein Lyon Ulm food", search_type, datasets="science")
        assert {h.dataset_name for h in hits} == {"science"}
    ids = await engine.list_datasets()
    hits = await engine.recall("Lyon", SearchType.CHUNKS, dataset_ids=[ids["chat-ann"]])
    assert {h.dataset_name for h in hits} == {"chat-ann"}


async def test_unknown_dataset_is_a_clear_error(engine):
    await engine.remember(NOTES, dataset_name="science")
    with pytest.raises(DatasetNotFoundError, match=r"scienc.*known datasets: science"):
        await engine.recall("x", SearchType.CHUNKS, datasets=["scienc"])


async def test_recall_before_remember(engine):
    with pytest.raises(RecallPreconditionError, match="remember"):
        await engine.recall("anything", SearchType.CHUNKS)


async def test_unknown_keyword_is_a_type_error(engine):
    with pytest.raises(TypeError):
        await engine.recall("q", node_type="Person")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"query_text": "  "}, "empty"),
        ({"query_text": "q", "top_k": 0}, "top_k"),
        ({"query_text": "q", "query_type": "NOPE"}, "Unknown search type"),
        ({"query_text": "q", "datasets": []}, "datasets"),
    ],
)
async def test_bad_recall_arguments(engine, kwargs, match):
    await engine.remember(NOTES, dataset_name="science")
    with pytest.raises(InvalidInputError, match=match):
        await engine.recall(**kwargs)


async def test_routed_recall_reports_the_decision(engine):
    await engine.remember(NOTES, dataset_name="science")
    results = await engine.recall('"published algorithm"', top_k=3)
    assert results[0].search_type == SearchType.CHUNKS_LEXICAL
    route = results[0].metadata["route"]
    assert route["search_type"] == "CHUNKS_LEXICAL" and route["fired"]


@pytest.mark.parametrize(
    ("data", "dataset", "error"),
    [
        ("   ", "ok", "empty"),
        ("fine text", "../escape", "path separator"),
        (Conversation(messages=[Message(id="a", text="x"), Message(text="y")]), "ok", "no id"),
        ([Document(text="good"), Document(text="")], "ok", "empty"),
        ("notes.pdf", "ok", "does not exist"),
    ],
)
async def test_bad_input_changes_nothing(engine, data, dataset, error):
    await engine.remember(NOTES, dataset_name="science")
    before = await _counts(engine)
    datasets = await engine.list_datasets()
    with pytest.raises(InvalidInputError, match=error):
        await engine.remember(data, dataset_name=dataset)
    assert await _counts(engine) == before
    assert await engine.list_datasets() == datasets


async def test_bad_input_creates_no_store(engine):
    with pytest.raises(InvalidInputError):
        await engine.remember("", dataset_name="x")
    assert not (engine.config.data_dir / "tenants").exists()


async def test_graph_failure_mid_ingest_leaves_store_as_it_was(engine, monkeypatch):
    await engine.remember(NOTES, dataset_name="science")
    before = await _counts(engine)
    store = engine.store()

    def broken(*args, **kwargs):
        raise StoreError("disk full")

    monkeypatch.setattr(store.graph, "write_ingest", broken)
    with pytest.raises(StoreError, match="disk full"):
        await engine.remember("A brand new fact about Kepler.", dataset_name="science")
    assert await _counts(engine) == before
    hits = await engine.recall("Kepler", SearchType.CHUNKS_LEXICAL)
    assert all("Kepler" not in h.text for h in hits)


async def test_crash_between_stores_is_cleaned_on_open(tmp_path, hash_embedder):
    engine = RecallEngine(tmp_path, embedder=hash_embedder)
    await engine.remember(NOTES, dataset_name="science")
    store = engine.store()
    # Simulate a crash after LanceDB was written but before the Kuzu commit.
    from recall_engine.storage.records import ChunkRecord

    ghost = ChunkRecord(
        id="ghost",
        data_id="never-committed",
        dataset_id="x",
        dataset_name="science",
        chunk_index=0,
        text="ghost text",
        document_name="ghost",
    )
    store.vectors.add_chunks([ghost], hash_embedder.embed(["ghost text"]), [["ghost"]])
    engine.close()
    reopened = RecallEngine(tmp_path, embedder=hash_embedder)
    assert reopened.store().vectors.count() == 3
    hits = await reopened.recall("ghost", SearchType.CHUNKS_LEXICAL)
    assert hits == []
    reopened.close()


async def test_new_version_of_a_source_replaces_the_old(engine):
    v1 = await engine.remember(
        Document(text="The office is in Berlin.", source_id="office"), dataset_name="d"
    )
    v2 = await engine.remember(
        Document(text="The office is in Munich.", source_id="office"), dataset_name="d"
    )
    assert v2.replaced_data_ids == v1.new_data_ids
    hits = await engine.recall("office", SearchType.CHUNKS_LEXICAL)
    assert [h.text for h in hits] == ["The office is in Munich."]


async def test_forget_by_data_id_and_by_dataset(engine):
    stored = await engine.remember(NOTES, dataset_name="science")
    await engine.remember(CHAT, dataset_name="chat")
    removed = await engine.forget(data_id=stored.data_ids[0])
    assert removed == 1
    hits = await engine.recall("Einstein Ulm", SearchType.CHUNKS_LEXICAL)
    assert all(h.metadata["data_id"] != stored.data_ids[0] for h in hits)
    assert await engine.forget(dataset_name="chat") == 2
    assert "chat" not in await engine.list_datasets()
    with pytest.raises(InvalidInputError):
        await engine.forget()


async def test_other_embedding_model_is_refused(tmp_path):
    first = RecallEngine(tmp_path, embedder=DeterministicEmbedder(64))
    await first.remember("hello", dataset_name="d")
    first.close()
    second = RecallEngine(tmp_path, embedder=DeterministicEmbedder(32))
    with pytest.raises(EmbeddingModelMismatchError, match="deterministic-hash-64"):
        await second.recall("hello", SearchType.CHUNKS)
    second.close()


async def test_tenants_are_isolated(engine):
    await engine.remember("Tenant A secret plan", dataset_name="d", tenant_id="a")
    await engine.remember("Tenant B other plan", dataset_name="d", tenant_id="b")
    hits = await engine.recall("plan", SearchType.CHUNKS_LEXICAL, tenant_id="b")
    assert [h.text for h in hits] == ["Tenant B other plan"]


async def test_a_restart_in_a_new_process_sees_everything(tmp_path, hash_embedder):
    engine = RecallEngine(tmp_path, embedder=hash_embedder)
    stored = await engine.remember(NOTES, dataset_name="science")
    await engine.remember(CHAT, dataset_name="chat")
    engine.close()
    script = textwrap.dedent(
        f"""
        import asyncio, json
        from recall_engine import RecallEngine, SearchType
        from recall_engine.testing import DeterministicEmbedder
        async def main():
            e = RecallEngine({str(tmp_path)!r}, embedder=DeterministicEmbedder())
            hits = await e.recall("Einstein Ulm", SearchType.CHUNKS_LEXICAL, datasets=["science"])
            dense = await e.recall("Lyon", SearchType.CHUNKS, datasets=["chat"])
            print(json.dumps({{"top": hits[0].metadata["data_id"], "datasets": await e.list_datasets(),
                              "dense": [h.metadata["message_ids"] for h in dense]}}))
            e.close()
        asyncio.run(main())
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["top"] == stored.data_ids[0]
    assert set(seen["datasets"]) == {"science", "chat"}
    assert sorted(seen["dense"]) == [["D1:1"], ["D1:2"]]


async def test_files_and_folders_end_to_end(engine, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# Alpha\nThe alpha project ships in May.")
    (folder / "b.txt").write_text("Beta is paused until further notice.")
    (folder / "slides.pdf").write_bytes(b"%PDF-1.7")
    (folder / ".draft.md").write_text("A hidden draft.")
    stored = await engine.remember(folder, dataset_name="docs")
    assert len(stored.new_data_ids) == 2
    # What was not read is said, with why; hidden files are left out on purpose.
    assert stored.unread_files == {str(folder / "slides.pdf"): "unsupported type '.pdf'"}
    again = await engine.remember(folder / "b.txt", dataset_name="docs")
    assert again.unread_files == {} and again.skipped_data_ids
    (hit,) = await engine.recall("alpha ships", SearchType.CHUNKS_LEXICAL, top_k=1)
    assert hit.metadata["document_name"] == "a.md"
    assert hit.metadata["source_path"].endswith("a.md")
