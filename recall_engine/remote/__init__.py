"""Remote mode: the engine's Python API over ``recall-engine serve``."""

from recall_engine.remote.client import RemoteRecallEngine
from recall_engine.remote.errors import RemoteAuthenticationError, RemoteUnavailableError

__all__ = ["RemoteAuthenticationError", "RemoteRecallEngine", "RemoteUnavailableError"]
