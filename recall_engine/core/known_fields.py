"""Request models that refuse a field they do not know, naming it and the fields
they take.

A field a request model dropped would change what a request means without a
word: a misspelled filter (``metadata_filter``) reads the whole tenant, a
misspelled scope (``sub_tenant``) writes or deletes in the default sub-tenant. So
a ``KnownFields`` model answers an unknown field with a validation error
(``extra_forbidden``) whose message names it, the declared field its spelling is
closest to, and every declared field. The HTTP server's bodies (v1 and v2) and
HydraDB's v1 request shapes (``core.hydra``) are such models; the server's query
parameters use the same message (``server.request_fields``).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError


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
    """A request model that refuses fields it does not declare (see the module);
    ``what`` names the request in the message.

    Raises (on validation):
        pydantic.ValidationError: ``extra_forbidden``, naming the unknown fields.
    """

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
