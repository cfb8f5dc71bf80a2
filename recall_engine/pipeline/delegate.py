"""What the retrieve stage gives retrievers beyond the read API: the narrow LLM
(or None) and a way to run other search types in the same scope."""

from __future__ import annotations

import dataclasses

from recall_engine.config import RecallConfig
from recall_engine.core.errors import LLMNotConfiguredError, UnsupportedSearchTypeError
from recall_engine.core.search_types import CYPHER_SEARCH_TYPES, SearchType, SearchTypeName
from recall_engine.llm.completion import resolve_llm_config
from recall_engine.pipeline.llm_port import PromptLLM
from recall_engine.storage.tenant import TenantStore
from retrievers import REGISTRY, RetrievalContext, RetrieverOutput
from retrievers.base import RetrieverClass, RetrieverConfig, wants_query_vector


def holds_data(store: TenantStore, dataset_ids: tuple[str, ...]) -> bool:
    """Whether any chunk is stored in these datasets (an empty scope needs no retriever)."""
    return bool(dataset_ids) and bool(store.index.vectors.scope_mask(dataset_ids).any())


def retrieval_llm(config: RecallConfig, *, only_context: bool) -> PromptLLM | None:
    """The LLM retrievers may call: None without one, and None with
    ``only_context=True``, which makes no LLM call at all (retrieval then runs
    as it would offline)."""
    if only_context:
        return None
    llm_config = resolve_llm_config(config)
    return PromptLLM(llm_config) if llm_config is not None else None


def require_llm(retriever: RetrieverClass, llm: object, *, only_context: bool) -> None:
    """Refuse a search type that cannot run without an LLM, before it retrieves.

    Raises:
        LLMNotConfiguredError: ``retriever.needs_llm`` and ``llm`` is None.
    """
    if not retriever.needs_llm or llm is not None:
        return
    name = retriever.search_type
    if only_context:
        raise LLMNotConfiguredError(
            f"{name} needs the LLM to retrieve, and only_context=True makes no LLM call; "
            "pass only_context=False (or use CYPHER / CHUNKS / GRAPH_COMPLETION for context)."
        )
    raise LLMNotConfiguredError(
        f"{name} needs an LLM and none is configured; set LLM_MODEL (or "
        "RecallConfig(llm_model=...)), or use a search type that runs offline."
    )


class PipelineSearchTypes:
    """Implements ``retrievers.base.SearchTypes`` over the registry (registered
    types included).

    The Cypher types are not available where configuration disables them, nor where
    the call's reader does not read the whole tenant (``whole_tenant``: a scope of some
    of its datasets, ``as_of`` or ``metadata_filters``): a Cypher query reads the whole
    tenant graph, which the read API refuses such a call (``CypherReader``).
    """

    def __init__(
        self,
        config: RecallConfig,
        *,
        routed: SearchTypeName | None,
        llm: bool,
        routed_config: dict[str, object] | None = None,
        whole_tenant: bool = True,
    ) -> None:
        self._routed = routed
        self._routed_config = routed_config or {}
        cypher = config.allow_cypher_query and whole_tenant
        self._available = tuple(
            t
            for t, cls in REGISTRY.items()
            if t != SearchType.FEELING_LUCKY
            and (cypher or t not in CYPHER_SEARCH_TYPES)
            and (llm or not cls.needs_llm)
        )

    @property
    def available(self) -> tuple[SearchTypeName, ...]:
        return self._available

    @property
    def routed(self) -> SearchTypeName | None:
        return self._routed

    async def run(
        self, search_type: SearchTypeName, query: str, ctx: RetrievalContext[RetrieverConfig]
    ) -> RetrieverOutput:
        if search_type not in self._available:
            choices = ", ".join(self._available)
            raise UnsupportedSearchTypeError(
                f"{search_type} cannot run here; available: {choices}."
            )
        cls = REGISTRY[search_type]
        options = self._routed_config if search_type == self._routed else {}
        sub = dataclasses.replace(ctx, config=cls.config_model(**options))
        if wants_query_vector(cls) and ctx.query_vector.size == 0:
            sub = dataclasses.replace(sub, query_vector=await ctx.embed(query))
        output = await cls().retrieve(query, sub)
        if output.search_type is None:
            output.search_type = search_type
        return output
