"""Keys the engine itself writes into chunk metadata, shared by the layers that
write them (ingest, the tenant API) and those that honour them (storage, read)."""

from __future__ import annotations

EXPIRES_KEY = "expires_at"
"""The epoch second after which a chunk is never returned."""
