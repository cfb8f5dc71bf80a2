"""The one interface every graph extractor implements, and its input type.

An extractor turns a batch of chunks into one ``ChunkExtraction`` per chunk, in
input order. It must not raise on odd text (empty, huge, emoji, any language): a
chunk it cannot read yields an empty extraction. The rule-based extractor in
``rules.py`` is the offline default; an LLM-backed one parses its output with
``llm_extractor.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from recall_engine.core.graph import ChunkExtraction


def make_namespace(tenant_id: str, dataset_id: str) -> str:
    """The resolution scope: entities never merge across namespaces."""
    return f"{tenant_id}/{dataset_id}"


class ChunkInput(BaseModel):
    """One chunk as an extractor sees it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    chunk_id: str
    text: str
    speaker: str | None = Field(default=None, description="Who said it (conversation turns).")
    timestamp: datetime | None = Field(
        default=None, description="Message time or document date: the base for 'yesterday'."
    )
    dataset_id: str = ""
    data_id: str | None = None
    namespace: str = Field(default="", description="Defaults to dataset_id.")

    @model_validator(mode="before")
    @classmethod
    def _default_namespace(cls, values: object) -> object:
        if isinstance(values, dict) and not values.get("namespace"):
            values = {**values, "namespace": values.get("dataset_id") or ""}
        return values


@runtime_checkable
class Extractor(Protocol):
    """Turns chunks into graph elements."""

    @property
    def name(self) -> str:
        """A stable identity, recorded with what it extracted (e.g. ``rules-v1``)."""
        ...

    async def extract(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """One extraction per chunk, in input order; never raises on odd text."""
        ...
