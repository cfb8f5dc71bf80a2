"""Keys the engine itself writes into chunk metadata, shared by the layers that
write them (ingest, the tenant API) and those that honour or map them (storage,
read, the result normaliser)."""

from __future__ import annotations

EXPIRES_KEY = "expires_at"
"""The epoch second after which a chunk is never returned."""

SOURCE_KEY = "hydra_source"
"""The tenant API's source record of a chunk (id, title, type, times, relations)."""
TENANT_KEY = "tenant_metadata"
"""A tenant-level metadata object (fields the tenant's schema declares)."""
ADDITIONAL_KEY = "additional_metadata"
"""Per-source metadata given by the caller."""
TURNS_KEY = "message_metadata"
"""In a ``Conversation``'s metadata: message id -> that message's own metadata. The
map stays off the stored records; each chunk of a message carries the conversation's
other metadata updated with its message's entry (the tenant API keeps each
conversation-turn source's fields so)."""
