"""Entity resolution across remember() calls: a sentence-initial surname in a later
document, and embedding similarity against the dataset's stored entities."""

from __future__ import annotations

from recall_engine import Document, RecallEngine
from recall_engine.read.store_reader import StoreReader

NAME_ROWS = (
    "MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity) WHERE e.normalized_name CONTAINS $part "
    "RETURN e.id, e.name, e.dataset_id, c.data_id, m.surface"
)


async def test_sentence_initial_surname_in_a_later_document(engine) -> None:
    first = await engine.remember(
        Document(text="Dr. Ada Lovelace wrote the first program.", title="a"), dataset_name="h"
    )
    later = await engine.remember(
        Document(text="Lovelace's notes describe the first algorithm.", title="b"),
        dataset_name="h",
    )
    await engine.remember(
        Document(text="Lovelace's notes describe the first algorithm.", title="b"),
        dataset_name="elsewhere",
    )
    rows = engine.store().graph.execute(NAME_ROWS, {"part": "lovelace"})
    assert {r[1] for r in rows} == {"Ada Lovelace"}  # none in "elsewhere"
    assert {r[3] for r in rows} == {first.data_ids[0], later.data_ids[0]}
    assert "Lovelace's" in {r[4] for r in rows}
    assert later.entity_count == 0  # folded into the stored Ada Lovelace


async def test_similar_names_merge_with_stored_entities_of_the_dataset(
    tmp_path, onnx_minilm
) -> None:
    eng = RecallEngine(tmp_path, embedder=onnx_minilm)
    await eng.remember(
        Document(text="Ada Lovelace joined Northwind Labs in London."), dataset_name="a"
    )
    later = Document(text="Grace Hopper worked for Northwind Laboratories.")
    await eng.remember(later, dataset_name="a")
    await eng.remember(later, dataset_name="b")
    await eng.remember(Document(text="Jane Lovelace visited Boston."), dataset_name="a")
    store = eng.store()
    rows = store.graph.execute(NAME_ROWS, {"part": "northwind"})
    by_dataset = {r[2]: r[1] for r in rows}
    datasets = await eng.list_datasets()
    assert by_dataset == {datasets["a"]: "Northwind Labs", datasets["b"]: "Northwind Laboratories"}
    assert len({r[0] for r in rows}) == 2  # one node per dataset
    people = store.graph.execute(NAME_ROWS, {"part": "lovelace"})
    assert {r[1] for r in people} == {"Ada Lovelace", "Jane Lovelace"}  # never one person
    reader = StoreReader(store, [datasets["a"]])
    hit = await reader.nearest_entities(onnx_minilm.embed(["Northwind Laboratories"])[0], 1)
    assert hit[0].name == "Northwind Labs" and len({s.data_id for s in hit[0].sources}) == 2
    eng.close()
