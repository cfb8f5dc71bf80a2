"""Checks on names, texts, metadata and ids that callers pass to public entry points.

Each check raises ``InvalidInputError`` (a ``ValueError``) whose message names
the argument (``what``) and says what to pass instead. The recall path reuses
them for its own arguments.
"""

from __future__ import annotations

import codecs
import json
import math
import uuid
from collections.abc import Mapping, Sequence

import regex

from recall_engine.core.bounds import MAX_METADATA_CHARS, check_count, check_length, shown
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.inputs import MAX_METADATA_DEPTH

MAX_NAME_CHARS = 128
"""Characters of a dataset, tenant or user name."""
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
        "node_set",
    }
)

_ID_NAMESPACE = uuid.UUID("6f1c1d2e-8a53-4f0e-9a3e-2b7d6c1e5a90")


# Longest first: a UTF-32 LE mark begins with the UTF-16 LE one.
_BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def decode_text(data: bytes, *, what: str) -> str:
    """``data`` as text: UTF-8 (a byte-order mark dropped), or UTF-16 / UTF-32 when
    a byte-order mark says so (as Windows tools write them).

    Raises:
        InvalidInputError: bytes that are not text in that encoding, or a NUL;
            the message starts with ``what``.
    """
    encoding = next((name for mark, name in _BYTE_ORDER_MARKS if data.startswith(mark)), "UTF-8")
    try:
        text = data.decode(encoding.lower())
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{what} is not {encoding} text ({exc.reason} at byte {exc.start}); convert it "
            "to UTF-8 first."
        ) from exc
    return check_text(text.removeprefix("\ufeff"), what=what)


def check_name(value: object, *, what: str) -> str:
    """Validate a dataset or tenant name: 1-128 letters, digits, space and ``._@:+-``.

    Raises:
        InvalidInputError: empty, over ``MAX_NAME_CHARS``, or containing path separators
            or other characters.
    """
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string, got {type(value).__name__}.")
    check_length(
        value, what=what, limit=MAX_NAME_CHARS, hint="Pick a shorter name such as 'notes'."
    )
    name = value.strip()
    if not name:
        raise InvalidInputError(f"{what} must not be empty; pass a name such as 'notes'.")
    if name != value:
        raise InvalidInputError(
            f"{what} {value!r} starts or ends with whitespace; pass {name!r} instead."
        )
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


def check_metadata(metadata: object, *, what: str = "metadata") -> dict[str, object]:
    """Validate caller metadata: a mapping with string keys that are not reserved,
    whose values are JSON values nested at most ``MAX_METADATA_DEPTH`` levels deep
    (the metadata dict itself is level 1), at most ``MAX_METADATA_CHARS`` characters
    as JSON (it is stored with every chunk of the item).

    Raises:
        InvalidInputError: not a mapping, non-string keys, a reserved key, a value
            that is not JSON, nesting deeper than ``MAX_METADATA_DEPTH``, or more than
            ``MAX_METADATA_CHARS`` characters as JSON.
    """
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInputError(f"{what} must be a dict, got {type(metadata).__name__}.")
    for key, value in metadata.items():
        if not isinstance(key, str):
            raise InvalidInputError(f"{what} keys must be strings, got {key!r}.")
        if key in RESERVED_METADATA_KEYS:
            raise InvalidInputError(
                f"{what} key {key!r} is reserved for provenance; rename it "
                f"(reserved: {', '.join(sorted(RESERVED_METADATA_KEYS))})."
            )
        check_text(key, what=f"{what} key")
        _check_json_value(value, what=f"{what}[{key!r}]", depth=2)
    size = len(json.dumps(metadata, ensure_ascii=False, separators=(",", ":")))
    if size > MAX_METADATA_CHARS:
        raise InvalidInputError(
            f"{what} holds {size:,} characters as JSON; at most {MAX_METADATA_CHARS:,} are "
            "allowed. Keep metadata to short labels (ids, tags, dates) and remember long "
            "text as a document of its own."
        )
    return dict(metadata)


