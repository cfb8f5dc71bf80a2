"""The one interface every retriever implements, and the types it exchanges.

A retriever turns a query plus a ``RetrievalContext`` into a ``RetrieverOutput``:
typed, scored hits (``recall_engine.core.hits``), best first, each with the
provenance it rests on. Producing the final answer is not a retriever's job: the
recall pipeline does it in one place for every search type whose class says
``answers = True``, with the prompt the class names. Retrievers that reason in
rounds (chain-of-thought, decomposition) use the narrow ``LLM`` interface.

Retrievers depend on the core layer and the read API only, never on the engine
or the stores.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.hits import AnyHit, Hit
from recall_engine.core.search_types import SearchTypeField, SearchTypeName
from recall_engine.core.text_parts import Spans, part_text
from recall_engine.read.api import ReadAPI


class RetrieverConfig(BaseModel):
    """Base of every retriever's frozen configuration (unknown keys are refused)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


ConfigT = TypeVar("ConfigT", bound=RetrieverConfig)
ConfigT_co = TypeVar("ConfigT_co", bound=RetrieverConfig, covariant=True)
ConfigT_contra = TypeVar("ConfigT_contra", bound=RetrieverConfig, contravariant=True)
ModelT = TypeVar("ModelT", bound=BaseModel)


class LLM(Protocol):
    """What a retriever may ask of the configured LLM: one prompt file, rendered."""

    async def complete(self, prompt: str, /, **variables: object) -> str:
        """Render prompt file ``prompt`` with ``variables`` and return the reply text."""
        ...

    async def complete_json(
        self, prompt: str, model: type[ModelT], /, **variables: object
    ) -> ModelT:
        """Like ``complete``, asking for JSON that validates as ``model``."""
        ...


class SessionView(Protocol):
    """The caller's session, as retrievers may see it."""

    @property
    def session_id(self) -> str:
        """The session's id."""
        ...

    def history(self, turns: int = 5) -> Sequence[tuple[str, str]]:
        """The most recent (question, answer) pairs, oldest first."""
        ...


class SearchTypes(Protocol):
    """Other search types a retriever may run on its own query scope.

    FEELING_LUCKY and AGENTIC_COMPLETION delegate through it.
    """

    @property
    def available(self) -> tuple[SearchTypeName, ...]:
        """Registered types that configuration allows and that can run now.

        Those needing an LLM only when one is given; never FEELING_LUCKY.
        """
        ...

    @property
    def routed(self) -> SearchTypeName | None:
        """The router's pick for the query, when the router ran."""
        ...

    async def run(
        self, search_type: SearchTypeName, query: str, ctx: RetrievalContext[RetrieverConfig]
    ) -> RetrieverOutput:
        """Retrieve for ``query`` with ``search_type`` and its default config.

        It runs in ``ctx``'s scope, with ``ctx``'s LLM; ``ctx.query_vector`` must embed
        ``query``.

        Args:
            search_type: one of ``available``.
            query: the query text.
            ctx: the context of the calling retriever.

        Returns:
            That type's output.

        Raises:
            UnsupportedSearchTypeError: ``search_type`` is not in ``available``.
        """
        ...


@dataclass(frozen=True)
class Identity:
    """Who is asking: the tenant and the user (None: the tenant's default user)."""

    tenant_id: str
    user_id: str | None = None


@dataclass(frozen=True)
class RetrievalContext(Generic[ConfigT_co]):
    """Everything a retriever may use for one query.

    ``query_vector`` is the query's embedding, computed once per recall and shared
    by every lane; ``embed`` embeds follow-up queries (multi-round retrievers);
    ``part_vector`` embeds a part of a query (``embedding.parts``). ``read`` is
    already bound to the caller's resolved dataset scope.
    """

    read: ReadAPI
    query_vector: np.ndarray
    embed: Callable[[str], Awaitable[np.ndarray]]
    config: ConfigT_co
    top_k: int
    identity: Identity
    reference_time: datetime
    llm: LLM | None = None
    session: SessionView | None = None
    timings: dict[str, float] = field(default_factory=dict)
    """Milliseconds per named stage; retrievers add their lanes (shown with verbose)."""
    search_types: SearchTypes | None = None
    """Runs other search types in this scope (None where delegation is not offered)."""
    embed_part: Callable[[str, Spans], Awaitable[np.ndarray]] | None = None
    """Embeds a part of a text (its character ranges) as the model read it in the
    whole text (``embedding.parts``); None: ``part_vector`` embeds the part's words."""

    async def part_vector(self, text: str, spans: Spans) -> np.ndarray:
        """The unit vector of the part of ``text`` within ``spans``.

        ``embed_part``'s, else the part's words embedded by ``embed``.
        """
        if self.embed_part is not None:
            return await self.embed_part(text, spans)
        return await self.embed(part_text(text, spans))


