"""``@engine.trace(session_id=...)``: record each call of a function in a session.

A traced call is recorded whether it returns or raises (the exception is
re-raised unchanged); recording never changes what the function does: a trace
that cannot be written is logged and dropped. Arguments are bound to their
parameter names (``self``/``cls`` left out), so an argument named like a secret
is redacted by name (``redact``). With ``summaries``, each recorded call is
handed on for its one-line LLM summary, made off the function's path
(``summaries``).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, ParamSpec, TypeVar, cast

from recall_engine.core.errors import RecallEngineError
from recall_engine.sessions.redact import Redactor
from recall_engine.sessions.summaries import TraceSummaries
from recall_engine.sessions.traces import TraceStore

logger = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class TraceTarget:
    """Where a decorated function's calls go: the session and how values are kept."""

    store: TraceStore
    redactor: Redactor
    tenant_id: str
    session_id: str
    user_id: str
    """The user the session belongs to."""
    summaries: TraceSummaries | None = None
    """Where each recorded call is sent for its summary (``summarize=True``)."""


def _arguments(
    signature: inspect.Signature | None, args: tuple[object, ...], kwargs: dict[str, object]
) -> dict[str, object]:
    if signature is None:
        return {"args": list(args), "kwargs": kwargs}
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError:
        return {"args": list(args), "kwargs": kwargs}
    return {k: v for k, v in bound.arguments.items() if k not in ("self", "cls")}


class _Call:
    """One call in flight: its start, and the write of its outcome."""

    def __init__(self, target: TraceTarget, name: str, arguments: dict[str, object]) -> None:
        self.target, self.name, self.arguments = target, name, arguments
        self.start = time.perf_counter()

    def write(self, result: object = None, error: BaseException | None = None) -> None:
        target = self.target
        status: Literal["ok", "error"] = "ok" if error is None else "error"
        try:
            record = target.store.append(
                target.tenant_id,
                target.user_id,
                target.session_id,
                name=self.name,
                status=status,
                arguments=target.redactor.dumps(self.arguments),
                result=None if error is not None else target.redactor.dumps(result),
                error=None
                if error is None
                else target.redactor.plain(f"{type(error).__name__}: {error}"),
                duration_ms=(time.perf_counter() - self.start) * 1000,
            )
        except RecallEngineError as exc:  # tracing must never break the traced function
            logger.warning("trace of %s not recorded: %s", self.name, exc)
            return
        if target.summaries is not None:
            target.summaries.request(target.tenant_id, target.user_id, record, self._clean)

    def _clean(self, text: str) -> str:
        return str(self.target.redactor.plain(text))


def traced(
    target: TraceTarget, name: str | None = None
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """The decorator for one session; works on sync and async functions."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        if not callable(fn):
            raise TypeError(f"trace() decorates a function, got {type(fn).__name__}.")
        label = name or getattr(fn, "__qualname__", None) or repr(fn)
        try:
            signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            signature = None

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: P.args, **kwargs: P.kwargs) -> object:
                call = _Call(target, label, _arguments(signature, args, kwargs))
                try:
                    result = await cast(Callable[..., Awaitable[object]], fn)(*args, **kwargs)
                except BaseException as exc:
                    if not isinstance(exc, asyncio.CancelledError):
                        await asyncio.to_thread(call.write, error=exc)
                    raise
                await asyncio.to_thread(call.write, result)
                return result

            return cast(Callable[P, R], run_async)

        @functools.wraps(fn)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            call = _Call(target, label, _arguments(signature, args, kwargs))
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                if isinstance(exc, Exception):
                    call.write(error=exc)
                raise
            call.write(result)
            return result

        return run

    return decorate
