"""Module-level remember() / recall() over a default engine.

The default engine reads its configuration from the environment
(``RECALL_ENGINE_DATA_DIR``, else ``./.recall_engine``) on first use.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Unpack

from recall_engine.core.models import RecallResult, RememberResult, ResponseQAEntry
from recall_engine.core.recall_options import RecallOptions, recall_signature
from recall_engine.core.search_types import SearchType
from recall_engine.engine import RecallEngine
from recall_engine.identity import User

if TYPE_CHECKING:
    from recall_engine.memory import Memory
    from recall_engine.remote import RemoteRecallEngine

_default: RecallEngine | None = None
_lock = threading.Lock()


def get_default_engine() -> RecallEngine:
    """The process-wide engine behind the module-level functions."""
    global _default
    with _lock:
        if _default is None:
            _default = RecallEngine()
        return _default


def reset_default_engine() -> None:
    """Close the default engine; the next call builds a new one from the environment."""
    global _default
    with _lock:
        if _default is not None:
            _default.close()
        _default = None


async def remember(data: Any, **kwargs: Any) -> RememberResult:
    """``RecallEngine.remember`` on the default engine."""
    return await get_default_engine().remember(data, **kwargs)


@recall_signature
async def recall(
    query_text: str,
    query_type: SearchType | str | None = None,
    **options: Unpack[RecallOptions],
) -> list[RecallResult]:
    """``RecallEngine.recall`` on the default engine (same arguments, same errors;
    an unknown keyword raises ``TypeError``)."""
    return await get_default_engine().recall(query_text, query_type, **options)


async def create_user(name: str, **kwargs: Any) -> User:
    """``RecallEngine.create_user`` on the default engine."""
    return await get_default_engine().create_user(name, **kwargs)


async def add_feedback(session_id: str, qa_id: str, **kwargs: Any) -> ResponseQAEntry:
    """``RecallEngine.add_feedback`` on the default engine."""
    return await get_default_engine().add_feedback(session_id, qa_id, **kwargs)


if TYPE_CHECKING:  # never run: mypy checks here that both engines are a Memory

    def _both_are_memory(embedded: RecallEngine, remote: RemoteRecallEngine) -> list[Memory]:
        return [embedded, remote]
