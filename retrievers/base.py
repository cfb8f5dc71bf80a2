"""The one interface every retriever implements, and the types it exchanges.

A retriever turns a query plus a ``RetrievalContext`` into a ``RetrieverOutput``:
scored, provenance-carrying context items, best first. Producing an answer from
that context is not a retriever's job: the engine does it in one place
(``recall_engine.completion``) for every answer-producing search type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.models import SourceRef
from recall_engine.core.search_types import SearchType

if TYPE_CHECKING:
    from recall_engine.config import RecallConfig
    from recall_engine.embedding import Embedder
    from recall_engine.storage.tenant import TenantStore


class ContextItem(BaseModel):
    """One unit of retrieved context with its score and provenance."""

    model_config = ConfigDict(frozen=True)

    text: str
    score: float
    kind: str = Field(description="chunk, summary, triplet, entity, event, ...")
    sources: list[SourceRef] = Field(default_factory=list)
    dataset_id: str | None = None
    dataset_name: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    raw: Any = None


class RetrieverOutput(BaseModel):
    """What a retriever returns: ranked items plus the details verbose mode shows."""

    items: list[ContextItem] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)

    def context_text(self) -> str:
        """The items formatted as one context block, in rank order."""
        return "\n\n".join(item.text for item in self.items)


@dataclass(frozen=True)
class RetrievalContext:
    """Everything a retriever may use for one query."""

    store: TenantStore
    embedder: Embedder
    config: RecallConfig
    top_k: int
    dataset_ids: tuple[str, ...] | None = None
    options: BaseModel | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class RetrieverConfig(BaseModel):
    """Base of every retriever's frozen configuration."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Retriever(Protocol):
    """A retrieval strategy for one search type."""

    search_type: ClassVar[SearchType]
    kind: ClassVar[str]
    produces_answer: ClassVar[bool]
    config_model: ClassVar[type[RetrieverConfig]]

    async def retrieve(self, query: str, ctx: RetrievalContext) -> RetrieverOutput:
        """Return the best context for ``query``, at most ``ctx.top_k`` items, best first."""
        ...
