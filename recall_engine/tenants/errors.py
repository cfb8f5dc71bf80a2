"""Errors of the tenant API, in the engine's one error tree (``core.errors``).

InvalidInputError (ValueError)
├── TenantNotFoundError          the tenant was never created
├── TenantAlreadyExistsError     create_tenant() for a tenant that exists
├── SourceNotFoundError          no source with that id in the sub-tenant
├── InvalidFilterError           metadata_filters a search cannot apply
└── ApiKeyNotFoundError          no key with that key id in the key store
"""

from __future__ import annotations

from recall_engine.core.errors import InvalidInputError


class TenantNotFoundError(InvalidInputError):
    """The tenant id names no tenant; create it first."""


class TenantAlreadyExistsError(InvalidInputError):
    """A tenant with this id exists already."""


class SourceNotFoundError(InvalidInputError):
    """No source (document or memory) with this id in the sub-tenant."""


class InvalidFilterError(InvalidInputError):
    """A metadata filter key or value the search cannot apply."""


class ApiKeyNotFoundError(InvalidInputError):
    """No API key with this key id in the key store."""
