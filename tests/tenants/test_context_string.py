"""build_context_string against HydraDB's published helper, on a recorded result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from recall_engine import build_context_string
from recall_engine.core.hydra import RetrievalResult

RECORDED = Path(__file__).with_name("recorded_result.json")


def _reference_path(path: Any) -> str:
    # HydraDB's documented _format_path_chain, verbatim in behaviour.
    parts = []
    for t in path.triplets or []:
        line = f"[{t.source.name}] -> {t.relation.canonical_predicate} -> [{t.target.name}]"
        if t.relation.context:
            line += f": {t.relation.context}"
        if t.relation.temporal_details:
            line += f" [Time: {t.relation.temporal_details}]"
        parts.append(line)
    return "\n  ↳ ".join(parts)


def reference_build_context_string(result: Any) -> str:
    """HydraDB's documented build_context_string (the oracle)."""
    lines: list[str] = []
    gc = result.graph_context
    if gc and gc.query_paths:
        lines.append("=== ENTITY PATHS ===")
        lines.extend(_reference_path(p) for p in gc.query_paths)
        lines.append("")
    chunks = result.chunks or []
    extra_context = result.additional_context or {}
    groups_of = gc.chunk_id_to_group_ids if gc else {}
    relations = gc.chunk_relations if gc else []
    if chunks:
        lines.append("=== CONTEXT ===")
        for i, chunk in enumerate(chunks):
            lines.append(f"Chunk {i + 1}")
            if chunk.source_title:
                lines.append(f"Source: {chunk.source_title}")
            lines.append(chunk.chunk_content or "")
            if chunk.chunk_uuid and groups_of and relations:
                ids = groups_of.get(chunk.chunk_uuid, [])
                relevant = [r for r in relations if r.group_id in ids]
                if relevant:
                    lines.append("Graph Relations:")
                    for rel in relevant:
                        for t in rel.triplets or []:
                            line = (
                                f"  [{t.source.name}] -> {t.relation.canonical_predicate} -> "
                                f"[{t.target.name}]: {t.relation.context}"
                            )
                            if t.relation.temporal_details:
                                line += f" [Time: {t.relation.temporal_details}]"
                            lines.append(line)
            extras = [extra_context[e] for e in chunk.extra_context_ids or [] if e in extra_context]
            if extras:
                lines.append("Extra Context:")
                for extra in extras:
                    lines.append(f"  Related Context ({extra.source_title}): {extra.chunk_content}")
            lines.append("---")
            lines.append("")
    return "\n".join(lines)


def test_matches_hydradb_helper_on_recorded_result():
    raw = json.loads(RECORDED.read_text(encoding="utf-8"))
    ours = RetrievalResult.model_validate(raw)
    expected = reference_build_context_string(ours)
    assert build_context_string(ours) == expected
    assert build_context_string(raw) == expected  # plain JSON works too
    assert expected.startswith("=== ENTITY PATHS ===\n")
    assert "Graph Relations:\n" in expected
    assert "\n  [Albert Einstein] -> born_in -> [Ulm]: " in expected
    assert "Extra Context:\n  Related Context (" in expected
    assert "[Time: " in expected


def test_matches_on_the_sdk_model():
    from hydra_db.types import RetrievalResult as SdkResult

    raw = json.loads(RECORDED.read_text(encoding="utf-8"))
    sdk = SdkResult.model_validate(raw)
    assert build_context_string(sdk) == reference_build_context_string(sdk)


def test_empty_result_is_empty_text():
    assert build_context_string(RetrievalResult()) == ""
