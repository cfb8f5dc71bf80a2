"""Scripted chat replies that satisfy a structured-output call without a model.

A client that wants structured output sends the JSON schema of its answer,
either as ``response_format = {"type": "json_schema", "json_schema": {"schema": ...}}``
or inside its system prompt as a fenced ````json`` block (the "JSON mode"
fallback). ``reply_for(request)`` finds that schema and returns the smallest
valid instance of it, filled from the request's own text: a knowledge-graph
schema (an object with ``nodes`` and ``edges``) gets the capitalised names of
the text as nodes, chained by edges; a string gets the text's first sentence.
Without a schema the reply is the first sentence of the last user message.

The point is a peer whose LLM costs ~nothing, so its measured time is its own.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

_FENCED_JSON = re.compile(r"```json\s*(\{.*?\})\s*```", re.DOTALL)
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")
_SENTENCE = re.compile(r"(.+?[.!?])(?:\s|$)", re.DOTALL)
_COMMON = frozenset(
    re.findall(
        r"\w+",
        "I A The This That These Those It He She They We You My Your Our Their What When "
        "Where Who Why How Yes No Oh Hey Hi Hello Thanks Thank Wow Well So And But Or If "
        "Then Also Session Sure Great Good Nice",
    )
)
MAX_NODES = 6


def reply_for(request: dict[str, Any]) -> str:
    """The scripted answer to one chat-completions request body.

    Args:
        request: the request JSON (``messages``, optional ``response_format``).

    Returns:
        The reply text: JSON valid for the requested schema, or a sentence.
    """
    text = _user_text(request)
    schema = requested_schema(request)
    if schema is None:
        return first_sentence(text) or "No answer."
    return json.dumps(instance(schema, text))


def requested_schema(request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request asks its answer to follow, or None."""
    fmt = request.get("response_format") or {}
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema")
        if isinstance(schema, dict):
            return schema
    for message in request.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str) and (match := _FENCED_JSON.search(content)):
            try:
                found = json.loads(match.group(1))
            except json.JSONDecodeError:
                continue
            if isinstance(found, dict):
                return found
    if isinstance(fmt, dict) and fmt.get("type") == "json_object":
        return {"type": "object", "properties": {}}
    return None


def schema_title(request: dict[str, Any]) -> str:
    """What a request asks for: its schema's title, ``json`` or ``text``."""
    schema = requested_schema(request)
    if schema is None:
        return "text"
    return str(schema.get("title") or "json")


def instance(schema: dict[str, Any], text: str) -> Any:
    """The smallest instance of ``schema`` (``$defs`` resolved), filled from ``text``."""
    return _Filler(schema, text).fill(schema)


def first_sentence(text: str, limit: int = 200) -> str:
    """The first sentence of ``text`` (at most ``limit`` characters)."""
    text = " ".join(text.split())
    match = _SENTENCE.match(text)
    return (match.group(1) if match else text)[:limit]


def names(text: str, limit: int = MAX_NODES) -> list[str]:
    """Capitalised names in ``text``, first seen first, without common sentence starters."""
    out: dict[str, None] = {}
    for match in _NAME.finditer(text):
        words = [w for w in match.group(0).split() if w not in _COMMON]
        if words:
            out[" ".join(words)] = None
        if len(out) >= limit:
            break
    return list(out)


def _user_text(request: dict[str, Any]) -> str:
    for message in reversed(request.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


class _Filler:
    def __init__(self, root: dict[str, Any], text: str) -> None:
        self.defs = {**root.get("definitions", {}), **root.get("$defs", {})}
        self.text = text

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        seen = 0
        while "$ref" in schema and seen < 20:
            schema = self.defs.get(schema["$ref"].rsplit("/", 1)[-1], {})
            seen += 1
        if "allOf" in schema and len(schema["allOf"]) == 1:
            schema = self.resolve(schema["allOf"][0])
        return schema

    def fill(self, schema: dict[str, Any]) -> Any:
        schema = self.resolve(schema)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return schema["enum"][0]
        if "default" in schema:
            return schema["default"]
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                options = [self.resolve(s) for s in schema[key]]
                usable = [s for s in options if s.get("type") != "null"] or options
                return self.fill(usable[0])
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object" or "properties" in schema:
            return self.obj(schema)
        if kind == "array":
            return []
        if kind == "string":
            return first_sentence(self.text) or "none"
        if kind in ("integer", "number"):
            return schema.get("minimum", 0)
        if kind == "boolean":
            return False
        return None

    def obj(self, schema: dict[str, Any]) -> dict[str, Any]:
        props: dict[str, Any] = schema.get("properties", {})
        if "nodes" in props and "edges" in props:
            return self.graph(props)
        required = schema.get("required", list(props))
        return {key: self.fill(props[key]) for key in required if key in props}

    def graph(self, props: dict[str, Any]) -> dict[str, Any]:
        """A knowledge graph: the text's names as nodes, each linked to the next."""
        node_schema = self.resolve(self.resolve(props["nodes"]).get("items", {}))
        edge_schema = self.resolve(self.resolve(props["edges"]).get("items", {}))
        found = names(self.text)
        nodes = []
        for name in found:
            node = self.obj(node_schema)
            node["id"] = name
            for key, value in (
                ("name", name),
                ("type", "Entity"),
                ("label", "Entity"),
                ("description", f"{name}, named in the text."),
            ):
                if key in node:
                    node[key] = value
            nodes.append(node)
        edges = []
        for source, target in itertools.pairwise(found):
            edge = self.obj(edge_schema)
            edge.update(
                source_node_id=source, target_node_id=target, relationship_name="mentioned_with"
            )
            if "description" in edge:
                edge["description"] = f"{source} is mentioned with {target}."
            edges.append(edge)
        rest = {k: self.fill(v) for k, v in props.items() if k not in ("nodes", "edges")}
        return rest | {"nodes": nodes, "edges": edges}
