"""Module-level remember() / recall() over a default engine.

The default engine reads its configuration from the environment
(``RECALL_ENGINE_DATA_DIR``, else ``./.recall_engine``) on first use.
"""

from __future__ import annotations

import threading
from typing import Any

from recall_engine.core.models import RememberResult, ResponseGraphEntry, ResponseQAEntry
from recall_engine.engine import RecallEngine

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


async def recall(
    query_text: str, query_type: Any = None, **kwargs: Any
) -> list[ResponseGraphEntry | ResponseQAEntry]:
    """``RecallEngine.recall`` on the default engine (same arguments, same errors)."""
    return await get_default_engine().recall(query_text, query_type, **kwargs)