def _check_json_value(value: object, *, what: str, depth: int) -> None:
    """Metadata values are stored as JSON and returned as given: JSON types only.
    ``depth`` is the level ``value`` would open if it is a dict or list."""
    if depth > MAX_METADATA_DEPTH and isinstance(value, Mapping | list | tuple):
        raise InvalidInputError(
            f"{what} nests dicts and lists more than {MAX_METADATA_DEPTH} levels deep "
            "(counting the metadata dict); flatten it, e.g. join nested keys into one."
        )
    if value is None or isinstance(value, bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(f"{what} is {value}; JSON has no NaN or infinity.")
        return
    if isinstance(value, str):
        check_text(value, what=what)
        return
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if not isinstance(key, str):
                raise InvalidInputError(f"{what} keys must be strings, got {key!r}.")
            _check_json_value(inner, what=f"{what}[{key!r}]", depth=depth + 1)
        return
    if isinstance(value, list | tuple):
        for index, inner in enumerate(value):
            _check_json_value(inner, what=f"{what}[{index}]", depth=depth + 1)
        return
    raise InvalidInputError(
        f"{what} is a {type(value).__name__}; metadata values must be JSON values (str, int, "
        "float, bool, None, lists and dicts of them)."
    )


def check_text(value: object, *, what: str) -> str:
    """A string that can be stored as UTF-8 (no lone surrogates such as ``\\ud800``)
    and holds no NUL character (C-string stores and tokenizers cut text at one).

    Raises:
        InvalidInputError: not a string, not encodable as UTF-8, or holding a NUL.
    """
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string, got {type(value).__name__}.")
    if "\x00" in value:
        raise InvalidInputError(
            f"{what} holds a NUL character ('\\x00') at position {value.index(chr(0))}; "
            "remove it (it is binary data, not text)."
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{what} holds a character that is not valid Unicode text ({value[exc.start]!r} at "
            f"position {exc.start}, a lone surrogate); decode your input as UTF-8 with "
            "errors='replace' or remove it."
        ) from None
    return value


def check_query(value: object, *, what: str = "query_text") -> str:
    """A non-empty query string that is valid Unicode.

    Raises:
        InvalidInputError: not a string, empty or only whitespace, or invalid Unicode.
    """
    text = check_text(value, what=what)
    if not text.strip():
        raise InvalidInputError(f"{what} is empty or only whitespace; pass the question to ask.")
    return text


def check_names(
    value: object, *, what: str, max_items: int | None = None
) -> tuple[str, ...] | None:
    """None, one name, or a list/tuple of names (e.g. ``datasets=``), each checked.

    Args:
        max_items: the most names the list may hold (None: no bound).

    Raises:
        InvalidInputError: another type (an int, a dict), an empty list, more than
            ``max_items`` names, or a bad name.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return (check_name(value, what=what),)
    if not isinstance(value, Sequence) or isinstance(value, bytes | bytearray):
        raise InvalidInputError(
            f"{what} must be a name or a list of names, got {type(value).__name__}."
        )
    if not value:
        raise InvalidInputError(f"{what} is an empty list; pass at least one name, or None.")
    if max_items is not None:
        check_count(
            value, what=what, limit=max_items, hint="Pass fewer names, or None for all of them."
        )
    return tuple(check_name(v, what=f"{what}[{i}]") for i, v in enumerate(value))


def check_ids(
    value: object, *, what: str, max_items: int | None = None, max_chars: int | None = None
) -> tuple[str, ...]:
    """One id or a non-empty list/tuple of ids (``data_id=``, ``dataset_ids=``).

    Args:
        max_items: the most ids the list may hold (None: no bound).
        max_chars: the most characters one id may hold (None: no bound).

    Raises:
        InvalidInputError: another type, an empty list, an empty or non-string id,
            more than ``max_items`` ids, or an id over ``max_chars`` characters.
    """
    items: Sequence[object]
    if isinstance(value, str):
        items = (value,)
    elif isinstance(value, list | tuple):
        items = value
    else:
        raise InvalidInputError(
            f"{what} must be an id (str) or a list of ids, got {type(value).__name__}."
        )
    if not items:
        raise InvalidInputError(f"{what} is an empty list; pass at least one id.")
    if max_items is not None:
        check_count(items, what=what, limit=max_items, hint="Pass fewer ids.")
    out = []
    for i, item in enumerate(items):
        label = what if isinstance(value, str) else f"{what}[{i}]"
        if not isinstance(item, str) or not item.strip():
            raise InvalidInputError(f"{label} must be a non-empty string, got {shown(item)}.")
        if max_chars is not None:
            check_length(item, what=label, limit=max_chars, hint="Pass the id as it was given.")
        out.append(check_text(item, what=label))
    return tuple(out)


def check_int(value: object, *, what: str, minimum: int = 1, maximum: int | None = None) -> int:
    """An int (not a bool) in ``[minimum, maximum]`` (``top_k=``, ``wide_search_top_k=``).

    Raises:
        InvalidInputError: another type, or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"{what} must be an integer, got {type(value).__name__}.")
    if value < minimum or (maximum is not None and value > maximum):
        upper = f" and at most {maximum}" if maximum is not None else ""
        raise InvalidInputError(f"{what} must be at least {minimum}{upper}, got {value}.")
    return value


def dataset_id_for(tenant_id: str, dataset_name: str) -> str:
    """The stable id of a dataset: the same name in the same tenant is the same dataset."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"dataset:{tenant_id}:{dataset_name}"))


def stable_id(*parts: str) -> str:
    return str(uuid.uuid5(_ID_NAMESPACE, "\x1f".join(parts)))
