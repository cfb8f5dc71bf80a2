"""HydraDB v2 ``query`` as one ``recall()`` call over the tenant's datasets.

The options map onto recall()'s (no second search path):

- ``mode``: ``auto`` (the default) routes, as recall() does; ``fast`` is
  HYBRID_COMPLETION's passage lane (dense and BM25 fused); ``thinking`` is
  GRAPH_COMPLETION. ``query_by="text"`` is CHUNKS_LEXICAL whatever the mode.
- ``alpha``: with ``fast``, the dense list's share of the fusion (0: BM25 only,
  1: dense only); ``"auto"`` or omitted keeps the lane's own balance.
- ``recency_bias``, ``temporal_now`` (as ``as_of``), ``max_results`` (``top_k``).
- ``attributes`` (operators over the database attributes), ``metadata_filters``,
  ``ids`` and ``titles`` (exact titles, ignoring case): one ``metadata_filters``
  query of recall(), so ``ids`` and ``titles`` intersect. A field named in
  ``attributes`` or at the top of ``metadata_filters`` must be a declared
  attribute, compared as its kind allows (``tenants.attribute_kinds``).

recall() runs with ``only_context`` and ``verbose``: a chunk result is one chunk;
a context result (GRAPH_COMPLETION, ...) gives the chunks it rests on, in its
order, each scored ``1 / rank``, and its rendered context to ``llm_prompt``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.hydra import DEFAULT_SUB_TENANT
from recall_engine.core.metadata import ADDITIONAL_KEY, SOURCE_KEY, TENANT_KEY
from recall_engine.core.models import RecallResult
from recall_engine.core.recall_checks import moment
from recall_engine.core.recall_options import RecallOptions, RecallParams
from recall_engine.read.attributes import MAX_VALUES, AttributeFilter
from recall_engine.server.errors import ApiError
from recall_engine.server.port import EnginePort
from recall_engine.server.v2_models import QueryRequest, V2Chunk, V2RetrievalResult, V2Source
from recall_engine.tenants.attribute_kinds import Attributes
from recall_engine.tenants.errors import InvalidFilterError
from recall_engine.tenants.scopes import DatasetScope

DEFAULT_RESULTS = 10
_MODES = {"fast": "HYBRID_COMPLETION", "thinking": "GRAPH_COMPLETION", "auto": None}


def search_type(body: QueryRequest) -> str | None:
    """The search type a query's mode and ``query_by`` name (None: routed)."""
    return "CHUNKS_LEXICAL" if body.query_by == "text" else _MODES[body.mode]


def recall_options(body: QueryRequest, scope: DatasetScope) -> RecallOptions:
    """recall()'s keyword options for ``body`` over ``scope``.

    Raises:
        ApiError: 400 for an ``alpha`` outside 0..1 (in any mode), or a filter
            ``filter_query`` refuses.
        InvalidInputError: ``attributes`` that are not a query (``filter_query``).
    """
    options: RecallOptions = {
        "tenant_id": scope.store,
        "dataset_ids": list(scope.dataset_ids),
        "top_k": body.max_results or DEFAULT_RESULTS,
        "only_context": True,
        "verbose": True,
    }
    if body.recency_bias is not None:
        options["recency_bias"] = body.recency_bias
    if body.temporal_now:
        options["as_of"] = cast(datetime, moment("temporal_now")(body.temporal_now))
    where = filter_query(body, scope.attributes)
    if where:
        options["metadata_filters"] = where
    if isinstance(body.alpha, float | int) and not 0 <= body.alpha <= 1:
        # refused in every mode, though only fast uses it
        raise ApiError(
            400, "VALIDATION_ERROR", f"alpha must be 'auto' or from 0 to 1, got {body.alpha}."
        )
    if isinstance(body.alpha, float | int) and search_type(body) == "HYBRID_COMPLETION":
        options["retriever_specific_config"] = {
            "dense_weight": float(body.alpha),
            "lexical_weight": 1.0 - float(body.alpha),
        }
    return options


