"""GRAPH_REPORT: a report on one scope's graph: hubs, communities, questions to ask.

The report reads the whole graph structure of the scope (``read.scope_graph``):
its most connected entities (distinct neighbours, then mentions), its communities
(networkx's Louvain method on the entity graph, each pair of entities weighted by
the relations between them, seeded so a snapshot always splits the same way),
what each community is about (offline: its main entities, its commonest
relations and the sentence that names most of its members, quoted from the chunk
that states most of its relations), and suggested questions. The query only
titles the report. A report is cached per graph snapshot and scope: the next
write to the store makes a new one.

The hits are the communities (summaries citing their chunk), then the hubs
(entities citing where they are first mentioned); ``metadata["graph_report"]`` is
the report, and offline its ``text`` is the answer. With an LLM the report's facts
go to the ``graph_report`` prompt, which describes each community in words.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import ClassVar, NotRequired, TypedDict

from pydantic import Field

from recall_engine.core.hits import ChunkHit, EntityHit, Hit, SummaryHit
from recall_engine.core.search_types import SearchType
from recall_engine.read.api import ScopeGraph
from retrievers.base import RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.broad_items import sentences
from retrievers.graph_report_build import Community, Structure, communities, structure
from retrievers.hybrid_completion import timed


class _Hub(TypedDict):
    name: str
    type: str
    neighbours: int
    mentions: int


class _Community(TypedDict):
    id: int
    size: int
    members: list[str]
    relations: list[str]
    about: str
    chunk_id: str | None


class GraphReport(TypedDict):
    """``metadata["graph_report"]``: the scope's sizes, hubs, communities and questions."""

    entities: int
    relations: int
    hubs: list[_Hub]
    communities: list[_Community]
    questions: list[str]
    text: NotRequired[str]


class _Built(TypedDict):
    report: GraphReport
    hits: list[Hit]


_CACHE: OrderedDict[tuple[Hashable, ...], _Built] = OrderedDict()
_CACHE_SIZE = 32
_LOCK = threading.Lock()


class GraphReportConfig(RetrieverConfig):
    """Options of GRAPH_REPORT (``retriever_specific_config``)."""

    hubs: int = Field(default=10, ge=1, le=100, description="Most connected entities listed.")
    communities: int = Field(default=8, ge=1, le=50, description="Largest communities described.")
    members: int = Field(default=5, ge=1, le=20, description="Entities named per community.")
    questions: int = Field(default=6, ge=0, le=30, description="Suggested questions.")


class GraphReportRetriever:
    """A report on the scope's graph: hubs, communities and what they are about."""

    search_type: ClassVar[str] = SearchType.GRAPH_REPORT
    kind: ClassVar[str] = "graph_report"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "graph_report"
    needs_llm: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphReportConfig
    embeds_query: ClassVar[bool] = False
    whole_scope: ClassVar[bool] = True
    """The report is about the whole scope: the tense stage does not re-rank it."""

    async def retrieve(
        self, query: str, ctx: RetrievalContext[GraphReportConfig]
    ) -> RetrieverOutput:
        """Build (or reuse, for an unchanged graph) the scope's report.

        Args:
            query: titles the report; what it covers is the whole scope.
            ctx: the read API bound to the caller's scope and this type's options.

        Returns:
            The communities then the hubs as hits (at most ``ctx.top_k``), and
            ``metadata["graph_report"]``.
        """
        options = config_of(ctx, GraphReportConfig)
        graph = await timed(ctx.timings, "graph_report.read", ctx.read.scope_graph())
        key = (ctx.read.tenant_id, graph.version, options.model_dump_json())
        with _LOCK:
            cached = _CACHE.get(key)
            if cached is not None:
                _CACHE.move_to_end(key)
        built = cached is None
        if cached is None:
            fresh = await timed(ctx.timings, "graph_report.build", _report(ctx, graph, options))
            with _LOCK:
                _CACHE[key] = fresh
                while len(_CACHE) > _CACHE_SIZE:
                    _CACHE.popitem(last=False)
            cached = fresh
        report, hits = cached["report"], cached["hits"]
        return RetrieverOutput(
            hits=hits[: max(ctx.top_k, len(report["communities"]))],
            context=report["text"],
            metadata={"graph_report": {**report, "cached": not built}},
            details={"entities": report["entities"], "relations": report["relations"]},
        )


