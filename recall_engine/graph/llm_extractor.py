"""LLM extraction: the output schema, its conversion, and the extractor itself.

The LLM is asked for ``LLMGraph`` JSON (``LLMGraph.model_json_schema()`` is the
structured-output schema). ``parse_llm_graph`` validates a reply and
``llm_graph_to_extraction`` turns it into the same ``ChunkExtraction`` the rule
extractor produces, so resolution and storage do not care which one ran.
``LLMExtractor`` makes the calls through ``LLMClient`` (litellm, timeouts and
provider retries live there) with the ``graph_extraction`` prompt. Each edge may
name the ``aspect`` it holds one value of (home, job, ...): it becomes the
relation's family, so a later value supersedes it (``graph.supersession``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import regex
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from recall_engine.core.errors import LLMResponseError
from recall_engine.core.graph import (
    IDENTIFIER_TYPES,
    ChunkExtraction,
    Entity,
    EntityType,
    Event,
    Mention,
    Relation,
    event_id,
    relation_id,
)
from recall_engine.core.names import normalize_name, to_snake_case
from recall_engine.graph.dates import resolve_date
from recall_engine.graph.extractor import ChunkInput
from recall_engine.graph.rules_relations import canonical_predicate
from recall_engine.graph.supersession import family_of_aspect

if TYPE_CHECKING:
    from recall_engine.llm.client import LLMClient

log = logging.getLogger(__name__)


class LLMNode(BaseModel):
    """One entity as the LLM names it; ``id`` is local to the reply."""

    model_config = ConfigDict(extra="ignore")

    id: str
    name: str
    type: str = "CONCEPT"
    description: str = ""
    aliases: list[str] = Field(default_factory=list)


class LLMEdge(BaseModel):
    """One relation; ``source``/``target`` are node ids (names are accepted too)."""

    model_config = ConfigDict(extra="ignore")

    source: str
    target: str
    predicate: str
    description: str = Field(default="", description="A sentence that states the fact.")
    time: str | None = Field(default=None, description="When, as written: 'last week'.")
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    aspect: str | None = Field(
        default=None,
        description="The aspect the source holds one value of (home, job, ...): a new one "
        "replaces the earlier facts of that aspect.",
    )


class LLMGraph(BaseModel):
    """The structured output an extraction prompt asks for."""

    model_config = ConfigDict(extra="ignore")

    nodes: list[LLMNode] = Field(default_factory=list)
    edges: list[LLMEdge] = Field(default_factory=list)


# Free-text types an LLM uses -> ours. Anything else is CONCEPT.
TYPE_SYNONYMS: dict[str, EntityType] = {
    **{t.value: t for t in EntityType},
    "PER": EntityType.PERSON,
    "PEOPLE": EntityType.PERSON,
    "HUMAN": EntityType.PERSON,
    "ORG": EntityType.ORGANIZATION,
    "COMPANY": EntityType.ORGANIZATION,
    "INSTITUTION": EntityType.ORGANIZATION,
    "TEAM": EntityType.ORGANIZATION,
    "LOCATION": EntityType.PLACE,
    "LOC": EntityType.PLACE,
    "GPE": EntityType.PLACE,
    "CITY": EntityType.PLACE,
    "COUNTRY": EntityType.PLACE,
    "FACILITY": EntityType.PLACE,
    "TIME": EntityType.DATE,
    "DATETIME": EntityType.DATE,
    "BOOK": EntityType.WORK,
    "FILM": EntityType.WORK,
    "MOVIE": EntityType.WORK,
    "SONG": EntityType.WORK,
    "ARTWORK": EntityType.WORK,
    "WORK_OF_ART": EntityType.WORK,
    "SOFTWARE": EntityType.PRODUCT,
    "TOOL": EntityType.PRODUCT,
    "ACTIVITY": EntityType.CONCEPT,
    "TOPIC": EntityType.CONCEPT,
    "ERROR": EntityType.ERROR_CODE,
    "IDENTIFIER": EntityType.ID,
}

_FENCE = regex.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", regex.DOTALL)
LLM_RELATION_CONFIDENCE = 0.8
PROMPT_VERSION = 2
"""``graph_extraction.v2`` asks for each edge's ``aspect`` as well."""
MAX_CONTEXT_CHARS = 400


