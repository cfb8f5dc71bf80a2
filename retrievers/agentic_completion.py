"""AGENTIC_COMPLETION: the LLM gathers context with tools, step by step (<= 6 steps).

Each step the LLM sees the question, the tools and what earlier steps observed
(``agentic_step``) and replies ``{"tool": ..., "input": ...}``. The tools read
through the read API only: ``search_passages`` (the passage lane of HYBRID),
``search_graph`` (GRAPH_COMPLETION's context, run through ``ctx.search_types``)
and ``cypher`` (read-only, as CYPHER; off where ALLOW_CYPHER_QUERY is, on a call
filtered by ``as_of`` or ``metadata_filters``, whose reads it could not keep to, and
on a call scoped to some of the tenant's datasets). Hits are
kept once each, in the order found. The loop stops at ``finish``, after
``max_steps``, when a tool call adds nothing new, or on an unusable reply (the
hits so far are kept and ``details`` says why it stopped). A failed or refused
tool call (a Cypher write, say) is an observation for the next step, not an
error. The answer is written by the pipeline's answer stage, as for every type.

It needs an LLM and exactly one dataset in scope: the agent's Cypher and its
sense of "the data" must not mix datasets it cannot tell apart.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Hashable
from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from recall_engine.core.errors import (
    InvalidAgenticDatasetScope,
    InvalidInputError,
    LLMResponseError,
    StoreError,
    UnsupportedSearchTypeError,
)
from recall_engine.core.hits import AnyHit
from recall_engine.core.search_types import SearchType
from retrievers.base import LLM, RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.cypher import rows_as_hits
from retrievers.graph_rounds import hit_key
from retrievers.passages import PassageConfig, passages

Tool = Literal["search_passages", "search_graph", "cypher", "finish"]

TOOLS: dict[str, str] = {
    "search_passages": "input: a search query. Returns the passages that best match it.",
    "search_graph": "input: a search query. Returns knowledge-graph facts "
    "(subject --[relation]--> object) and the passages they come from.",
    "cypher": "input: one read-only Cypher query over the graph schema below. Returns rows.",
    "finish": "input: empty. Ends the search when the observations can answer the question.",
}
NO_CYPHER = (
    "not offered: this call cannot run CYPHER (configuration disables it, or its datasets, "
    "as_of or metadata_filters leave part of the graph out, which a whole-graph query "
    "cannot keep to)"
)
"""Why the tool list has no ``cypher`` (``details["cypher"]``)."""
SHOWN_PER_STEP = 8
SHOWN_CHARS = 300


class AgentStep(BaseModel):
    """One reply of the LLM: the tool to run and its input."""

    tool: Tool
    input: str = ""


class AgenticConfig(RetrieverConfig):
    """Options of AGENTIC_COMPLETION (``retriever_specific_config``)."""

    max_steps: int = Field(default=6, ge=1, le=6, description="Tool calls at most.")
    cypher_timeout_s: float = Field(
        default=5.0,
        gt=0,
        le=60,
        description="Seconds one Cypher step may run; past it the step fails and the agent "
        "sees the error (raise it for large graphs).",
    )


class ToolFailed(Exception):
    """A tool call that could not run; its message becomes the observation."""


class AgenticCompletionRetriever:
    """Context gathered by an LLM that calls search tools, then one answer."""

    search_type: ClassVar[str] = SearchType.AGENTIC_COMPLETION
    kind: ClassVar[str] = "graph_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = True
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = AgenticConfig

    async def retrieve(self, query: str, ctx: RetrievalContext[AgenticConfig]) -> RetrieverOutput:
        """Run the tool loop and return every hit it gathered, in the order found.

        Raises:
            InvalidAgenticDatasetScope: the scope is not exactly one dataset.
            LLMError: the provider failed (an unusable reply only ends the loop).
        """
        options = config_of(ctx, AgenticConfig)
        scope = ctx.read.dataset_ids
        if len(scope) != 1:
            raise InvalidAgenticDatasetScope(
                f"AGENTIC_COMPLETION searches exactly one dataset, and this call's scope has "
                f"{len(scope)}; pass datasets=['<name>'] (or dataset_ids=[...]) naming one."
            )
        if ctx.llm is None:
            raise RuntimeError("AGENTIC_COMPLETION needs ctx.llm (the pipeline checks this)")
        tools = await _tools(ctx)
        gathered: dict[Hashable, AnyHit] = {}
        observations: list[str] = []
        steps: list[dict[str, object]] = []
        details: dict[str, object] = {"tools": list(tools), "steps": steps}
        if "cypher" not in tools:
            details["cypher"] = NO_CYPHER
        stopped = "max_steps"
        started = time.perf_counter()
        for number in range(1, options.max_steps + 1):
            step = await _next_step(ctx.llm, query, tools, observations)
            if isinstance(step, str):
                stopped, details["unusable_reply"] = "unusable_reply", step
                break
            if step.tool == "finish":
                steps.append({"step": number, "tool": "finish", "input": step.input})
                stopped = "finish"
                break
            begun = time.perf_counter()
            record: dict[str, object] = {"step": number, "tool": step.tool, "input": step.input}
            try:
                found = await _run_tool(step, ctx, tools, options)
            except ToolFailed as exc:
                record.update(added=0, error=str(exc))
                observations.append(f"Step {number}: {step.tool}({step.input!r}) failed: {exc}")
            else:
                new = [h for h in found if hit_key(h) not in gathered]
                gathered.update((hit_key(h), h) for h in new)
                record["added"] = len(new)
                observations.append(_observation(number, step, found, new))
            record["ms"] = round((time.perf_counter() - begun) * 1000, 3)
            steps.append(record)
            if "error" not in record and not record["added"]:
                stopped = "no_new_hits"
                break
        if not gathered:
            # The answer stage needs context; the plain question is the agent's first move anyway.
            vector = ctx.query_vector
            fallback = await passages(ctx.read, vector, query, ctx.top_k, PassageConfig())
            gathered.update((hit_key(h), h) for h in fallback)
            details["fallback"] = "nothing gathered: passages for the question"
        ctx.timings["agentic"] = round((time.perf_counter() - started) * 1000, 3)
        details["stopped"] = stopped
        hits = [h.with_score(1.0 / (1 + rank)) for rank, h in enumerate(gathered.values())]
        return RetrieverOutput(hits=hits, details=details)


async def _tools(ctx: RetrievalContext[RetrieverConfig]) -> dict[str, str]:
    """The tools this call may use, as the LLM reads them.

    Graph search needs ``ctx.search_types``; Cypher is off where the CYPHER search
    type is not available (configuration disables it, or the call is filtered by
    ``as_of`` or ``metadata_filters``: ``PipelineSearchTypes``), and otherwise comes
    with the graph schema.
    """
    runner = ctx.search_types
    offered = dict(TOOLS)
    if runner is None or SearchType.GRAPH_COMPLETION not in runner.available:
        del offered["search_graph"]
    if runner is not None and SearchType.CYPHER not in runner.available:
        del offered["cypher"]
    else:
        schema = await ctx.read.graph_schema()
        offered["cypher"] += "\n  " + "\n  ".join(schema.splitlines())
    return offered


async def _next_step(
    llm: LLM, query: str, tools: dict[str, str], observations: list[str]
) -> AgentStep | str:
    """The LLM's next tool call, or why its reply could not be used."""
    try:
        return await llm.complete_json(
            "agentic_step",
            AgentStep,
            question=query,
            tools="\n".join(f"- {name}: {text}" for name, text in tools.items()),
            observations="\n\n".join(observations) or "(none yet)",
        )
    except LLMResponseError as exc:
        return str(exc)


