"""Token and latency accounting for LLM calls.

Every completion returns an ``LLMUsage``. To total the calls made while one
``recall()`` runs (chain-of-thought and structured retries make several), wrap
it in ``track_usage()``: every call inside the block, in any task started from
it, adds to the same ``UsageTally``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic import BaseModel, ConfigDict, Field


class LLMUsage(BaseModel):
    """One completion, or a sum of several (``calls`` says how many)."""

    model_config = ConfigDict(frozen=True)

    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = Field(default=0.0, description="Wall time, retries and backoff included.")
    calls: int = 0
    attempts: int = Field(default=0, description="HTTP attempts, retries included.")

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            model=self.model or other.model,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            latency_ms=round(self.latency_ms + other.latency_ms, 3),
            calls=self.calls + other.calls,
            attempts=self.attempts + other.attempts,
        )

    def as_dict(self) -> dict[str, object]:
        """The shape shown in ``recall(verbose=True)`` metadata."""
        return {
            "model": self.model,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "latency_ms": self.latency_ms,
            "calls": self.calls,
            "attempts": self.attempts,
        }


class UsageTally:
    """A thread-safe running total of ``LLMUsage`` records."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[LLMUsage] = []

    def add(self, usage: LLMUsage) -> None:
        with self._lock:
            self._records.append(usage)

    @property
    def records(self) -> list[LLMUsage]:
        with self._lock:
            return list(self._records)

    @property
    def total(self) -> LLMUsage:
        total = LLMUsage()
        for record in self.records:
            total = total + record
        return total


_current: ContextVar[tuple[UsageTally, ...]] = ContextVar("recall_engine_llm_usage", default=())


@contextmanager
def track_usage() -> Iterator[UsageTally]:
    """Collect the usage of every LLM call made inside the block (nested blocks all see it)."""
    tally = UsageTally()
    token = _current.set((*_current.get(), tally))
    try:
        yield tally
    finally:
        _current.reset(token)


def record_usage(usage: LLMUsage) -> None:
    """Add ``usage`` to every open ``track_usage()`` block; a no-op outside one."""
    for tally in _current.get():
        tally.add(usage)
