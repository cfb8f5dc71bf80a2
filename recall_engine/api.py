"""Module-level remember() / recall() over a default engine.

The default engine reads its configuration from the environment
(``RECALL_ENGINE_DATA_DIR``, else ``./.recall_engine``) on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recall_engine.core.models import RecallResult, RememberResult, ResponseQAEntry
from recall_engine.core.search_types import SearchType
from recall_engine.engine import RecallEngine
from recall_engine.identity import User
from recall_engine.pipeline.request import RecallParams

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
    query_text: str,
    query_type: SearchType | str | None = None,
    *,
    datasets: Sequence[str] | str | None = None,
    dataset_ids: Sequence[str] | None = None,
    top_k: int = 15,
    auto_route: bool = True,
    session_id: str | None = None,
    only_context: bool = False,
    system_prompt: str | None = None,
    system_prompt_path: str | Path | None = None,
    node_name: Sequence[str] | None = None,
    node_name_filter_operator: str = "OR",
    wide_search_top_k: int | None = None,
    triplet_distance_penalty: float | None = None,
    feedback_influence: float = 0.0,
    recency_bias: float = 0.0,
    metadata_filters: dict[str, Any] | None = None,
    verbose: bool = False,
    retriever_specific_config: dict[str, Any] | None = None,
    response_model: type | None = None,
    include_references: bool = False,
    user: Any = None,
    tenant_id: str | None = None,
    scope: Sequence[str] | None = None,
) -> list[RecallResult]:
    """``RecallEngine.recall`` on the default engine (same arguments, same errors;
    an unknown keyword raises ``TypeError``)."""
    return await get_default_engine().recall_with(RecallParams.of(locals()))


async def create_user(name: str, **kwargs: Any) -> User:
    """``RecallEngine.create_user`` on the default engine."""
    return await get_default_engine().create_user(name, **kwargs)


async def add_feedback(session_id: str, qa_id: str, **kwargs: Any) -> ResponseQAEntry:
    """``RecallEngine.add_feedback`` on the default engine."""
    return await get_default_engine().add_feedback(session_id, qa_id, **kwargs)
