"""A store's meta file decides whether this version may open it: a store written by a
newer version, or a damaged meta file, is refused with what to do, and nothing changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from recall_engine import RecallEngine
from recall_engine.core.errors import ConfigError, StoreError
from recall_engine.storage.tenant_open import META_FILE, SCHEMA_VERSION


def _files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


DATA = "data"


@pytest.fixture
async def stored(tmp_path, hash_embedder) -> Path:
    """The meta file of a store holding one note, under ``tmp_path / DATA``."""
    async with RecallEngine(tmp_path / DATA, embedder=hash_embedder) as engine:
        await engine.remember("Ada keeps her notes in the blue folder.", dataset_name="notes")
    (meta,) = (tmp_path / DATA).rglob(META_FILE)
    return meta


@pytest.mark.parametrize("version", [SCHEMA_VERSION + 1, "2.0"])
async def test_a_store_of_a_newer_version_is_refused_and_left_as_it_is(
    stored, tmp_path, hash_embedder, version
) -> None:
    meta = json.loads(stored.read_text())
    stored.write_text(json.dumps({**meta, "schema_version": version}))
    root = stored.parent
    before = _files(root)
    async with RecallEngine(tmp_path / DATA, embedder=hash_embedder) as engine:
        with pytest.raises(ConfigError, match=r"newer recall-engine.*Upgrade recall-engine"):
            await engine.recall("Where are the notes?", datasets=["notes"])
    assert _files(root) == before


async def test_a_damaged_meta_file_is_refused_with_what_to_do(
    stored, tmp_path, hash_embedder
) -> None:
    stored.write_text('{"embedding_model": ')
    async with RecallEngine(tmp_path / DATA, embedder=hash_embedder) as engine:
        with pytest.raises(StoreError, match=r"cannot be read.*restore it from a backup"):
            await engine.recall("Where are the notes?", datasets=["notes"])


async def test_a_graph_of_another_kuzu_storage_version_says_so(
    stored, tmp_path, hash_embedder
) -> None:
    graph = stored.parent / "graph.kuzu"
    raw = bytearray(graph.read_bytes())
    assert raw[:4] == b"KUZU"
    raw[4] -= 1  # the storage version a Kuzu release before this one writes
    graph.write_bytes(bytes(raw))
    before = _files(stored.parent)
    async with RecallEngine(tmp_path / DATA, embedder=hash_embedder) as engine:
        with pytest.raises(StoreError, match=r"another version of Kuzu.*Nothing was changed"):
            await engine.recall("Where are the notes?", datasets=["notes"])
    assert _files(stored.parent) == before
