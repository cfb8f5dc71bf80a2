"""The documented limits: top_k <= 1000, CYPHER timeout_s <= 60, each with a clear error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from recall_engine import SearchType
from recall_engine.core.errors import InvalidInputError
from recall_engine.pipeline.request import MAX_TOP_K
from retrievers.cypher import CypherConfig

RECALL_DOCS = Path(__file__).resolve().parents[2] / "docs" / "recall.md"


def _cypher_timeout_limit() -> float:
    (limit,) = [m.le for m in CypherConfig.model_fields["timeout_s"].metadata if hasattr(m, "le")]
    return float(limit)


def test_the_docs_state_the_limits_the_code_enforces():
    text = RECALL_DOCS.read_text(encoding="utf-8")
    assert f"`top_k <= {MAX_TOP_K}`" in text
    assert f"`timeout_s <= {_cypher_timeout_limit():g}`" in text


async def test_top_k_beyond_the_limit_is_refused_by_name(engine):
    await engine.remember("Einstein was born in Ulm.")
    assert await engine.recall("Ulm", SearchType.CHUNKS, top_k=MAX_TOP_K)
    with pytest.raises(InvalidInputError, match=rf"top_k .* 1 to {MAX_TOP_K}, got 1001"):
        await engine.recall("Ulm", SearchType.CHUNKS, top_k=MAX_TOP_K + 1)


async def test_a_cypher_timeout_beyond_the_limit_is_refused_by_name(engine):
    await engine.remember("Einstein was born in Ulm.")
    query = "MATCH (n:Entity) RETURN n.name LIMIT 1"
    ok = await engine.recall(query, SearchType.CYPHER, retriever_specific_config={"timeout_s": 60})
    assert isinstance(ok, list)
    with pytest.raises(InvalidInputError) as caught:
        await engine.recall(query, SearchType.CYPHER, retriever_specific_config={"timeout_s": 61})
    message = str(caught.value)
    assert "timeout_s=61" in message and "less than or equal to 60" in message
    assert "pydantic.dev" not in message  # no library boilerplate, just what to fix
    assert re.search(r"options are .*timeout_s", message)
