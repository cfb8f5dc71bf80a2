"""The ``GraphStore`` contract: every implementation in ``contract_stores`` passes it.

Small data, written through the Protocol's own methods, read back through its
typed reads; nothing here knows the backend's query language.
"""

from __future__ import annotations

from typing import Any

import pytest

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.graph import Entity, EntityType, Mention, Relation
from recall_engine.storage.graph_reads import DocumentRecord, EdgeRecord, EntityRecord, MentionLink
from recall_engine.storage.graph_records import GraphWrite
from recall_engine.storage.records import ChunkRecord, DataItemRecord

DS = ("ds1", "science", "2024-01-01T00:00:00")


def item(data_id: str, *, source: str | None = None, failure: str | None = None):
    return DataItemRecord(
        id=data_id, dataset_id="ds1", dataset_name="science", name=f"{data_id}.txt",
        kind="text", content_hash=f"h-{data_id}", source_id=source, metadata={"k": 1},
        created_at="2024-01-01T00:00:00", chunk_count=1, extraction_failure=failure,
    )  # fmt: skip


def chunk(data_id: str) -> ChunkRecord:
    return ChunkRecord(
        id=f"c-{data_id}", data_id=data_id, dataset_id="ds1", dataset_name="science",
        chunk_index=0, text=f"text of {data_id}", document_name=f"{data_id}.txt",
    )  # fmt: skip


def entity(eid: str, name: str, type_: EntityType = EntityType.PERSON) -> Entity:
    return Entity(id=eid, name=name, normalized_name=name.lower(), type=type_, namespace="ns")


ADA, LONDON = entity("e-ada", "Ada Lovelace"), entity("e-lon", "London", EntityType.PLACE)


def graph_of(data_id: str, *entities: Entity, new: bool = True) -> GraphWrite:
    cid = f"c-{data_id}"
    relation = Relation(
        id=f"r-{data_id}", source_id=ADA.id, target_id=LONDON.id, predicate="lives_in",
        raw_predicate="lives in", context="Ada lives in London.", confidence=0.9,
        chunk_id=cid, namespace="ns",
    )  # fmt: skip
    return GraphWrite(
        dataset_id="ds1",
        entities=entities,
        relations=(relation,),
        mentions=tuple(Mention(chunk_id=cid, entity_id=e.id, surface=e.name) for e in entities),
        chunk_data={cid: data_id},
        new_entity_ids=frozenset(e.id for e in entities) if new else frozenset(),
    )


def ingest(store: Any, data_id: str, *, replace: tuple[str, ...] = (), **kw: Any) -> Any:
    graph = kw.pop("graph", None)
    return store.write_ingest([DS], [item(data_id, **kw)], [chunk(data_id)], replace, graph=graph)


@pytest.fixture
def filled(graph_store: Any) -> Any:
    ingest(graph_store, "d1", source="s1", graph=graph_of("d1", ADA, LONDON))
    return graph_store


def test_datasets_and_documents(filled: Any) -> None:
    assert filled.datasets() == {"ds1": "science"}
    assert filled.document_ids() == {"d1"}
    assert filled.document_ids(["d1", "nope"]) == {"d1"} and filled.document_ids([]) == set()
    (doc,) = filled.documents("ds1")
    assert doc == DocumentRecord(
        id="d1", dataset_id="ds1", dataset_name="science", name="d1.txt", kind="text",
        content_hash="h-d1", source_id="s1", created_at="2024-01-01T00:00:00", chunk_count=1,
        metadata={"k": 1},
    )  # fmt: skip
    with pytest.raises(AttributeError):  # frozen: a caller cannot change what it read
        doc.name = "other"  # type: ignore[misc]
    assert filled.documents("other") == []
    ingest(filled, "d0")
    assert [d.id for d in filled.documents()] == ["d0", "d1"]  # ordered by id
    assert [d.source_id for d in filled.documents("ds1")] == [None, "s1"]
    assert filled.documents_by_source("ds1", ["s1", "s2"]) == {"s1": "d1"}
    assert filled.documents_by_source("ds1", []) == {}


def test_entities_relations_and_mentions(filled: Any) -> None:
    assert filled.entity_ids() == {ADA.id, LONDON.id}
    assert [e.id for e in filled.entities()] == sorted([ADA.id, LONDON.id])
    assert filled.entities(["other"]) == []
    (relation,) = filled.relations(["ds1"])
    assert (relation.source_id, relation.predicate, relation.target_id) == (
        ADA.id, "lives_in", LONDON.id,
    )  # fmt: skip
    assert filled.mention_chunks([ADA.id]) == {ADA.id: [("c-d1", "d1")]}
    assert filled.mention_chunks([]) == {}
    found = filled.entity_candidates("ds1", ["lovelace"])  # a person's surname is a key
    assert [e.id for e in found] == [ADA.id] and filled.entity_candidates("ds1", []) == []