def entity_type_of(label: str) -> EntityType:
    """``"Location"`` -> PLACE; unknown labels -> CONCEPT."""
    return TYPE_SYNONYMS.get(to_snake_case(label).upper(), EntityType.CONCEPT)


def parse_llm_graph(reply: str | dict[str, object]) -> LLMGraph:
    """Validate an LLM reply (JSON text, optionally in a ``` fence, or a dict).

    Raises:
        LLMResponseError: the reply is not JSON or does not match ``LLMGraph``;
            the message says which, so a retry prompt can quote it.
    """
    data: object = reply
    if isinstance(reply, str):
        fenced = _FENCE.match(reply)
        try:
            data = json.loads(fenced.group(1) if fenced else reply)
        except json.JSONDecodeError as exc:
            raise LLMResponseError(f"graph extraction reply is not JSON: {exc}") from exc
    try:
        return LLMGraph.model_validate(data)
    except ValidationError as exc:
        raise LLMResponseError(f"graph extraction reply does not match the schema: {exc}") from exc


def llm_graph_to_extraction(graph: LLMGraph, chunk: ChunkInput) -> ChunkExtraction:
    """Turn a validated reply into the chunk's extraction. Nodes without a usable
    name and edges to unknown nodes are dropped (logged at debug level), never
    raised: the rest of the reply is still worth keeping."""
    ns, cid, seen = chunk.namespace, chunk.chunk_id, chunk.timestamp
    entities: dict[str, Entity] = {}
    local: dict[str, str] = {}  # node id and normalised name -> entity id
    for node in graph.nodes:
        type_ = entity_type_of(node.type)
        try:
            entity = Entity.create(
                node.name.strip(),
                type_,
                namespace=ns,
                description=node.description.strip(),
                identifier=node.name.strip() if type_ in IDENTIFIER_TYPES else None,
                aliases=[a.strip() for a in node.aliases],
                seen=seen,
            )
        except ValueError:
            log.debug("LLM node %r in chunk %s has no usable name", node.name, cid)
            continue
        entities.setdefault(entity.id, entity)
        local[node.id] = local[normalize_name(node.name)] = entity.id
    speaker = (chunk.speaker or "").strip()
    if speaker:
        person = Entity.create(speaker, EntityType.PERSON, namespace=ns, seen=seen)
        entities.setdefault(person.id, person)
        local.setdefault(normalize_name(speaker), person.id)

    relations: dict[str, Relation] = {}
    events: list[Event] = []
    for index, edge in enumerate(graph.edges):
        source = local.get(edge.source) or local.get(normalize_name(edge.source))
        target = local.get(edge.target) or local.get(normalize_name(edge.target))
        if not source or not target or source == target:
            log.debug(
                "LLM edge %s -> %s in chunk %s names an unknown node", edge.source, edge.target, cid
            )
            continue
        raw = " ".join(edge.predicate.split())
        predicate = canonical_predicate(raw) or to_snake_case(raw) or "related_to"
        context = _context(edge, entities[source].name, raw, entities[target].name)
        resolved = resolve_date(edge.time, seen) if edge.time else None
        rid = relation_id(ns, source, predicate, target, cid)
        relations[rid] = Relation(
            id=rid,
            source_id=source,
            target_id=target,
            predicate=predicate,
            raw_predicate=raw,
            context=context,
            confidence=edge.confidence if edge.confidence is not None else LLM_RELATION_CONFIDENCE,
            time_text=edge.time,
            timestamp=resolved.value if resolved else None,
            time_granularity=resolved.granularity if resolved else None,
            chunk_id=cid,
            namespace=ns,
            family=family_of_aspect(edge.aspect),
        )
        if resolved is not None:
            events.append(
                Event(
                    id=event_id(ns, cid, index),
                    text=context,
                    time=resolved.value,
                    time_text=edge.time,
                    time_granularity=resolved.granularity,
                    entity_ids=(source, target),
                    chunk_id=cid,
                    namespace=ns,
                )
            )
    return ChunkExtraction(
        chunk_id=cid,
        namespace=ns,
        data_id=chunk.data_id,
        entities=tuple(entities.values()),
        relations=tuple(relations.values()),
        events=tuple(events),
        mentions=tuple(_mention(e, chunk) for e in entities.values()),
    )


