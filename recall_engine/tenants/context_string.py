"""``build_context_string``: a RetrievalResult as LLM-ready text, in HydraDB's format.

The format is HydraDB's documented one: ``=== ENTITY PATHS ===`` then
``=== CONTEXT ===`` with ``Chunk N``, ``Source:``, the content,
``Graph Relations:``, ``Extra Context:`` and ``---``, chunks in the order the
server returned them. A chunk whose facts were superseded gets a
``Superseded on <date> by: ...`` line after its content. Works on our
``RetrievalResult``, on the SDK's model, and on the raw JSON dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _get(obj: object, name: str, default: object = None) -> Any:
    """A field of a mapping or an attribute of an object, else ``default``.

    Untyped: each of a result's three shapes holds what its producer put there.
    """
    if obj is None:
        return default
    value = obj.get(name, default) if isinstance(obj, Mapping) else getattr(obj, name, default)
    return default if value is None else value


def _triplet_line(triplet: object) -> str:
    relation = _get(triplet, "relation")
    line = (
        f"[{_get(_get(triplet, 'source'), 'name', '')}] -> "
        f"{_get(relation, 'canonical_predicate', '')} -> "
        f"[{_get(_get(triplet, 'target'), 'name', '')}]"
    )
    return line


def _format_path_chain(path: object) -> str:
    parts = []
    for triplet in _get(path, "triplets", []):
        relation = _get(triplet, "relation")
        line = _triplet_line(triplet)
        context = _get(relation, "context", "")
        if context:
            line += f": {context}"
        temporal = _get(relation, "temporal_details")
        if temporal:
            line += f" [Time: {temporal}]"
        parts.append(line)
    return "\n  ↳ ".join(parts)


def _superseded_line(metadata: object) -> str:
    """The ``Superseded on <date> by: ...`` line of a chunk, or "".

    A chunk gets one when a later statement replaced its facts (``tenants.validity``).
    """
    until = _get(metadata, "valid_until", "")
    if not until:
        return ""
    later = _get(metadata, "superseded_by", "")
    return f"Superseded on {str(until)[:10]}" + (f" by: {later}" if later else "")


def build_context_string(result: object) -> str:
    """The context string for one recall result, to put in an LLM prompt.

    Args:
        result: a ``RetrievalResult`` of ``full_recall`` / ``recall_preferences``
            (ours, the HydraDB SDK's, or its JSON as a dict).

    Returns:
        The entity paths and the chunks with their sources, relations and extra
        context, as text.
    """
    lines: list[str] = []
    graph = _get(result, "graph_context")
    query_paths = _get(graph, "query_paths", [])
    if query_paths:
        lines.append("=== ENTITY PATHS ===")
        lines.extend(_format_path_chain(path) for path in query_paths)
        lines.append("")
    chunks = _get(result, "chunks", [])
    extra_context = _get(result, "additional_context", {})
    groups_of = _get(graph, "chunk_id_to_group_ids", {})
    chunk_relations = _get(graph, "chunk_relations", [])
    if chunks:
        lines.append("=== CONTEXT ===")
        for n, chunk in enumerate(chunks, start=1):
            lines.append(f"Chunk {n}")
            title = _get(chunk, "source_title", "")
            if title:
                lines.append(f"Source: {title}")
            lines.append(_get(chunk, "chunk_content", ""))
            superseded = _superseded_line(_get(chunk, "document_metadata", {}))
            if superseded:
                lines.append(superseded)
            chunk_id = _get(chunk, "chunk_uuid", "")
            group_ids = groups_of.get(chunk_id, []) if chunk_id else []
            relevant = [r for r in chunk_relations if _get(r, "group_id") in group_ids]
            if relevant:
                lines.append("Graph Relations:")
                for relation_group in relevant:
                    for triplet in _get(relation_group, "triplets", []):
                        relation = _get(triplet, "relation")
                        line = f"  {_triplet_line(triplet)}: {_get(relation, 'context', '')}"
                        temporal = _get(relation, "temporal_details")
                        if temporal:
                            line += f" [Time: {temporal}]"
                        lines.append(line)
            extras = [
                extra_context[i] for i in _get(chunk, "extra_context_ids", []) if i in extra_context
            ]
            if extras:
                lines.append("Extra Context:")
                for extra in extras:
                    lines.append(
                        f"  Related Context ({_get(extra, 'source_title', '')}): "
                        f"{_get(extra, 'chunk_content', '')}"
                    )
            lines.append("---")
            lines.append("")
    return "\n".join(lines)