async def _report(
    ctx: RetrievalContext[GraphReportConfig], graph: ScopeGraph, options: GraphReportConfig
) -> _Built:
    shape: Structure = await asyncio.to_thread(structure, graph)
    groups: list[Community] = await asyncio.to_thread(
        communities, shape, options.communities, options.members
    )
    hubs = shape.hubs(options.hubs)
    named = {e for g in groups for e in g.members} | set(hubs)
    refs = await ctx.read.entity_refs(list(named))
    name = {e: refs[e].name for e in named if e in refs}
    lead_chunks = [c for g in groups for c in g.chunk_ids]
    hub_chunks = [shape.first_chunk(h) for h in hubs]
    chunk_ids = list(dict.fromkeys([*lead_chunks, *(c for c in hub_chunks if c)]))
    chunks = {c.chunk_id: c for c in await ctx.read.chunks_by_id(chunk_ids)}
    described: list[_Community] = []
    hits: list[Hit] = []
    for n, group in enumerate(groups, start=1):
        members = [name[e] for e in group.members if e in name]
        chunk, quote = _quote([chunks[c] for c in group.chunk_ids if c in chunks], members)
        relations = ", ".join(group.predicates)
        about = f"{_join(members)}" + (f" ({relations})" if relations else "")
        if quote:
            about += f': "{quote}"'
        described.append(
            {
                "id": n,
                "size": group.size,
                "members": members,
                "relations": list(group.predicates),
                "about": about,
                "chunk_id": chunk.chunk_id if chunk is not None else None,
            }
        )
        if chunk is not None:
            hits.append(
                SummaryHit(
                    score=1.0 / n,
                    sources=chunk.sources,
                    dataset_id=chunk.dataset_id,
                    dataset_name=chunk.dataset_name,
                    id=f"community:{n}",
                    data_id=chunk.data_id,
                    text=f"Community {n} ({group.size} entities): {about}",
                    method="graph_report",
                )
            )
    hub_rows: list[_Hub] = []
    for at, (hub, chunk_id) in enumerate(zip(hubs, hub_chunks, strict=True)):
        ref, chunk = refs.get(hub), chunks.get(chunk_id or "")
        if ref is None:
            continue
        row: _Hub = {
            "name": ref.name,
            "type": ref.type,
            "neighbours": shape.degree(hub),
            "mentions": shape.mention_count(hub),
        }
        hub_rows.append(row)
        if chunk is not None:
            hits.append(
                EntityHit(
                    score=0.5 / (at + 1),
                    sources=chunk.sources,
                    dataset_id=chunk.dataset_id,
                    dataset_name=chunk.dataset_name,
                    id=hub,
                    name=ref.name,
                    type=ref.type,
                    description=f"{row['neighbours']} neighbours, {row['mentions']} mentions",
                )
            )
    questions = _questions(hub_rows, described, options.questions)
    report: GraphReport = {
        "entities": shape.entity_count,
        "relations": len(graph.edges),
        "hubs": hub_rows,
        "communities": described,
        "questions": questions,
    }
    report["text"] = report_text(report)
    return {"report": report, "hits": hits}


def _quote(chunks: list[ChunkHit], members: list[str]) -> tuple[ChunkHit | None, str]:
    """The chunk and sentence naming most of ``members`` (the best connected one aside,
    as it is named almost everywhere); the first chunk's first sentence on ties."""
    best: tuple[int, int] = (-1, 0)
    chosen: tuple[ChunkHit | None, str] = (chunks[0] if chunks else None, "")
    others = [m.lower() for m in members[1:]] or [m.lower() for m in members]
    for candidate in chunks:
        for sentence in sentences(candidate.text):
            lowered = sentence.lower()
            named = sum(1 for m in others if m in lowered)
            score = (named, -abs(len(sentence) - 120))
            if score > best:
                best, chosen = score, (candidate, sentence)
    picked, quote = chosen
    return picked, quote if len(quote) <= 240 else quote[:237] + "..."


def _join(items: list[str]) -> str:
    return ", ".join(items)


def _questions(hubs: list[_Hub], groups: list[_Community], k: int) -> list[str]:
    out = []
    for hub in hubs[:3]:
        out.append(f"What do we know about {hub['name']}?")
    for group in groups:
        members = group["members"]
        if len(members) >= 2:
            out.append(f"How are {members[0]} and {members[1]} connected?")
    if hubs:
        out.append(f"List everything about {hubs[0]['name']} in time order.")
    return list(dict.fromkeys(out))[:k]


def report_text(report: GraphReport) -> str:
    """The report in plain text: sizes, hubs, communities, suggested questions."""
    lines = [f"Graph of {report['entities']} entities and {report['relations']} relations."]
    if report["hubs"]:
        hubs = ", ".join(f"{h['name']} ({h['neighbours']})" for h in report["hubs"])
        lines.append(f"Most connected: {hubs}.")
    for group in report["communities"]:
        lines.append(f"Community {group['id']} ({group['size']} entities): {group['about']}")
    if report["questions"]:
        lines.append("Suggested questions:")
        lines.extend(f"- {q}" for q in report["questions"])
    return "\n".join(lines)
