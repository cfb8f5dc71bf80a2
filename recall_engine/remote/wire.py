"""Arguments of the remote client as JSON: models by their fields, users by their ids."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import cast

from pydantic import BaseModel

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.models import Conversation, Document
from recall_engine.identity.models import User


def to_wire(value: object) -> object:
    """An argument as JSON: models by their fields, a ``User`` by its id.

    Args:
        value: an argument of an engine method.

    Returns:
        Its JSON form (lists and dicts converted item by item).

    Raises:
        InvalidInputError: a ``Path``, which cannot be sent.
    """
    if isinstance(value, User):
        return value.id
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, date):  # a datetime too: as_of travels as ISO 8601
        return value.isoformat()
    if isinstance(value, Path):
        raise InvalidInputError(
            "A path cannot be sent to a remote engine: read the file and pass its text "
            "(or a Document) instead."
        )
    if isinstance(value, list | tuple):
        return [to_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: to_wire(v) for k, v in value.items()}
    if hasattr(value, "value") and type(value).__module__.startswith("recall_engine"):
        return value.value  # an enum such as SearchType
    return value


def data_to_wire(value: object) -> object:
    """The ``data`` of ``remember`` as JSON: texts stay texts, never paths.

    Args:
        value: a text, a ``Document``, a ``Conversation``, or a list of them.

    Returns:
        Its JSON form.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, Document | Conversation):
        return to_wire(value)
    if isinstance(value, list | tuple):
        return [data_to_wire(v) for v in value]
    return to_wire(value)


def request_body(request: object, fields: dict[str, object]) -> dict[str, object]:
    """A tenant API request as JSON: the request's fields, then the keyword ones.

    Args:
        request: a request model, a dict of its fields, or None.
        fields: fields given as keywords; they win over ``request``'s.

    Returns:
        The JSON body.
    """
    return {**cast("dict[str, object]", to_wire(request or {})), **fields}
