"""recall-engine: a graph-first recall engine for AI agents.

from recall_engine import RecallEngine, SearchType
engine = RecallEngine(data_dir="./.recall_engine")
await engine.remember("Einstein was born in Ulm.", dataset_name="physics")
results = await engine.recall("Where was Einstein born?", query_type=SearchType.CHUNKS)
"""

from recall_engine.api import get_default_engine, recall, remember
from recall_engine.config import RecallConfig
from recall_engine.engine import RecallEngine
from recall_engine.models import (
    Conversation,
    Document,
    Message,
    RememberResult,
    ResponseGraphEntry,
    ResponseQAEntry,
    SourceRef,
)
from recall_engine.search_types import SearchType

__all__ = [
    "Conversation",
    "Document",
    "Message",
    "RecallConfig",
    "RecallEngine",
    "RememberResult",
    "ResponseGraphEntry",
    "ResponseQAEntry",
    "SearchType",
    "SourceRef",
    "get_default_engine",
    "recall",
    "remember",
]

__version__ = "0.1.0"