def filter_query(body: QueryRequest, attributes: Attributes) -> dict[str, object] | None:
    """``attributes``, ``metadata_filters``, ``ids`` and ``titles`` as one query of
    recall()'s ``metadata_filters`` language, over the chunk metadata the tenant
    API writes (attributes under ``tenant_metadata``).

    Args:
        attributes: the database's declared attributes, which the fields that
            ``attributes`` and ``metadata_filters`` name must be.

    Raises:
        InvalidInputError: ``attributes`` that are not a query (an unknown
            operator, a bad operand, too many comparisons or levels).
        ApiError: 400 for a field that is not a declared attribute, or an
            operator or value its kind does not take; ``_legacy_filters``'s.
    """
    parts: list[dict[str, object]] = []
    if body.attributes:
        _check_attributes(body.attributes, attributes)
        parts.append(_prefixed(body.attributes, TENANT_KEY))
    if body.metadata_filters:
        parts.extend(_legacy_filters(body.metadata_filters, attributes))
    if body.ids:
        parts.append({f"{SOURCE_KEY}.source_id": {"$in": list(body.ids)}})
    if body.titles:
        parts.append({f"{SOURCE_KEY}.title": {"$iin": list(body.titles)}})
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"$and": parts}


def _check_attributes(query: Mapping[str, object], attributes: Attributes) -> None:
    """That ``query`` is a query of recall()'s language (as bounded there) whose
    every comparison names a declared attribute that takes it."""
    try:
        parsed = AttributeFilter.parse(query)
    except InvalidInputError as exc:
        raise InvalidInputError(f"attributes: {exc}") from None
    for comparison in parsed.comparisons():
        try:
            attributes.check(
                comparison.field,
                comparison.op,
                comparison.operands,
                where="attributes",
            )
        except InvalidFilterError as exc:
            raise _invalid(str(exc)) from None


def _prefixed(query: Any, prefix: str) -> Any:
    """A query with every field name put under ``prefix`` (operators kept)."""
    if isinstance(query, list):
        return [_prefixed(q, prefix) for q in query]
    if not isinstance(query, Mapping):
        return query
    out: dict[str, object] = {}
    for key, value in query.items():
        if not isinstance(key, str) or not key:
            raise ApiError(400, "VALIDATION_ERROR", f"attributes: bad field name {key!r}.")
        if key in ("$and", "$or", "$nor", "$not"):
            out[key] = _prefixed(value, prefix)
        elif key.startswith("$"):
            out[key] = value  # an unknown operator: recall() names it in its error
        else:
            out[f"{prefix}.{key}"] = value
    return out


def _legacy_filters(
    filters: Mapping[str, object], attributes: Attributes
) -> list[dict[str, object]]:
    """v2's deprecated ``metadata_filters``, as HydraDB reads them: top-level keys are
    database attributes declared with ``enable_match`` (multi-value ones
    comma-joined), ``additional_metadata`` holds per-source ones as a scalar (equal)
    or a list (any of).

    Raises:
        ApiError: 400 for an operator given the wrong operand, several operators or
            an object that is not one, or an operator inside ``additional_metadata``;
            a top-level key that is not a declared attribute with ``enable_match``,
            or an operator or value its kind does not take (``contains``,
            ``contains_any`` and lists on a number, ``equals`` of text on a number).
    """
    parts: list[dict[str, object]] = []
    for key, value in filters.items():
        if key == ADDITIONAL_KEY:
            if not isinstance(value, Mapping):
                raise _invalid(
                    f"metadata_filters 'additional_metadata' must be an object of per-source "
                    f"field: value, got {type(value).__name__}."
                )
            for inner, wanted in value.items():
                parts.append({f"{ADDITIONAL_KEY}.{inner}": _per_source_value(inner, wanted)})
            continue
        ((op, operand),) = _attribute_value(key, value).items()
        spelled = dict(_SPELLED)
        if isinstance(value, list):
            spelled["$contains_any"] = "a list of values (contains_any)"
        elif not isinstance(value, Mapping):
            spelled["$eq"] = "a bare value (equals)"
        try:
            attributes.check(
                key,
                op,
                operand if isinstance(operand, list) else [operand],
                where="metadata_filters",
                matchable=True,
                spelled=spelled,
            )
        except InvalidFilterError as exc:
            raise _invalid(str(exc)) from None
        parts.append({f"{TENANT_KEY}.{key}": {op: operand}})
    return parts


