"""What the FalkorDB graph store promises beyond the shared contract: an ingest is
one query (all or nothing, never half seen), a lost reply is settled by asking
the server, caller Cypher runs on the server's read-only command with a timeout,
and no message shows the server's password. Against a real FalkorDB server."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import redis

from recall_engine.core.errors import ConfigError, InvalidInputError, QueryTimeoutError, StoreError
from recall_engine.storage import falkordb_readonly
from recall_engine.storage.falkordb_graph import FalkorGraphStore
from recall_engine.storage.falkordb_server import FalkorServer
from recall_engine.storage.records import ChunkRecord
from tests.live_uvicorn import free_port
from tests.storage import falkordb_live
from tests.storage.test_graph_contract import ADA, DS, LONDON, chunk, graph_of, ingest, item


def _chunk(cid: str, data_id: str, text: str, index: int = 0) -> ChunkRecord:
    return ChunkRecord(
        id=cid, data_id=data_id, dataset_id="ds1", dataset_name="science", chunk_index=index,
        text=text, document_name=f"{data_id}.txt",
    )  # fmt: skip


@pytest.fixture
def store() -> FalkorGraphStore:
    return falkordb_live.fresh_store()


def test_a_failed_ingest_leaves_nothing(store: FalkorGraphStore) -> None:
    ingest(store, "d1", graph=graph_of("d1", ADA, LONDON))
    # d2 is new, d1 is there already: the unique key on Document.id refuses the
    # query part-way, and FalkorDB undoes what it had written of d2.
    with pytest.raises(StoreError, match="nothing of it was kept"):
        store.write_ingest([DS], [item("d2"), item("d1")], [chunk("d2")], ())
    assert store.document_ids() == {"d1"}
    assert store.read_only_query("MATCH (c:Chunk) RETURN c.id")[1] == [["c-d1"]]


def test_readers_see_an_ingest_whole_or_not_at_all(store: FalkorGraphStore) -> None:
    many = [_chunk(f"c{n}", "big", f"chunk {n} " * 20, n) for n in range(5000)]
    seen: set[int] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.add(store.read_only_query("MATCH (c:Chunk) RETURN count(c)")[1][0][0])

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        store.write_ingest([DS], [item("big")], many, ())
    finally:
        done.set()
        watcher.join()
    assert seen <= {0, len(many)}
    assert store.read_only_query("MATCH (c:Chunk) RETURN count(c)")[1] == [[len(many)]]


def _everything(store: FalkorGraphStore) -> list[list[object]]:
    return store.read("MATCH (n) WHERE NOT n:WriterFence RETURN labels(n)[0], n.id ORDER BY n.id")


def test_a_replica_that_lost_the_graph_to_another_writes_nothing(
    store: FalkorGraphStore,
) -> None:
    """A stalled replica's write, prepared under a lease another replica has taken
    since (and claimed the graph with), is refused by the graph itself, whole."""
    stale = FalkorGraphStore(
        store._server, store.name.removeprefix(f"{store._server.prefix}graph:")
    )
    assert stale.name == store.name  # two replicas' stores of one tenant graph
    stale.fence_writes("replica-a")
    ingest(stale, "d1", graph=graph_of("d1", ADA, LONDON))  # its turn: it lands
    store.fence_writes("replica-b")  # b took the lease over and claimed the graph
    ingest(store, "d2", graph=graph_of("d2", ADA, new=False))
    before = _everything(store)
    refused = "Another replica took over writing this tenant's graph"
    with pytest.raises(StoreError, match=refused):
        ingest(stale, "d3", replace=("d1",), graph=graph_of("d3", LONDON, new=False))
    with pytest.raises(StoreError, match=refused):
        stale.delete_data_items(["d1"])
    with pytest.raises(StoreError, match=refused):
        stale.delete_dataset("ds1")
    with pytest.raises(StoreError, match=refused):
        stale.write_validity([])
    assert _everything(store) == before  # nothing of a refused write is kept
    assert store.delete_data_items(["d1"]).entity_ids == (LONDON.id,)  # b's turn
    stale.fence_writes("replica-a")  # a holds the lease again: its writes land again
    ingest(stale, "d4")
    assert stale.document_ids() == {"d2", "d4"}
    # The fence names the writer by a digest, not by its host and process.
    (holder,) = store.read("MATCH (w:WriterFence) RETURN w.holder")
    assert "replica" not in holder[0] and len(holder[0]) == 32


class _LostReply:
    """Runs the write on the server, then loses the reply (or loses the request)."""

    def __init__(self, graph: Any, *, sent: bool) -> None:
        self._graph, self._sent = graph, sent

    def query(self, text: str, params: dict[str, Any]) -> Any:
        if self._sent:
            self._graph.query(text, params)
        raise redis.ConnectionError("Connection closed by server.")


def test_a_lost_reply_is_settled_by_asking_the_server(store: FalkorGraphStore) -> None:
    ingest(store, "d1", graph=graph_of("d1", ADA, LONDON))
    real = store._writes
    store._writes = _LostReply(real, sent=True)
    removal = ingest(store, "d2", replace=("d1",), graph=graph_of("d2", ADA, new=False))
    assert removal.entity_ids == (LONDON.id,)  # as if the reply had come
    assert store.document_ids() == {"d2"}
    store._writes = _LostReply(real, sent=False)
    with pytest.raises(StoreError, match="did not land"):
        ingest(store, "d3")
    assert store.document_ids() == {"d2"}


def test_caller_cypher_is_read_only_on_the_server(
    store: FalkorGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest(store, "d1", graph=graph_of("d1", ADA, LONDON))
    # Without the keyword guard, GRAPH.RO_QUERY itself refuses the write.
    monkeypatch.setattr(falkordb_readonly, "check_read_query", lambda query: None)
    with pytest.raises(InvalidInputError, match="read-only"):
        store.read_only_query("MATCH (e:Entity) DETACH DELETE e")
    assert store.entity_ids() == {ADA.id, LONDON.id}


def test_caller_cypher_bounds_and_values(store: FalkorGraphStore) -> None:
    ingest(store, "d1", graph=graph_of("d1", ADA, LONDON))
    with pytest.raises(QueryTimeoutError):
        store.read_only_query(
            "UNWIND range(1, 1000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x)", timeout_ms=1
        )
    with pytest.raises(InvalidInputError, match="not valid"):
        store.read_only_query("MATCH (e:Entity RETURN e")
    with pytest.raises(InvalidInputError, match="CALL"):
        store.read_only_query("CALL db.labels()")
    # The test server caps a query's memory (falkordb_live.QUERY_MEM_CAPACITY).
    pad = "x" * 400
    with pytest.raises(InvalidInputError, match="more memory than the graph server allows"):
        store.read_only_query(
            f"UNWIND range(1, 1000000) AS x WITH collect(toString(x) + '{pad}') AS l "
            "RETURN size(l)",
            timeout_ms=30_000,
        )
    # FalkorDB keeps no schema, so a name the graph lacks would match nothing quietly.
    with pytest.raises(InvalidInputError, match="no label 'NoSuchTable'"):
        store.read_only_query("MATCH (n:NoSuchTable) RETURN n")
    with pytest.raises(InvalidInputError, match="no relationship type 'KNOWS'"):
        store.read_only_query("MATCH (:Entity)-[:RELATES|KNOWS]->(b) RETURN b")
    assert store.read_only_query("MATCH (c:Chunk) WHERE c.text = '(n:Nope)' RETURN c.id") == (
        ["c.id"], [],
    )  # fmt: skip
    columns, rows = store.read_only_query(
        "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a, r, b.name AS name"
    )
    assert columns == ["a", "r", "name"]
    (node, edge, name), *_ = rows
    assert node["_label"] == "Entity" and node["name"] == "Ada Lovelace" and name == "London"
    assert edge["_label"] == "RELATES" and edge["predicate"] == "lives_in"
    assert edge["_src"] == node["_id"]


def test_text_is_data_never_query(store: FalkorGraphStore) -> None:
    text = 'quote " back \\ slash\nnew line }) DETACH DELETE n // 漢字 😀'
    store.write_ingest([DS], [item("x")], [_chunk("c-x", "x", text)], ())
    assert store.read_only_query("MATCH (c:Chunk) RETURN c.text")[1] == [[text]]
    found = store.read_only_query("MATCH (c:Chunk) WHERE c.text = $t RETURN c.id", {"t": text})
    assert found[1] == [["c-x"]]


def test_tenants_and_prefixes_keep_apart(store: FalkorGraphStore) -> None:
    ingest(store, "d1")
    other = FalkorGraphStore(store._server, "another-tenant")
    assert other.document_ids() == set() and other.datasets() == {}
    assert other.name != store.name and other.name.startswith("recall-engine:contract:graph:")


def test_a_server_that_is_down_is_a_store_error_without_the_password() -> None:
    url = f"falkordb://:{falkordb_live.PASSWORD}@127.0.0.1:{free_port()}"
    with pytest.raises(StoreError) as info:
        FalkorServer(url)
    assert "127.0.0.1" in str(info.value) and "graph_url" in str(info.value)
    assert falkordb_live.PASSWORD not in str(info.value)


def test_a_wrong_password_is_refused_without_showing_it() -> None:
    port = falkordb_live.server().port
    wrong = "not-the-password-7d1f"
    with pytest.raises(StoreError) as info:
        FalkorServer(f"falkordb://:{wrong}@127.0.0.1:{port}")
    assert wrong not in str(info.value) and falkordb_live.PASSWORD not in str(info.value)


def test_a_redis_without_falkordb_is_refused() -> None:
    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_timeout=1).ping()
    except redis.RedisError:
        pytest.skip("no plain Redis on 127.0.0.1:6379")
    with pytest.raises(ConfigError, match="no FalkorDB module"):
        FalkorServer("redis://127.0.0.1:6379")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("bolt://127.0.0.1:7687", "falkordb://"),
        ("falkordb://127.0.0.1:port", "port must be a number"),
        ("falkordb://127.0.0.1:6380?prefix=a/b", "prefix"),
    ],
)
def test_a_bad_url_is_a_config_error(url: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        FalkorServer(url)
