"""kill -9 of a process in the middle of its ingests never leaves half an item in a
FalkorDB graph: each ingest is one command, which the server runs whole or not
at all. Slow (20 kills of a writer process)."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from recall_engine.storage.falkordb_graph import FalkorGraphStore
from recall_engine.storage.falkordb_server import FalkorServer
from tests.storage import falkordb_live

ROOT = Path(__file__).resolve().parents[2]
CHUNKS = 2000  # ~2 MB per ingest query: long enough to be cut in the middle

WRITER = f"""
import dataclasses, sys
sys.path.insert(0, {str(ROOT)!r})
from recall_engine.storage.falkordb_graph import FalkorGraphStore
from recall_engine.storage.falkordb_server import FalkorServer
from tests.storage.test_graph_contract import DS, item
from tests.storage.test_falkordb_graph import _chunk

store = FalkorGraphStore(FalkorServer(sys.argv[1]), "tenant")
print("ready", flush=True)
n = int(sys.argv[2])
while True:
    data_id = f"d{{n}}"
    chunks = [_chunk(f"{{data_id}}-{{i}}", data_id, "word " * 200, i) for i in range({CHUNKS})]
    record = dataclasses.replace(item(data_id), chunk_count={CHUNKS})
    store.write_ingest([DS], [record], chunks, ())
    n += 1
"""


def _half_items(store: FalkorGraphStore) -> list[list[object]]:
    """Items whose chunks are not all there, and chunks without their item."""
    partial = store.read(
        "MATCH (d:Document) OPTIONAL MATCH (d)-[:CONTAINS]->(c:Chunk) "
        "WITH d, count(c) AS n WHERE n <> d.chunk_count RETURN d.id, n"
    )
    stray = store.read("MATCH (c:Chunk) WHERE NOT (:Document)-[:CONTAINS]->(c) RETURN c.id LIMIT 5")
    return partial + stray


@pytest.mark.slow
def test_kill_9_mid_ingest_leaves_no_half_item() -> None:
    url = falkordb_live.server().url()
    server = FalkorServer(url)
    store = FalkorGraphStore(server, "tenant")
    rng = random.Random(21)
    try:
        for kill in range(20):
            writer = subprocess.Popen(
                [sys.executable, "-c", WRITER, url, str(kill * 1000)],
                stdout=subprocess.PIPE,
                text=True,
            )
            assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
            time.sleep(rng.uniform(0.05, 1.5))
            writer.kill()
            writer.wait()
            assert _half_items(store) == [], f"after kill {kill + 1}"
        written = len(store.document_ids())
        assert written > 0  # the writers did get ingests through between kills
    finally:
        server.close()
