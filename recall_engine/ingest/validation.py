"""Checks on names and metadata that callers pass to public entry points."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import regex

from recall_engine.core.errors import InvalidInputError

_NAME = regex.compile(r"^[\p{L}\p{N}][\p{L}\p{N} ._@:+-]{0,127}$")

# Keys recall() puts into result metadata; caller metadata may not shadow them.
RESERVED_METADATA_KEYS = frozenset(
    {
        "data_id",
        "chunk_id",
        "chunk_index",
        "document_name",
        "dataset_id",
        "dataset_name",
        "message_ids",
        "speaker",
        "timestamp",
        "sources",
        "route",
        "answer_mode",
        "score",
    }
)

_ID_NAMESPACE = uuid.UUID("6f1c1d2e-8a53-4f0e-9a3e-2b7d6c1e5a90")


def check_name(value: object, *, what: str) -> str:
    """Validate a dataset or tenant name: 1-128 letters, digits, space and ``._@:+-``.

    Raises:
        InvalidInputError: empty, too long, or containing path separators or other characters.
    """
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string, got {type(value).__name__}.")
    name = value.strip()
    if not name:
        raise InvalidInputError(f"{what} must not be empty.")
    if "/" in name or "\\" in name or ".." in name:
        raise InvalidInputError(
            f"{what} {value!r} contains a path separator or '..'; use a plain name such as "
            "'project-notes'."
        )
    if not _NAME.match(name):
        raise InvalidInputError(
            f"{what} {value!r} is not allowed: use 1-128 letters, digits, spaces or ._@:+- "
            "and start with a letter or digit."
        )
    return name


def check_metadata(metadata: object, *, what: str = "metadata") -> dict[str, Any]:
    """Validate caller metadata: a mapping with string keys that are not reserved.

    Raises:
        InvalidInputError: not a mapping, non-string keys, or a reserved key.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInputError(f"{what} must be a dict, got {type(metadata).__name__}.")
    for key in metadata:
        if not isinstance(key, str):
            raise InvalidInputError(f"{what} keys must be strings, got {key!r}.")
        if key in RESERVED_METADATA_KEYS:
            raise InvalidInputError(
                f"{what} key {key!r} is reserved for provenance; rename it "
                f"(reserved: {', '.join(sorted(RESERVED_METADATA_KEYS))})."
            )
    return dict(metadata)


def dataset_id_for(tenant_id: str, dataset_name: str) -> str:
    """The stable id of a dataset: the same name in the same tenant is the same dataset."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"dataset:{tenant_id}:{dataset_name}"))


def stable_id(*parts: str) -> str:
    return str(uuid.uuid5(_ID_NAMESPACE, "\x1f".join(parts)))
