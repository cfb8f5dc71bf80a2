"""``RecallEngine.trace``: the decorator that records an agent's tool calls.

``recall_engine.sessions.tracing`` behind the engine's method.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from recall_engine.config import RecallConfig
from recall_engine.core.errors import InvalidInputError
from recall_engine.identity import IdentityRegistry, User
from recall_engine.pipeline.request import check_session_id
from recall_engine.sessions.redact import Redactor
from recall_engine.sessions.summaries import TraceSummaries
from recall_engine.sessions.traces import TraceStore
from recall_engine.sessions.tracing import TraceTarget, traced

logger = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


class TracingMixin:
    """Agent traces of a ``RecallEngine`` (mixed into it)."""

    config: RecallConfig
    identity: IdentityRegistry
    traces: TraceStore
    trace_summaries: TraceSummaries

    if TYPE_CHECKING:

        def _tenant(self, tenant_id: str | None) -> str: ...

    def trace(
        self,
        session_id: str,
        *,
        name: str | None = None,
        user: User | str | None = None,
        tenant_id: str | None = None,
        summarize: bool = False,
    ) -> Callable[[Callable[P, R]], Callable[P, R]]:
        """A decorator that records each call of a function (sync or async) in a session.

        Each record holds the function's name, arguments, return value or error,
        duration and time; ``recall(..., scope=["trace"], session_id=...)`` then searches
        them. Arguments and values are stored as JSON of at most
        ``config.trace_max_chars`` characters, with the values of secret-named arguments
        and keys (``config.trace_redact``) and credential-shaped strings replaced by
        ``"[redacted]"``. Recording never changes what the function returns or raises.

        Args:
            session_id: the session the calls belong to.
            name: the name recorded for the function; None is its qualified name.
            user: the user (or its id) whose session it is; None is the default user.
            tenant_id: the tenant; None is the configured default tenant.
            summarize: also have the configured LLM write a one-line summary of each
                call (from its redacted record), stored with the trace and searched
                with its text. Made in the background: the function returns as fast
                as it would untraced, and a search of the session waits for the
                summaries of calls that returned before it. Offline (no LLM) calls
                are recorded without a summary, and a warning says so.

        Returns:
            The decorator; the function it wraps keeps its signature.

        Raises:
            InvalidInputError: a bad session_id, name or summarize.
            UserNotFoundError: an unknown ``user``.
        """
        session = check_session_id(session_id)
        if session is None:
            raise InvalidInputError("trace() needs a session_id: the session the calls belong to.")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise InvalidInputError(f"name must be a non-empty string or None, got {name!r}.")
        if not isinstance(summarize, bool):
            raise InvalidInputError(f"summarize must be True or False, got {summarize!r}.")
        tenant = self._tenant(tenant_id)
        owner = self.identity.resolve_user(tenant, user).id
        key = self.config.llm_api_key
        redactor = Redactor(
            self.config.trace_redact,
            max_chars=self.config.trace_max_chars,
            secret_values=[key.get_secret_value()] if key is not None else [],
        )
        summaries = None
        if summarize and self.trace_summaries.available:
            summaries = self.trace_summaries
        elif summarize:
            logger.warning(
                "trace(session_id=%r, summarize=True): no LLM is configured (offline), so "
                "calls are recorded without a summary; set LLM_MODEL to have them summarised.",
                session,
            )
        target = TraceTarget(self.traces, redactor, tenant, session, owner, summaries)
        return traced(target, name.strip() if name else None)
