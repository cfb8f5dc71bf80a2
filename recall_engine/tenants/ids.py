"""HydraDB ids as engine names: tenant stores and sub-tenant datasets, injectively.

How a source is stored on the engine's chunks (every chunk carries
``hydra_source``, ``tenant_metadata``, ``additional_metadata`` and, for memories
with a time to live, ``expires_at``: ``core.metadata``) and how chunks come back
out as HydraDB shapes (``core.results``) live in core, shared with ``recall()``.
"""

from __future__ import annotations

import hashlib
from typing import Literal

import regex

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.validation import check_name

KNOWLEDGE: Literal["kb"] = "kb"
MEMORIES: Literal["mem"] = "mem"

_UNSAFE = regex.compile(r"[^\p{L}\p{N} .@:+-]|\.\.")
_CONTROL = regex.compile(r"[\p{Cc}\p{Cs}]")
_HASHED = regex.compile(r"\.[0-9a-f]{32}$")
MAX_ID_LENGTH = 100


def _checked(raw: object, what: str) -> str:
    if not isinstance(raw, str) or not raw.strip() or len(raw) > MAX_ID_LENGTH:
        raise InvalidInputError(
            f"{what} must be 1-{MAX_ID_LENGTH} printable characters, got {str(raw)[:40]!r}."
        )
    if _CONTROL.search(raw):
        raise InvalidInputError(
            f"{what} {raw[:40]!r} contains a control character or a lone surrogate; "
            "pass printable characters only."
        )
    return raw


def _readable(raw: str) -> str:
    return _UNSAFE.sub("-", raw.strip()).strip(" .-@:+")[:60] or "id"


def safe_name(raw: str, *, what: str) -> str:
    """The engine name (tenant store or dataset suffix) of a HydraDB id, injectively.

    An id that is a valid engine name (letters, digits, space and ``._@:+-``,
    starting with a letter or digit, no ``..``) is its own name, unless it ends
    in ``.`` and 32 hex digits: that shape is reserved for every other id, which
    becomes a readable form plus the first 32 hex digits (128 bits) of its
    SHA-256. So two distinct ids never share a name.

    Raises:
        InvalidInputError: empty, longer than 100 characters, or control characters.
    """
    raw = _checked(raw, what)
    try:
        name = check_name(raw, what=what)
    except InvalidInputError:
        name = ""
    if name and not _HASHED.search(name):
        return name
    return f"{_readable(raw)}.{hashlib.sha256(raw.encode('utf-8')).hexdigest()[:32]}"


def legacy_name(raw: str) -> str:
    """The name a store or dataset got before ids mapped injectively (a valid
    name itself, else a readable form plus 10 hex digits of its SHA-256): what
    a registry row written before then still points at."""
    try:
        return check_name(raw, what="id")
    except InvalidInputError:
        pass
    readable = _UNSAFE.sub("-", raw.strip()).strip(" .-@:+")[:80] or "id"
    return f"{readable}.{hashlib.sha256(raw.encode('utf-8')).hexdigest()[:10]}"


def dataset_name(collection: str, sub_name: str) -> str:
    """The engine dataset of a collection in a sub-tenant, from the sub-tenant's
    engine name (``TenantRegistry.sub_tenant_name``)."""
    return f"{collection}:{sub_name}"