def test_typed_reads(filled: Any) -> None:
    (edge,) = filled.edges_by_id(["r-d1", "nope"], ["ds1"])
    assert isinstance(edge, EdgeRecord)
    assert (edge.source_name, edge.target_name, edge.target_type) == (
        "Ada Lovelace", "London", "PLACE",
    )  # fmt: skip
    assert (edge.chunk_id, edge.data_id, edge.dataset_id) == ("c-d1", "d1", "ds1")
    assert edge.context == "Ada lives in London." and edge.confidence == pytest.approx(0.9)
    assert filled.edges_by_id(["r-d1"], ["other"]) == [] and filled.edges_by_id([], ["ds1"]) == []
    assert filled.edges_touching([LONDON.id], ["ds1"]) == [edge]
    assert filled.edges_from([ADA.id], ["ds1"]) == [edge]
    assert filled.edges_from([LONDON.id], ["ds1"]) == [] and filled.edges_from([ADA.id], []) == []
    assert filled.edges_in_chunks(["c-d1"], ["ds1"]) == [edge]
    assert filled.edges_in_chunks(["c-d1"], []) == []
    assert filled.edges_of_datasets(["ds1", "other"]) == [edge]
    assert filled.edges_of_datasets(["other"]) == [] and filled.edges_of_datasets([]) == []
    (ada,) = filled.entities_by_keys(["ada lovelace"], ["ds1"])
    assert ada == EntityRecord(
        id=ADA.id, name="Ada Lovelace", type="PERSON", description="", aliases=(),
        dataset_id="ds1",
    )  # fmt: skip
    assert filled.entities_by_keys(["ada lovelace"], ["other"]) == []
    assert filled.mention_links() == [
        MentionLink(chunk_id="c-d1", entity_id=e, dataset_id="ds1")
        for e in sorted([ADA.id, LONDON.id])
    ]
    assert filled.mention_links(["c-d1", "nope"]) == filled.mention_links()
    assert filled.mention_links(["nope"]) == [] and filled.mention_links([]) == []
    schema = {t.name: t for t in filled.graph_schema()}
    assert schema["Entity"].kind == "NODE" and ("name", "STRING") in schema["Entity"].properties
    assert schema["RELATES"].kind == "REL" and ("Entity", "Entity") in schema["RELATES"].connections


def test_replace_keeps_what_the_new_version_mentions(filled: Any) -> None:
    removal = ingest(filled, "d2", replace=("d1",), graph=graph_of("d2", ADA, new=False))
    assert removal.data_ids == ("d1",) and removal.entity_ids == (LONDON.id,)
    assert filled.document_ids() == {"d2"} and filled.entity_ids() == {ADA.id}
    assert filled.edges_by_id(["r-d1"], ["ds1"]) == []


def test_delete_data_items_and_dataset(filled: Any) -> None:
    removal = filled.delete_data_items(["d1"])
    assert removal.data_ids == ("d1",) and set(removal.entity_ids) == {ADA.id, LONDON.id}
    assert filled.document_ids() == set() and filled.entity_ids() == set()
    assert filled.mention_links() == [] and filled.relations() == []
    filled.delete_dataset("ds1")
    assert filled.datasets() == {}


def test_extraction_failures(graph_store: Any) -> None:
    ingest(graph_store, "d1", failure="LLM down")
    ingest(graph_store, "d2")
    assert graph_store.extraction_failures(["d1", "d2"]) == {"d1": "LLM down"}
    graph_store.delete_data_items(["d1"])
    assert graph_store.extraction_failures(["d1"]) == {}


def test_read_only_query_reads_and_refuses_writes(filled: Any) -> None:
    columns, rows = filled.read_only_query("MATCH (e:Entity) RETURN e.name ORDER BY e.name")
    assert columns == ["e.name"] and rows == [["Ada Lovelace"], ["London"]]
    with pytest.raises(InvalidInputError):
        filled.read_only_query("MATCH (e:Entity) DETACH DELETE e")
    assert filled.entity_ids() == {ADA.id, LONDON.id}


def test_documents_page_and_count_in_listing_order(graph_store: Any) -> None:
    times = ["2024-01-02", "2024-01-01", "2024-01-02", "2024-01-03", "2024-01-01"]
    items = [
        DataItemRecord(
            id=f"d{n}",
            dataset_id="ds1",
            dataset_name="science",
            name=f"d{n}.txt",
            kind="text",
            content_hash=f"h{n}",
            source_id="conversation:a" if n == 2 else f"s{n}",
            metadata={},
            created_at=at,
            chunk_count=1,
        )
        for n, at in enumerate(times)
    ]
    graph_store.write_ingest([DS], items, [chunk(i.id) for i in items])
    order = [i.id for i in sorted(items, key=lambda i: (i.created_at, i.id))]
    assert [d.id for d in graph_store.documents_page("ds1")] == order
    assert [d.id for d in graph_store.documents_page("ds1", skip=1, limit=3)] == order[1:4]
    assert graph_store.documents_page("ds1", skip=9, limit=3) == []
    assert [d.id for d in graph_store.documents_page("ds1", source_prefix="conversation:")] == [
        "d2"
    ]
    assert graph_store.document_count("ds1") == 5 and graph_store.document_count("other") == 0
    keys = [(i.created_at, i.id) for i in items]
    assert graph_store.documents_before("ds1", keys) == [order.index(i.id) for i in items]
    assert graph_store.documents_before("ds1", [("2000-01-01", "a"), ("2099-01-01", "a")]) == [0, 5]
    assert graph_store.documents_before("other", keys[:1]) == [0]
    assert graph_store.documents_before("ds1", []) == []
