"""One-line LLM summaries of traced calls (``engine.trace(..., summarize=True)``).

A summary is asked for once the call is recorded, and made off the traced
function's path: on one event loop in a thread of the engine, so a sync or an
async tool returns as fast as it would untraced, and an LLM that is slow or
failing never reaches the agent (a failed summary is logged; the trace stays,
without one). The LLM sees only the call's redacted, capped line, and its reply
is redacted again before it is stored.

A search of a session's traces first waits (``settle``) for the summaries asked
for in that session, for at most one LLM call's time, so that a call that has
returned is found by its summary too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable

from recall_engine.core.errors import RecallEngineError
from recall_engine.llm.client import LLMClient
from recall_engine.llm.config import LLMConfig
from recall_engine.prompts import render_prompt
from recall_engine.sessions.traces import TraceRecord, TraceStore

logger = logging.getLogger(__name__)
PROMPT = "summarize_trace"
MAX_CHARS = 300
"""The longest summary kept: one line, not a paragraph."""
CONCURRENT = 4
"""Summaries in flight at once (an agent may trace many calls in a burst)."""

_Key = tuple[str, str, str]


def one_line(text: str, *, limit: int = MAX_CHARS) -> str:
    """The first non-empty line of a reply, cut at ``limit`` characters."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 3].rstrip() + "..."


class TraceSummaries:
    """Summaries of the traced calls of one engine, written into its ``TraceStore``."""

    def __init__(self, store: TraceStore, llm: LLMConfig | None) -> None:
        self.store = store
        self.llm = llm
        self._client = LLMClient(llm) if llm is not None else None
        self._lock = threading.Lock()
        self._pending: dict[_Key, set[concurrent.futures.Future[None]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._limit: asyncio.Semaphore | None = None
        self._closed = False

    @property
    def available(self) -> bool:
        """Whether an LLM is configured to write summaries."""
        return self._client is not None

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="trace-summaries", daemon=True)
            thread.start()
            self._loop, self._thread = loop, thread
        return self._loop

    def request(
        self, tenant_id: str, user_id: str, record: TraceRecord, clean: Callable[[str], str]
    ) -> None:
        """Ask for ``record``'s summary; ``clean`` redacts the reply before it is stored.
        Does nothing without an LLM or after ``close``."""
        if self._client is None:
            return
        key = (tenant_id, user_id, record.session_id)
        with self._lock:
            if self._closed:
                return
            future = asyncio.run_coroutine_threadsafe(
                self._summarize(tenant_id, user_id, record, clean), self._running_loop()
            )
            self._pending.setdefault(key, set()).add(future)

        def done(f: concurrent.futures.Future[None]) -> None:
            with self._lock:
                waiting = self._pending.get(key)
                if waiting is not None:
                    waiting.discard(f)
                    if not waiting:
                        del self._pending[key]

        future.add_done_callback(done)

    async def _summarize(
        self, tenant_id: str, user_id: str, record: TraceRecord, clean: Callable[[str], str]
    ) -> None:
        assert self._client is not None
        if self._limit is None:  # made on the loop that uses it
            self._limit = asyncio.Semaphore(CONCURRENT)
        try:
            async with self._limit:
                messages = render_prompt(PROMPT, call=record.text()).messages()
                completion = await self._client.complete(messages)
            summary = one_line(clean(completion.text))
            if summary:
                await asyncio.to_thread(
                    self.store.set_summary, tenant_id, user_id, record.trace_id, summary
                )
        except RecallEngineError as exc:  # an LLM or store failure costs the summary only
            logger.warning("trace %s of %s left without a summary: %s", record.trace_id,
                           record.name, exc)  # fmt: skip

    def settle(self, tenant_id: str, user_id: str, session_id: str) -> None:
        """Wait until the summaries asked for in this session are written (or failed),
        for at most one LLM call's time (every attempt). Blocking: call off the loop."""
        with self._lock:
            waiting = list(self._pending.get((tenant_id, user_id, session_id), ()))
        if waiting:
            concurrent.futures.wait(waiting, timeout=self._bound())

    def _bound(self) -> float:
        """One LLM call's longest time, every attempt and wait included."""
        assert self.llm is not None
        attempts = self.llm.max_retries + 1
        return attempts * self.llm.timeout_s + attempts * self.llm.backoff_max_s

    def close(self) -> None:
        """Let the summaries in flight finish (for at most one LLM call's time), drop
        what is left, and stop the thread; later requests do nothing."""
        with self._lock:
            self._closed = True
            waiting = [f for futures in self._pending.values() for f in futures]
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if waiting and self.llm is not None:
            concurrent.futures.wait(waiting, timeout=self._bound())
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(_cancel_all(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        if not thread.is_alive():
            loop.close()


async def _cancel_all() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
