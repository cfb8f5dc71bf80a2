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
    """The process-wide engine behind the module-level functions.

    Built on first use from the environment (``RecallConfig.load``), then shared by
    every thread of the process until ``reset_default_engine``.

    Returns:
        The default ``RecallEngine``.

    Raises:
        InvalidInputError: an environment variable with a bad value.
    """
    global _default
    with _lock:
        if _default is None:
            _default = RecallEngine()
        return _default


def reset_default_engine() -> None:
    """Close the default engine; the next call builds a new one from the environment.

    Does nothing when no default engine was built.
    """
    global _default
    with _lock:
        if _default is not None:
            _default.close()
        _default = None


async def remember(data: Any, **kwargs: Any) -> RememberResult:
    """Store data in memory on the default engine (``RecallEngine.remember``).

    Args:
        data: a text, a file or directory path, a ``Document``, a ``Conversation``,
            or a list of them.
        **kwargs: ``RecallEngine.remember``'s options (``dataset_name``, ...).

    Returns:
        What was stored: the data ids and the dataset.

    Raises:
        InvalidInputError: bad data, dataset name or metadata (nothing is stored).
        InputTooLargeError: an item over ``config.max_item_chars`` (nothing is stored).
        TypeError: an unknown keyword.
    """
    return await get_default_engine().remember(data, **kwargs)


@recall_signature
async def recall(
    query_text: str,
    query_type: SearchType | str | None = None,
    **options: Unpack[RecallOptions],
) -> list[RecallResult]:
    """Ask memory a question on the default engine (``RecallEngine.recall``).

    Args:
        query_text: the question.
        query_type: the search type; None lets the router pick one.
        **options: recall()'s options, declared with their defaults and meaning in
            ``RecallOptions``.

    Returns:
        The ranked, source-tagged results, best first.

    Raises:
        InvalidInputError: an empty query or an invalid option.
        TypeError: an unknown keyword.
        InputTooLargeError: a query over ``config.max_query_chars``.
        RecallPreconditionError: nothing has been remembered in the tenant.
        DatasetNotFoundError: a dataset in ``datasets`` does not exist.
    """
    return await get_default_engine().recall(query_text, query_type, **options)


async def create_user(name: str, **kwargs: Any) -> User:
    """Add a user to a tenant of the default engine (``RecallEngine.create_user``).

    Args:
        name: the user's name, unique in the tenant.
        **kwargs: ``tenant_id`` and ``exist_ok``, as ``RecallEngine.create_user``.

    Returns:
        The new (or, with ``exist_ok``, the existing) user.

    Raises:
        InvalidInputError: a bad name, or one that is taken (unless ``exist_ok``).
    """
    return await get_default_engine().create_user(name, **kwargs)


async def add_feedback(session_id: str, qa_id: str, **kwargs: Any) -> ResponseQAEntry:
    """Rate a session answer on the default engine (``RecallEngine.add_feedback``).

    Args:
        session_id: the session the answer was given in.
        qa_id: the answer's id (``metadata["qa_id"]`` of the answer).
        **kwargs: ``score`` (1 to 5, required), ``text``, ``user``, ``tenant_id``.

    Returns:
        The session entry with its feedback.

    Raises:
        InvalidInputError: a score outside 1..5, or no such entry in the session.
    """
    return await get_default_engine().add_feedback(session_id, qa_id, **kwargs)


if TYPE_CHECKING:  # never run: mypy checks here that both engines are a Memory

    def _both_are_memory(embedded: RecallEngine, remote: RemoteRecallEngine) -> list[Memory]:
        return [embedded, remote]
