"""The checks of recall()'s options (``core.recall_options`` declares which option
uses which): each takes the caller's value, returns it in its normal form, and
raises ``InvalidInputError`` naming the option and what to pass instead."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from uuid import UUID

from recall_engine.core.bounds import (
    MAX_ID_CHARS,
    MAX_NAMES,
    MAX_SUBJECT_CHARS,
    MAX_SYSTEM_PROMPT_CHARS,
    check_count,
    check_length,
    shown,
)
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.search_types import parse_search_type
from recall_engine.core.validation import check_text

MAX_TOP_K = 1000
MAX_WIDE_SEARCH_TOP_K = 10_000
MAX_SESSION_ID = MAX_ID_CHARS
FILTER_OPERATORS = ("OR", "AND")
SOURCES = ("graph", "session", "trace")
"""What ``scope`` can name: the permanent memory, the session's cached answers and
its recorded tool calls (``RecallEngine.trace``)."""


def int_in(what: str, low: int, high: int) -> Callable[[object], object]:
    def check(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InvalidInputError(
                f"{what} must be an integer from {low} to {high}, got {value!r}."
            )
        return value

    return check


def number_in(what: str, meaning: str, *, high: float | None = 1.0) -> Callable[[object], object]:
    def check(value: object) -> object:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not value >= 0  # NaN is refused too
            or (high is not None and value > high)
        ):
            raise InvalidInputError(f"{what} must be a number {meaning}, got {value!r}.")
        return float(value)

    return check


def flag(what: str) -> Callable[[object], object]:
    def check(value: object) -> object:
        if not isinstance(value, bool):
            raise InvalidInputError(f"{what} must be True or False, got {value!r}.")
        return value

    return check


def moment(what: str) -> Callable[[object], object]:
    """A time: a ``datetime`` (an aware one converted to naive UTC, as memory stores
    times), a ``date`` (its midnight) or an ISO 8601 string of either."""

    def check(value: object) -> object:
        when: datetime | None = None
        if isinstance(value, datetime):
            when = value
        elif isinstance(value, date):
            when = datetime(value.year, value.month, value.day)
        elif isinstance(value, str):
            try:
                when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            except ValueError:
                when = None
        if when is None:
            raise InvalidInputError(
                f"{what} must be a datetime or an ISO 8601 date or time such as "
                f"'2024-03-01' or '2024-03-01T10:00:00', got {value!r}."
            )
        return when.astimezone(UTC).replace(tzinfo=None) if when.tzinfo else when

    return check


def optional(check: Callable[[object], object]) -> Callable[[object], object]:
    return lambda value: None if value is None else check(value)


def query_type(value: object) -> object:
    try:
        return parse_search_type(value)
    except ValueError as exc:
        raise InvalidInputError(str(exc)) from exc


def check_session_id(value: object) -> str | None:
    """A session id, stripped (None stays None).

    Raises:
        InvalidInputError: not a non-empty string of at most ``MAX_SESSION_ID`` characters.
    """
    if value is None:
        return None
    if isinstance(value, str):
        check_length(
            value,
            what="session_id",
            limit=MAX_SESSION_ID,
            hint="Pass a short id for the conversation, such as a UUID.",
        )
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(
            f"session_id must be a non-empty string of at most {MAX_SESSION_ID} characters, "
            f"got {shown(value)}."
        )
    return check_text(value, what="session_id").strip()


def system_prompt(value: object) -> str:
    """An inline system prompt: text of at most ``MAX_SYSTEM_PROMPT_CHARS`` characters.

    Raises:
        InvalidInputError: not a string, invalid Unicode, or too long.
    """
    text = check_text(value, what="system_prompt")
    return check_length(
        text,
        what="system_prompt",
        limit=MAX_SYSTEM_PROMPT_CHARS,
        hint="Shorten the prompt: it frames the answer; the memory to answer from is "
        "retrieved, not written into it.",
    )


def prompt_path(value: object) -> object:
    if not isinstance(value, str | os.PathLike):
        raise InvalidInputError(
            "system_prompt_path must be the path of a prompt file (str or Path), got "
            f"{type(value).__name__}; pass inline text as system_prompt= instead."
        )
    check_text(os.fspath(value), what="system_prompt_path")
    return value


def node_names(value: object) -> tuple[str, ...]:
    """A list of node names: at most ``MAX_NAMES``, each at most ``MAX_SUBJECT_CHARS``
    characters, stripped.

    Raises:
        InvalidInputError: a bare string, not a list of non-empty strings, or over a bound.
    """
    if isinstance(value, str):
        # Cognee's node_name is a list; a bare string would be read letter by letter
        # by some callers and as one name by others: say which is meant.
        raise InvalidInputError(
            f"node_name must be a list of names, got the string {value!r}; pass [{value!r}]."
        )
    if not isinstance(value, list | tuple):
        raise InvalidInputError(f"node_name must be a list of strings, got {type(value).__name__}.")
    if not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise InvalidInputError("node_name must be a non-empty list of non-empty strings.")
    check_count(value, what="node_name", limit=MAX_NAMES, hint="Pass fewer names.")
    hint = "A node name is an entity's or node set's name; pass it as remembered."
    return tuple(
        check_length(
            check_text(v, what=f"node_name[{i}]"),
            what=f"node_name[{i}]",
            limit=MAX_SUBJECT_CHARS,
            hint=hint,
        ).strip()
        for i, v in enumerate(value)
    )


def filter_operator(value: object) -> str:
    if not isinstance(value, str) or value.upper() not in FILTER_OPERATORS:
        raise InvalidInputError(f"node_name_filter_operator must be 'OR' or 'AND', got {value!r}.")
    return value.upper()


def mapping(what: str, hint: str, *, max_keys: int | None = None) -> Callable[[object], object]:
    """A check that a value is a mapping (of at most ``max_keys`` keys), copied to a dict."""

    def check(value: object) -> object:
        if not isinstance(value, Mapping):
            raise InvalidInputError(f"{what} must be a dict of {hint}, got {type(value).__name__}.")
        if max_keys is not None:
            check_count(value, what=what, limit=max_keys, hint=f"Pass only {hint} you set.")
        return dict(value)

    return check


def user(value: object) -> object:
    """None, a ``User``-like object with an ``id``, or a user id (str or UUID) of at
    most ``MAX_ID_CHARS`` characters."""
    if isinstance(value, str):
        return check_length(
            value, what="user", limit=MAX_ID_CHARS, hint="Pass the id of engine.create_user()."
        )
    if value is None or isinstance(value, UUID) or hasattr(value, "id"):
        return value
    raise InvalidInputError(
        f"user must be a User (engine.create_user), a user id or None, got {type(value).__name__}."
    )


def scope(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not value:
        raise InvalidInputError(
            f"scope must be a non-empty list of sources from {list(SOURCES)}, got {value!r}."
        )
    unknown = [v for v in value if v not in SOURCES]
    if unknown:
        raise InvalidInputError(
            f"scope has unknown source(s) {unknown!r}; pick from {list(SOURCES)}."
        )
    return tuple(dict.fromkeys(value))