def _context(edge: LLMEdge, source: str, raw: str, target: str) -> str:
    return (" ".join(edge.description.split()) or f"{source} {raw} {target}")[:MAX_CONTEXT_CHARS]


def _mention(entity: Entity, chunk: ChunkInput) -> Mention:
    start = chunk.text.lower().find(entity.name.lower()) if entity.name else -1
    if start < 0:
        return Mention(chunk_id=chunk.chunk_id, entity_id=entity.id, surface=entity.name)
    end = start + len(entity.name)
    return Mention(
        chunk_id=chunk.chunk_id,
        entity_id=entity.id,
        surface=chunk.text[start:end],
        start=start,
        end=end,
    )


class LLMExtractor:
    """The ``Extractor`` that asks an LLM, one call per chunk, a few at a time.

    A reply that does not validate is retried once with the error quoted; if
    the second one fails too, that chunk gets an empty extraction marked
    ``failed`` and a logged warning (its item is reported and recorded as a
    failed extraction). Provider failures (authentication, budget, a model that
    is down after the client's own retries) are raised: they would fail every
    chunk; the pipeline then stores the items without a graph and records why.
    """

    name = "llm-v1"

    def __init__(self, client: LLMClient, *, concurrency: int = 4) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.client = client
        self.concurrency = concurrency

    async def extract(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """One extraction per chunk, in input order.

        Raises:
            LLMError: a provider failure other than unusable output.
        """
        gate = asyncio.Semaphore(self.concurrency)

        async def one(chunk: ChunkInput) -> ChunkExtraction:
            async with gate:
                return await self.extract_chunk(chunk)

        return list(await asyncio.gather(*(one(c) for c in chunks)))

    async def extract_chunk(self, chunk: ChunkInput) -> ChunkExtraction:
        from recall_engine.llm.structured import response_format_for
        from recall_engine.prompts import render_prompt

        empty = ChunkExtraction(
            chunk_id=chunk.chunk_id, namespace=chunk.namespace, data_id=chunk.data_id
        )
        if not chunk.text.strip():
            return empty
        text = f"{chunk.speaker}: {chunk.text}" if chunk.speaker else chunk.text
        types = ", ".join(t.value for t in EntityType)
        messages: list[dict[str, str]] = render_prompt(
            "graph_extraction", version=PROMPT_VERSION, text=text, entity_types=types
        ).messages()
        response_format = response_format_for(LLMGraph)
        for attempt in (1, 2):
            reply: str | None = None
            try:
                reply = (await self.client.complete(messages, response_format=response_format)).text
                return llm_graph_to_extraction(parse_llm_graph(reply), chunk)
            except LLMResponseError as exc:
                if attempt == 2:
                    log.warning(
                        "graph extraction: unusable LLM output for chunk %s after a retry, "
                        "chunk skipped: %s",
                        chunk.chunk_id,
                        str(exc)[:300],
                    )
                    return empty.model_copy(update={"failed": f"unusable LLM output: {exc}"[:300]})
                retry = render_prompt("structured_output_retry", error=str(exc)[:500]).user
                if reply is not None:
                    messages = [
                        *messages,
                        {"role": "assistant", "content": reply},
                        {"role": "user", "content": retry},
                    ]
        return empty