class RetrieverOutput(BaseModel):
    """Ranked hits plus what verbose mode shows.

    ``context`` overrides the plain join of hit texts when a retriever lays its
    context out itself.
    """

    hits: list[Hit] = Field(default_factory=list)
    details: dict[str, object] = Field(default_factory=dict)
    metadata: dict[str, object] = Field(
        default_factory=dict,
        description="Keys added to every result's metadata, verbose or not (TEMPORAL's "
        "'temporal': the interval it used or its fallback).",
    )
    context: str | None = None
    search_type: SearchTypeField | None = Field(
        default=None, description="The type that actually ran, when it differs (FEELING_LUCKY)."
    )

    def context_text(self) -> str:
        """The context an answer is generated from, in rank order."""
        if self.context is not None:
            return self.context
        return "\n\n".join(hit.text for hit in self.hits)


class Retriever(Protocol[ConfigT_contra]):
    """A retrieval strategy for one search type; the registry reads its class facts."""

    search_type: ClassVar[SearchTypeName]
    """The name recall() knows it by (a ``SearchType`` member for a built-in)."""
    kind: ClassVar[str]
    """``ResponseGraphEntry.kind`` of its results (answer or items)."""
    answers: ClassVar[bool]
    """True: the pipeline generates an answer from the context (unless only_context)."""
    prompt: ClassVar[str]
    """The prompt file the answer stage uses."""
    needs_llm: ClassVar[bool]
    """True: the type cannot run at all without an LLM."""
    embeds_query: ClassVar[bool]
    """True: the pipeline embeds the query into ``ctx.query_vector`` before it
    retrieves; False: ``ctx.query_vector`` is ``NO_VECTOR`` (BM25 and Cypher read text
    only, so they do not pay for an embedding they never use)."""
    whole_scope: ClassVar[bool] = False
    """True: its hits are about the whole scope, complete and in their own order (a
    report, a subject's whole history): the tense stage leaves their order, and a
    question sharing no word with the scope still gets them. A class that subclasses
    ``Retriever`` inherits False; ``register_retriever`` sets False on a class that
    does not say."""
    config_model: ClassVar[type[RetrieverConfig]]
    """Its options (``retriever_specific_config``), a frozen model that refuses unknown keys."""

    async def retrieve(self, query: str, ctx: RetrievalContext[ConfigT_contra]) -> RetrieverOutput:
        """Return the best context for ``query``, best first.

        Args:
            query: the query text.
            ctx: the read API, the query vector, the LLM (or None), the caller's scope,
                the session and this retriever's config.

        Returns:
            At most ``ctx.top_k`` hits, best first, each with its score and sources.
        """
        ...


RetrieverClass = type[Retriever[Any]]
"""A retriever class whatever its config model: each one's config type is its own, so
the pipeline builds the context from the class's ``config_model``: the type argument
is genuinely open here."""


def with_config(
    ctx: RetrievalContext[RetrieverConfig], config: ConfigT
) -> RetrievalContext[ConfigT]:
    """``ctx`` for another retriever, with ``config`` as its options.

    The scope, vectors, LLM, session, timings and delegation are ``ctx``'s own.

    Args:
        ctx: the calling retriever's context.
        config: the other retriever's config.

    Returns:
        A context that differs from ``ctx`` only in ``config``.
    """
    return RetrievalContext(
        read=ctx.read,
        query_vector=ctx.query_vector,
        embed=ctx.embed,
        config=config,
        top_k=ctx.top_k,
        identity=ctx.identity,
        reference_time=ctx.reference_time,
        llm=ctx.llm,
        session=ctx.session,
        timings=ctx.timings,
        search_types=ctx.search_types,
        embed_part=ctx.embed_part,
    )


NO_VECTOR = np.zeros(0, dtype=np.float32)
"""``RetrievalContext.query_vector`` of a retriever that said it needs none."""


def wants_query_vector(retriever: RetrieverClass) -> bool:
    """Whether the pipeline embeds the query for ``retriever`` (its ``embeds_query``)."""
    return retriever.embeds_query


def config_of(ctx: RetrievalContext[RetrieverConfig], model: type[ConfigT]) -> ConfigT:
    """``ctx.config`` as ``model``; a context built for another retriever is a bug.

    Raises:
        TypeError: the config is not a ``model`` (never silently defaulted).
    """
    if not isinstance(ctx.config, model):
        raise TypeError(
            f"expected a {model.__name__} in the retrieval context, got {type(ctx.config).__name__}"
        )
    return ctx.config


def ranked(hits: Sequence[AnyHit], k: int) -> list[AnyHit]:
    """Hits best first (stable for ties), at most ``k``."""
    return sorted(hits, key=lambda h: -h.score)[:k]
