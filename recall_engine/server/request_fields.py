"""Request bodies and query parameters that refuse a field they do not know,
naming it and the fields they take.

A field the server dropped would change what a request means without a word: a
misspelled filter (``metadata_filter``) reads the whole tenant, a misspelled scope
(``sub_tenant``) writes or deletes in the default sub-tenant. So an unknown field
is a validation error (v1: 422 ``VALIDATION_ERROR``; v2: 400, as every v2
validation error) that nothing ran before. A body model is a ``KnownFields``
(``core.known_fields``, re-exported here) that declares every field the official
SDKs send, the ones it does not use included; a route that takes query parameters
refuses others with ``known_query``.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.dependencies.models import Dependant

from recall_engine.core.known_fields import KnownFields, unknown_fields, unknown_fields_message
from recall_engine.server.errors import ApiError

__all__ = ["KnownFields", "known_query", "unknown_fields", "unknown_fields_message"]


def known_query(request: Request) -> None:
    """A route dependency: every query parameter of the request is one the route
    declares (the SDKs send no other).

    Raises:
        ApiError: 422 ``VALIDATION_ERROR`` naming the unknown parameters.
    """
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if not isinstance(dependant, Dependant):
        return
    accepted = _query_names(dependant)
    unknown = unknown_fields(dict.fromkeys(request.query_params.keys()), accepted)
    if unknown:
        what = f"{request.method} {request.url.path}"
        message = unknown_fields_message(unknown, accepted, what, noun="query parameter")
        raise ApiError(422, "VALIDATION_ERROR", message)


def _query_names(dependant: Dependant) -> set[str]:
    names = {p.alias for p in dependant.query_params}
    for inner in dependant.dependencies:
        names |= _query_names(inner)
    return names
