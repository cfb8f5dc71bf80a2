"""BROAD: questions about a whole scope (counts, totals, complete lists, the most).

"How many pets does Ann have?" needs every record of Ann's pets, not the passage
most like the question. BROAD reads the question (``broad_query``), reads every
chunk of its subject in time order and turns the sentences into records
(``broad_records``): one item of the asked kind each, deduplicated by entity
resolution, with the sentence and chunk that state it and whether a later
statement ended it. ``metadata["records"]`` is the ``RecordSet``; the hits are the
records as triplets (subject -[kind]-> item), in time order, every one of them
(``top_k`` does not cut a complete list), each citing its chunk.

Offline, the answer is computed from the records (``recall_engine.llm.answer_records``):
a count, a sum or a list, exact, each item with its evidence. With an LLM, the
model sees the subject's whole history when it fits ``whole_scope_words``, else the
record list (read-only: the records are all it may count from);
``metadata["records"]["how"]`` says which. When the records are fewer than
``top_k``, the routed default's hits for the question are taken in turn with them
(passages the records' wording missed; the records keep their time order). A
question that asks no aggregation, or whose records are none, runs the routed
default (GRAPH_COMPLETION, one follow-up hop when needed) instead, and
``metadata["broad"]["fallback"]`` says why.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from recall_engine.core.hits import EntityRef, Hit, TripletHit
from recall_engine.core.records import Record, RecordSet
from recall_engine.core.search_types import SearchType
from retrievers.base import (
    RetrievalContext,
    RetrieverConfig,
    RetrieverOutput,
    config_of,
    with_config,
)
from retrievers.broad_query import BroadQuery, read_question
from retrievers.broad_records import Gathered, gather
from retrievers.graph_completion import (
    ROUTED_HOP,
    GraphCompletionConfig,
    GraphCompletionRetriever,
)
from retrievers.hybrid_completion import timed


class BroadConfig(RetrieverConfig):
    """Options of BROAD (``retriever_specific_config``)."""

    whole_scope_words: int = Field(
        default=6000,
        ge=0,
        description="With an LLM: the subject's whole history goes in the prompt when it "
        "has at most this many words, else the records do (lower it to cut prompt size).",
    )


class BroadRetriever:
    """Every record of the asked kind in scope, for counts, totals and lists."""

    search_type: ClassVar[str] = SearchType.BROAD
    kind: ClassVar[str] = "broad"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_records"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True  # the fallback search needs the query vector
    config_model: ClassVar[type[RetrieverConfig]] = BroadConfig
    whole_scope: ClassVar[bool] = True
    """Its hits are a complete list in time order: the tense stage does not re-rank them."""

    async def retrieve(self, query: str, ctx: RetrievalContext[BroadConfig]) -> RetrieverOutput:
        """Read every record the question asks about.

        Args:
            query: the question ("How many ...", "List all ...", "... in total").
            ctx: the read API bound to the caller's scope, the LLM (or None) and
                this type's options.

        Returns:
            Every record as a hit, in time order, with ``metadata["records"]``; for a
            question that asks no aggregation, at most ``ctx.top_k`` chunks sharing
            its words.
        """
        options = config_of(ctx, BroadConfig)
        asked = read_question(query)
        if asked is None:
            return await _fall_back(query, ctx, "the question asks for no count, total or list")
        found = await timed(ctx.timings, "broad.records", gather(ctx.read, asked, query))
        subject = found.subjects[0] if found.subjects else None
        ref = (
            EntityRef(id=subject.id, name=subject.name, type=subject.type)
            if subject is not None
            else EntityRef(id="scope", name="scope", type="SCOPE")
        )
        hits = [_hit(r, ref, asked, i) for i, r in enumerate(found.records)]
        how, context = _context(found, asked, ctx, options)
        records = RecordSet(
            ask=asked.ask,
            kind=asked.kind,
            subjects=tuple(e.name for e in found.subjects) or asked.subjects,
            current_only=asked.current_only,
            records=tuple(found.records),
            how=how,
        )
        if not hits:
            return await _fall_back(query, ctx, f"no record of kind '{asked.kind}' was found")
        support = await _support(query, ctx, hits) if len(hits) < ctx.top_k else []
        return RetrieverOutput(
            hits=_alternate(hits, support),
            context=context,
            metadata={"records": records.model_dump(mode="json")},
            details={
                "ask": asked.ask.value,
                "kind": asked.kind,
                "terms": list(asked.terms),
                "chunks_read": len(found.chunks),
                "records": len(found.records),
                "supporting_hits": len(support),
            },
        )


def _hit(record: Record, subject: EntityRef, asked: BroadQuery, at: int) -> TripletHit:
    target = EntityRef(id=record.key, name=record.item, type=asked.kind or asked.ask.value)
    state = "" if record.current else f"; ended: {record.ended_by}"
    return TripletHit(
        score=1.0 / (at + 1),
        sources=(record.source,),
        dataset_id=record.source.dataset_id,
        dataset_name=record.source.dataset_name,
        id=f"record:{record.key}",
        source=subject,
        predicate=asked.kind or asked.ask.value,
        target=target,
        context=record.sentence + state,
        timestamp=record.time,
        chunk_id=record.source.chunk_id,
        data_id=record.source.data_id,
    )


def record_lines(records: list[Record]) -> str:
    """The records one per line: time, item, its sentence, whether it still holds."""
    lines = []
    for n, r in enumerate(records, start=1):
        when = (r.time or "undated")[:10]
        state = "current" if r.current else f"ended ({r.ended_by})"
        extra = f" x{r.mentions}" if r.mentions > 1 else ""
        lines.append(f"{n}. [{when}] {r.item}{extra} ({state}): {r.sentence}")
    return "\n".join(lines)


def _context(
    found: Gathered, asked: BroadQuery, ctx: RetrievalContext[BroadConfig], options: BroadConfig
) -> tuple[str, str]:
    """How the answer is reached, and the context that goes with it."""
    head = f"Records of kind '{asked.kind or asked.ask.value}'"
    if found.subjects:
        head += f" about {', '.join(e.name for e in found.subjects)}"
    table = f"{head} ({len(found.records)}, in time order):\n{record_lines(found.records)}"
    if ctx.llm is None:
        return "records", table
    words = sum(len(c.text.split()) for c in found.chunks)
    if found.chunks and words <= options.whole_scope_words:
        history = "\n".join(c.text for c in found.chunks)
        return (
            f"whole scope in one prompt ({len(found.chunks)} chunks)",
            f"Every passage in scope, in time order:\n{history}\n\n{table}",
        )
    return f"records ({len(found.records)}; the scope has {words} words)", table


def _alternate(records: list[TripletHit], support: list[Hit]) -> list[Hit]:
    """Records and the default's hits taken in turn (records keep their time order), scored
    by position: a few records do not push the passages the default ranks first out of
    the head, and the records are all there."""
    out: list[Hit] = []
    for n in range(max(len(records), len(support))):
        if n < len(records):
            out.append(records[n])
        if n < len(support):
            out.append(support[n])
    return [h.with_score(1.0 / (i + 1)) for i, h in enumerate(out)]


def _default(ctx: RetrievalContext[BroadConfig]) -> RetrievalContext[GraphCompletionConfig]:
    """The routed default's context: GRAPH_COMPLETION with one follow-up hop when the
    first round needs it (``ROUTED_HOP``)."""
    return with_config(ctx, GraphCompletionConfig.model_validate(ROUTED_HOP))


async def _support(
    query: str, ctx: RetrievalContext[BroadConfig], records: list[TripletHit]
) -> list[Hit]:
    """The routed default's hits for the question that cite no record's chunk: passages
    that state what the records' wording missed (up to ``top_k`` with the records)."""
    inner = await GraphCompletionRetriever().retrieve(query, _default(ctx))
    cited = {r.chunk_id for r in records}
    extra = [h for h in inner.hits if getattr(h, "chunk_id", None) not in cited]
    return extra[: ctx.top_k - len(records)]


async def _fall_back(
    query: str, ctx: RetrievalContext[BroadConfig], reason: str
) -> RetrieverOutput:
    """No records: the routed default (GRAPH_COMPLETION, one follow-up hop) runs, and says so."""
    output = await GraphCompletionRetriever().retrieve(query, _default(ctx))
    target = GraphCompletionRetriever.search_type
    why = f"{reason}; ran {target} instead"
    return output.model_copy(
        update={
            "details": {**output.details, "fallback": why},
            "metadata": {**output.metadata, "broad": {"fallback": why}},
            "search_type": output.search_type or target,
        }
    )