_LEGACY_OPERATORS = ("equals", "contains", "contains_any")
_SPELLED = {"$eq": "equals", "$contains": "contains", "$contains_any": "contains_any"}


def _attribute_value(key: str, value: object) -> dict[str, object]:
    """One database attribute's filter: ``{"equals": v}`` the whole value,
    ``{"contains": "x"}`` one member, ``{"contains_any": [...]}`` any one member; a
    bare scalar is ``equals``, a bare list ``contains_any``."""
    where = f"metadata_filters {key!r}"
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise _invalid(f"{where}: a list matches members of a text field; give strings.")
        return {"$contains_any": _bounded(where, value)}
    if not isinstance(value, Mapping):
        return {"$eq": value}
    named = [str(op) for op in value]
    if not named or not set(named) <= set(_LEGACY_OPERATORS):
        raise _invalid(
            f"{where}: {{{', '.join(named)}}} is not an operator ({', '.join(_LEGACY_OPERATORS)}); "
            "matching a stored object exactly is not supported."
        )
    if len(named) > 1:
        raise _invalid(
            f"{where}: one operator per field, got {', '.join(sorted(named))}; "
            "to require several, use attributes with $and."
        )
    ((op, operand),) = value.items()
    if op == "contains":
        if not isinstance(operand, str):
            raise _invalid(f"{where}: contains takes one string, got {type(operand).__name__}.")
        return {"$contains": operand}
    if op == "contains_any":
        if not isinstance(operand, list) or not all(isinstance(v, str) for v in operand):
            raise _invalid(f"{where}: contains_any takes a list of strings.")
        return {"$contains_any": _bounded(where, operand)}
    if isinstance(operand, Mapping | list):
        raise _invalid(
            f"{where}: equals takes one string, number or boolean, got {type(operand).__name__}."
        )
    return {"$eq": operand}


def _per_source_value(key: str, value: object) -> dict[str, object]:
    """One ``additional_metadata`` field's filter: a scalar (equal) or a list (any of)."""
    if isinstance(value, Mapping):
        raise _invalid(
            f"metadata_filters 'additional_metadata.{key}': operators apply to top-level "
            "keys only; give a scalar or a list here."
        )
    if isinstance(value, list):
        return {"$in": _bounded(f"metadata_filters 'additional_metadata.{key}'", value)}
    return {"$eq": value}


def _bounded(where: str, values: list[object]) -> list[object]:
    """``values``, a filter's list, if it holds at most ``MAX_VALUES``."""
    if len(values) > MAX_VALUES:
        raise _invalid(f"{where}: a list holds at most {MAX_VALUES} values, got {len(values)}.")
    return values


def _invalid(message: str) -> ApiError:
    return ApiError(400, "VALIDATION_ERROR", message)


def to_result(
    results: Sequence[Any], scope: DatasetScope, body: QueryRequest
) -> tuple[V2RetrievalResult, list[str]]:
    """recall()'s results as v2's result, and the context texts that context results
    rendered (for ``llm_prompt``)."""
    chunks: list[V2Chunk] = []
    contexts: list[str] = []
    seen: set[str] = set()
    for entry in results:
        if getattr(entry, "kind", None) == "chunk":
            rows = [(entry.metadata.get("chunk_id", ""), entry.text, entry.metadata, entry.score)]
        else:
            if getattr(entry, "text", ""):
                contexts.append(entry.text)
            raw = getattr(entry, "raw", None)
            raw = raw if isinstance(raw, list) else []
            rows = [
                (r.get("id", ""), r.get("text", ""), {**r, **(r.get("metadata") or {})}, None)
                for r in raw
                if isinstance(r, Mapping) and "kind" not in r and "text" in r  # chunks only
            ]
        for chunk_id, text, metadata, score in rows:
            if not chunk_id or chunk_id in seen:
                continue
            seen.add(chunk_id)
            rank_score = 1.0 / (len(chunks) + 1)
            chunks.append(_chunk(chunk_id, text, metadata, score, rank_score, scope))
    top_k = body.max_results or DEFAULT_RESULTS
    chunks = chunks[:top_k]
    return V2RetrievalResult(chunks=chunks, sources=_sources(chunks)), contexts


