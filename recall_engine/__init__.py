"""recall-engine: a graph-first recall engine for AI agents.

from recall_engine import RecallEngine, SearchType
engine = RecallEngine(data_dir="./.recall_engine")
await engine.remember("Einstein was born in Ulm.", dataset_name="physics")
results = await engine.recall("Where was Einstein born?", query_type=SearchType.CHUNKS)

The error tree is imported at once (it imports nothing else of ours); the other
names load on first use, so ``import recall_engine`` (and importing a lower layer
such as ``recall_engine.core``) pulls in no engine, store or model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from recall_engine import errors
from recall_engine.errors import *  # noqa: F403  (the error tree: users catch these first of all)

__version__ = "0.1.0"

# public name -> the module that defines it
_EXPORTS = {
    "Conversation": "recall_engine.core.models",
    "Document": "recall_engine.core.models",
    "Message": "recall_engine.core.models",
    "RememberResult": "recall_engine.core.models",
    "ResponseGraphEntry": "recall_engine.core.models",
    "ResponseQAEntry": "recall_engine.core.models",
    "SourceRef": "recall_engine.core.models",
    "SearchType": "recall_engine.core.search_types",
    "RecallConfig": "recall_engine.config",
    "RecallEngine": "recall_engine.engine",
    "Memory": "recall_engine.memory",
    "RecallOptions": "recall_engine.core.recall_options",
    "RemoteRecallEngine": "recall_engine.remote",
    "RemoteUnavailableError": "recall_engine.remote",
    "build_context_string": "recall_engine.tenants.context_string",
    "get_default_engine": "recall_engine.api",
    "recall": "recall_engine.api",
    "remember": "recall_engine.api",
    "register_retriever": "retrievers",
    "unregister_retriever": "retrievers",
    # the tenant API's errors (the core error tree is imported above)
    "InvalidFilterError": "recall_engine.tenants.errors",
    "SourceNotFoundError": "recall_engine.tenants.errors",
    "TenantAlreadyExistsError": "recall_engine.tenants.errors",
    "TenantNotFoundError": "recall_engine.tenants.errors",
}
# submodules reachable as attributes after ``import recall_engine`` (``recall_engine.errors.X``)
_SUBMODULES = frozenset({"config"})

__all__ = [
    "Conversation",
    "Document",
    "InvalidFilterError",
    "Memory",
    "Message",
    "RecallConfig",
    "RecallEngine",
    "RecallOptions",
    "RememberResult",
    "RemoteRecallEngine",
    "RemoteUnavailableError",
    "ResponseGraphEntry",
    "ResponseQAEntry",
    "SearchType",
    "SourceNotFoundError",
    "SourceRef",
    "TenantAlreadyExistsError",
    "TenantNotFoundError",
    "build_context_string",
    "get_default_engine",
    "recall",
    "register_retriever",
    "remember",
    "unregister_retriever",
]
__all__ += errors.__all__

if TYPE_CHECKING:
    from recall_engine.api import get_default_engine, recall, remember
    from recall_engine.config import RecallConfig
    from recall_engine.core.models import (
        Conversation,
        Document,
        Message,
        RememberResult,
        ResponseGraphEntry,
        ResponseQAEntry,
        SourceRef,
    )
    from recall_engine.core.recall_options import RecallOptions
    from recall_engine.core.search_types import SearchType
    from recall_engine.engine import RecallEngine
    from recall_engine.memory import Memory
    from recall_engine.remote import RemoteRecallEngine, RemoteUnavailableError
    from recall_engine.tenants.context_string import build_context_string
    from recall_engine.tenants.errors import (
        InvalidFilterError,
        SourceNotFoundError,
        TenantAlreadyExistsError,
        TenantNotFoundError,
    )
    from retrievers import register_retriever, unregister_retriever


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"recall_engine.{name}")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'recall_engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS, *_SUBMODULES])
