"""Shared state beyond the graph and vectors: users, grants, tenants, key digests,
sessions, feedback, the ingest ledger and per-tenant writer leases.

Every kind is one class of plain SQL on the ``SqlDatabase`` seam
(``state.sql``), which has two drivers: SQLite files in the data dir (the
embedded default) and a Postgres schema (``RECALL_ENGINE_STATE_URL``), which
replicas on several machines share. ``state.store.open_state`` picks one from
the configuration; ``state.ledger`` (pending -> committed per data item) and
``state.lease`` (one writer per tenant) are written on it. Redis
(``RECALL_ENGINE_REDIS_URL``, ``state.redis_store``) holds what replicas must
share quickly: rate-limit buckets (``state.redis_buckets``) and query vectors
(``state.redis_cache``).

This package root imports nothing, so that the drivers' modules can be imported
from anywhere without a cycle.
"""