def _chunk(
    chunk_id: str,
    text: str,
    metadata: Mapping[str, Any],
    score: float | None,
    rank_score: float,
    scope: DatasetScope,
) -> V2Chunk:
    found = metadata.get(SOURCE_KEY)
    source: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    sub, _ = scope.collection_of.get(str(metadata.get("dataset_id", "")), (DEFAULT_SUB_TENANT, ""))
    return V2Chunk(
        chunk_uuid=str(chunk_id),
        id=str(source.get("source_id") or metadata.get("data_id") or chunk_id),
        chunk_content=str(text),
        source_title=source.get("title") or metadata.get("document_name"),
        source_type=source.get("type"),
        relevancy_score=round(float(score if score is not None else rank_score), 6),
        collection=sub,
        sub_tenant_id=sub,
        metadata=dict(metadata.get(TENANT_KEY) or {}),
        additional_metadata=dict(metadata.get(ADDITIONAL_KEY) or {}),
        source_upload_time=source.get("uploaded_at"),
    )


def _sources(chunks: list[V2Chunk]) -> list[V2Source]:
    out: dict[str, V2Source] = {}
    for chunk in chunks:
        out.setdefault(
            chunk.id,
            V2Source(
                id=chunk.id,
                title=chunk.source_title,
                type=chunk.source_type,
                collection=chunk.collection,
                sub_tenant_id=chunk.sub_tenant_id,
                timestamp=chunk.source_upload_time,
                metadata=chunk.metadata,
                additional_metadata=chunk.additional_metadata,
            ),
        )
    return list(out.values())


def render_markdown(result: V2RetrievalResult, contexts: Sequence[str]) -> str:
    """The result as one Markdown string for an LLM's context: each chunk with its
    source id and chunk id inline (citable), the context the retriever rendered,
    then the sources."""
    lines = ["# Retrieved context", ""]
    if not result.chunks and not contexts:
        lines.append("No relevant context was found.")
        return "\n".join(lines) + "\n"
    if result.chunks:
        lines += ["## Results", ""]
        for n, chunk in enumerate(result.chunks, start=1):
            title = f" {chunk.source_title}" if chunk.source_title else ""
            lines.append(f"### [{n}]{title} (source `{chunk.id}`, chunk `{chunk.chunk_uuid}`)")
            lines += [chunk.chunk_content.strip(), ""]
    for text in contexts:
        lines += ["## Related facts", "", text.strip(), ""]
    if result.sources:
        lines += ["## Sources", ""]
        for source in result.sources:
            kind = f", {source.type}" if source.type else ""
            when = f", {source.timestamp}" if source.timestamp else ""
            lines.append(f"- `{source.id}`: {source.title or source.id}{kind}{when}")
    return "\n".join(lines).rstrip() + "\n"


async def run_query(
    engine: EnginePort, body: QueryRequest, scope: DatasetScope
) -> V2RetrievalResult | str:
    """The v2 ``data`` of ``body``: the structured result (with ``llm_prompt`` unless
    ``response_format="structured"``), or the Markdown alone (``"markdown"``)."""
    text = f"{body.additional_context}\n{body.query}" if body.additional_context else body.query
    options = recall_options(body, scope)
    if scope.dataset_ids:
        results: list[RecallResult] = await engine.recall(text, search_type(body), **options)
    else:  # nothing written yet: check the call all the same, so bad input is still a 400
        RecallParams.check(text, search_type(body), {**options, "dataset_ids": None})
        results = []
    result, contexts = to_result(results, scope, body)
    if body.response_format == "structured":
        return result
    prompt = render_markdown(result, contexts)
    if body.response_format == "markdown":
        return prompt
    return result.model_copy(update={"llm_prompt": prompt})
