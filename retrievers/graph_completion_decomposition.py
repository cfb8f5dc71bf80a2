"""GRAPH_COMPLETION_DECOMPOSITION: split into sub-questions, retrieve and answer each.

With an LLM the ``decomposition`` prompt writes 1-5 sub-questions (a JSON
array); offline, or when the reply is unusable, a rule-based split: on
question marks when there are several, else on a conjunction ("and", "but",
";") whose right side starts like a question of its own. Each sub-question
gets its own graph search (and, with an LLM, its own answer); the rounds'
hits are merged by reciprocal rank so every sub-question's evidence is in the
context, and the answer stage writes the final answer.
"""

from __future__ import annotations

import json
from typing import ClassVar

import regex
from pydantic import Field

from recall_engine.core.search_types import SearchType
from retrievers.base import LLM, RetrievalContext, RetrieverConfig, RetrieverOutput, config_of
from retrievers.graph_output import graph_output
from retrievers.graph_rounds import llm_answer, merge_rounds
from retrievers.graph_search import GraphResult, GraphSearchConfig, graph_search, render_context

MAX_SUBQUESTIONS = 5
_QUESTION_START = (
    r"(?:what|where|when|who|whom|whose|which|why|how|did|does|do|is|are|was|were|has|have|"
    r"had|can|could|will|would|should)\b"
)
# A separator starts where its white space does and takes all of it: nested ``\s*``/``\s+``
# tried from every space of a long run cost its length cubed (a 4,000-space query).
_CONJUNCTION = regex.compile(
    rf"(?<!\s)(?:\s*+,)?+\s++(?:and|but)\s++(?={_QUESTION_START})"
    rf"|(?<!\s)\s*+;\s*+(?={_QUESTION_START})",
    regex.IGNORECASE,
)


class GraphDecompositionConfig(GraphSearchConfig):
    """Options of GRAPH_COMPLETION_DECOMPOSITION (``retriever_specific_config``)."""

    max_subquestions: int = Field(default=MAX_SUBQUESTIONS, ge=1, le=MAX_SUBQUESTIONS)


def split_question(question: str, limit: int = MAX_SUBQUESTIONS) -> list[str]:
    """The rule-based split (see the module docstring); at least the question itself."""
    text = question.strip()
    parts = [p.strip() + "?" for p in text.split("?") if p.strip()]
    if len(parts) < 2:
        parts = [p.strip() for p in _CONJUNCTION.split(text) if p and p.strip()]
    parts = [p for p in parts if len(p.split()) >= 2]
    return parts[:limit] if len(parts) > 1 else [text]


async def llm_split(llm: LLM, question: str, limit: int) -> list[str] | None:
    """Sub-questions written by the LLM, or None when its reply is not a usable list."""
    reply = await llm.complete("decomposition", question=question, max_subquestions=limit)
    # From the first "[" to the last "]" (what a greedy r"\[.*\]" matches, without
    # its rescans: quadratic on a reply of many "[" and no "]").
    start, end = reply.find("["), reply.rfind("]")
    try:
        items = json.loads(reply[start : end + 1]) if 0 <= start < end else None
    except json.JSONDecodeError:
        return None
    if not isinstance(items, list):
        return None
    subs = [s.strip() for s in items if isinstance(s, str) and s.strip()]
    return subs[:limit] or None


class GraphCompletionDecompositionRetriever:
    """Graph completion over the question's sub-questions."""

    search_type: ClassVar[str] = SearchType.GRAPH_COMPLETION_DECOMPOSITION
    kind: ClassVar[str] = "graph_completion"
    answers: ClassVar[bool] = True
    prompt: ClassVar[str] = "answer_from_graph_context"
    needs_llm: ClassVar[bool] = False
    embeds_query: ClassVar[bool] = True
    whole_scope: ClassVar[bool] = False
    config_model: ClassVar[type[RetrieverConfig]] = GraphDecompositionConfig

    async def retrieve(
        self, query: str, ctx: RetrievalContext[GraphDecompositionConfig]
    ) -> RetrieverOutput:
        """Split the question into sub-questions, search for each and merge the evidence.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the caller's scope and this type's
                options (``retriever_specific_config``).

        Returns:
            The rounds' hits merged by rank, cut at ``ctx.top_k``; ``details`` lists the
            sub-questions (and, with an LLM, their answers, which lead the context).
        """
        options = config_of(ctx, GraphDecompositionConfig)
        limit = options.max_subquestions
        subs = await llm_split(ctx.llm, query, limit) if ctx.llm is not None else None
        split = "llm" if subs else "rules"
        subs = subs or split_question(query, limit)
        results: list[GraphResult] = []
        answers: list[dict[str, object]] = []
        for sub in subs:
            vector = ctx.query_vector if sub == query else await ctx.embed(sub)
            result = await graph_search(
                sub,
                vector,
                ctx.read,
                options,
                top_k=ctx.top_k,
                timings=ctx.timings,
                embed_part=ctx.part_vector,
            )
            results.append(result)
            answer = await llm_answer(ctx.llm, sub, result) if ctx.llm and result.hits else None
            answers.append({"question": sub, "answer": answer, "hits": len(result.hits)})
        merged = merge_rounds(results, ctx.top_k, later_weight=1.0)
        output = graph_output(merged, subquestions=answers, split=split)
        if merged.hits and any(a["answer"] for a in answers):
            lines = [f"- {a['question']} {a['answer']}" for a in answers if a["answer"]]
            output.context = "Sub-answers:\n" + "\n".join(lines) + "\n\n" + render_context(merged)
        return output
