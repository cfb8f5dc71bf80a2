"""Request bodies that refuse a field they do not know, naming it and the fields
they take.

A field the server dropped would change what a request means without a word: a
misspelled filter (``metadata_filter``) reads the whole tenant, a misspelled scope
(``sub_tenant``) writes or deletes in the default sub-tenant. So an unknown field
is a validation error (v1: 422 ``VALIDATION_ERROR``; v2: 400, as every v2
validation error) that nothing ran before. A body model declares every field the
official SDKs send, the ones it does not use included; a route that takes query
parameters refuses others with ``known_query``.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable
from typing import Any, ClassVar

from fastapi import Request
from fastapi.dependencies.models import Dependant
from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

from recall_engine.server.errors import ApiError


def unknown_fields_message(
    unknown: Iterable[str], accepted: Collection[str], what: str, *, noun: str = "field"
) -> str:
    """What to say of ``unknown`` fields (or another ``noun``) sent to ``what``: each
    one (with the accepted one its spelling is closest to, if any), then the
    accepted ones."""
    parts = []
    for name in unknown:
        close = difflib.get_close_matches(name, list(accepted), n=1, cutoff=0.75)
        parts.append(f"{name!r}" + (f" (did you mean {close[0]}?)" if close else ""))
    verb = f"is not a {noun}" if len(parts) == 1 else f"are not {noun}s"
    return (
        f"{', '.join(parts)} {verb} of {what}; nothing was done. "
        f"Its {noun}s are: {', '.join(sorted(accepted)) or 'none'}."
    )


def unknown_fields(data: Iterable[object], accepted: Collection[str]) -> list[str]:
    """The names in ``data`` (a body's keys) that are not among ``accepted``, in order."""
    return [str(k) for k in data if k not in accepted]


class KnownFields(BaseModel):
    """A request body that refuses fields it does not declare (see the module);
    ``what`` names the request in the message."""

    model_config = ConfigDict(extra="forbid")
    what: ClassVar[str] = "this request"

    @model_validator(mode="before")
    @classmethod
    def _known(cls, data: Any) -> Any:
        if isinstance(data, dict):
            accepted = set(cls.model_fields)
            unknown = unknown_fields(data, accepted)
            if unknown:
                raise PydanticCustomError(
                    "extra_forbidden",
                    "{message}",
                    {"message": unknown_fields_message(unknown, accepted, cls.what)},
                )
        return data


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