async def _run_tool(
    step: AgentStep,
    ctx: RetrievalContext[RetrieverConfig],
    tools: dict[str, str],
    options: AgenticConfig,
) -> list[AnyHit]:
    """The hits of one tool call.

    Raises:
        ToolFailed: the tool is not offered, the input is empty, or the read API refused it.
    """
    text = step.input.strip()
    if step.tool not in tools:
        raise ToolFailed(f"{step.tool} is not available here; use one of {', '.join(tools)}")
    if not text:
        raise ToolFailed("the input is empty")
    if step.tool == "cypher":
        try:
            result = await ctx.read.cypher(
                text, timeout_s=options.cypher_timeout_s, max_rows=ctx.top_k
            )
        except (InvalidInputError, StoreError) as exc:
            raise ToolFailed(str(exc)) from exc
        return list(await rows_as_hits(ctx.read, result))
    vector = await ctx.embed(text)
    if step.tool == "search_passages":
        return list(await passages(ctx.read, vector, text, ctx.top_k, PassageConfig()))
    assert ctx.search_types is not None  # _tools offers search_graph only with it
    sub = dataclasses.replace(ctx, query_vector=vector, llm=None)
    try:
        output = await ctx.search_types.run(SearchType.GRAPH_COMPLETION, text, sub)
    except UnsupportedSearchTypeError as exc:
        raise ToolFailed(str(exc)) from exc
    return list(output.hits)


def _observation(number: int, step: AgentStep, found: list[AnyHit], new: list[AnyHit]) -> str:
    """What the LLM sees of one step: the new hits, each shortened."""
    head = f"Step {number}: {step.tool}({step.input!r}) found {len(found)}, {len(new)} new"
    if not new:
        return head + " (nothing new)."
    lines = [f"- {_short(h.text)}" for h in new[:SHOWN_PER_STEP]]
    if len(new) > SHOWN_PER_STEP:
        lines.append(f"- ... and {len(new) - SHOWN_PER_STEP} more")
    return head + ":\n" + "\n".join(lines)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHOWN_CHARS else flat[: SHOWN_CHARS - 3] + "..."
