"""The HTTP server over the engine: ``create_app`` and ``ServerSettings`` (loaded
on first use, so the CLI does not import FastAPI unless it serves)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recall_engine.server.app import ServerSettings, create_app

__all__ = ["ServerSettings", "create_app"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from recall_engine.server import app

        return getattr(app, name)
    raise AttributeError(f"module 'recall_engine.server' has no attribute {name!r}")
