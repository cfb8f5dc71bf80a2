"""The engine's tenant calls refuse a field they do not know, embedded and through
``RecallEngine.connect``, and change nothing: a dropped ``metadata_filter`` would
search the whole sub-tenant, a dropped ``enable_macth`` declare a field no filter
can use, a dropped memory field lose what it said."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from recall_engine import RecallEngine
from recall_engine.testing import DeterministicEmbedder
from tests.remote_fixture import in_mode


@pytest.mark.parametrize("mode", ["embedded", "remote"])
async def test_an_unknown_field_is_refused_and_changes_nothing(tmp_path: Path, mode: str) -> None:
    local = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    try:
        with in_mode(mode, local) as engine:
            await _refuses(engine)
    finally:
        local.close()


async def _refuses(engine: Any) -> None:
    schema = [{"name": "dept", "data_type": "VARCHAR", "enable_macth": True}]
    with pytest.raises(ValueError, match=r"'enable_macth'.*did you mean enable_match"):
        await engine.create_tenant("acme", metadata_schema=schema)
    # nothing was created: the same id is free
    await engine.create_tenant("acme", metadata_schema=[{"name": "dept", "enable_match": True}])
    memory = {"source_id": "m", "text": "Ann takes tea at four.", "tenant_metdata": {"dept": "x"}}
    with pytest.raises(ValueError, match=r"'tenant_metdata'.*did you mean tenant_metadata"):
        await engine.add_memory("acme", [memory])
    with pytest.raises(ValueError, match=r"'metadata_filter'.*did you mean metadata_filters"):
        await engine.recall_preferences(
            tenant_id="acme", query="tea", metadata_filter={"dept": "ops"}
        )
    found = await engine.recall_preferences(tenant_id="acme", query="tea")
    assert found.chunks == []  # the refused memory was not stored


async def test_a_request_object_with_a_misspelled_keyword_is_refused(tmp_path: Path) -> None:
    from recall_engine.core.hydra import RecallSearchRequest

    engine = RecallEngine(tmp_path / "data", embedder=DeterministicEmbedder())
    try:
        await engine.create_tenant("acme", metadata_schema=[{"name": "dept", "enable_match": True}])
        request = RecallSearchRequest(tenant_id="acme", query="tea")
        with pytest.raises(ValueError, match=r"'metadata_filter'.*did you mean metadata_filters"):
            await engine.full_recall(request, metadata_filter={"dept": "ops"})
        found = await engine.full_recall(request, max_results=3)  # a known keyword still applies
        assert found.chunks == []
    finally:
        engine.close()
