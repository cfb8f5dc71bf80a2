"""recall()'s options, declared once: ``RecallOptions``.

Each option is one entry of the ``RecallOptions`` TypedDict: its type (what a
caller may pass), a ``Field`` with its default, bounds and one line of
description, and the check (``core.recall_checks``) that turns a bad value into an
``InvalidInputError`` naming it. Everything else is derived from that one declaration:

- ``RecallParams``, the pydantic model that validates one call (``RecallParams.check``);
- the Python signatures: ``RecallEngine.recall``, ``recall_engine.recall`` and
  ``RemoteRecallEngine.recall`` take ``**options: Unpack[RecallOptions]`` (mypy
  checks every caller's keywords and types) and ``@recall_signature`` gives them the
  explicit keyword-only signature (``inspect``, ``help()``, IDEs) built from it;
- the HTTP body of ``POST /api/v1/recall`` (``server.app.RecallBody``) and the MCP
  ``recall`` tool's parameters, checked against it by
  ``tests/engine/test_recall_option_surfaces.py``.

To add an option: add one entry to ``RecallOptions`` (type, ``Field(default=...,
description=...)``, a ``BeforeValidator`` with its check when the value needs one),
then use it in the pipeline (``pipeline.request.RecallRequest.build`` hands it on).
Checks that need more than the value itself (a prompt file on disk, the session a
scope reads, the response model against the retriever's config) stay in
``RecallRequest.build``.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import (
    Annotated,
    Any,
    TypedDict,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from recall_engine.core import recall_checks as c
from recall_engine.core.bounds import (
    MAX_ID_CHARS,
    MAX_NAMES,
    MAX_OPTION_KEYS,
    MAX_SUBJECT_CHARS,
    MAX_SYSTEM_PROMPT_CHARS,
    shown,
)
from recall_engine.core.errors import InvalidInputError, RecallEngineError
from recall_engine.core.recall_checks import (
    MAX_SESSION_ID,
    MAX_TOP_K,
    MAX_WIDE_SEARCH_TOP_K,
    SOURCES,
    check_session_id,
)
from recall_engine.core.search_types import SearchType
from recall_engine.core.validation import check_ids, check_names, check_query

__all__ = [
    "MAX_SESSION_ID",
    "MAX_TOP_K",
    "MAX_WIDE_SEARCH_TOP_K",
    "SOURCES",
    "RecallOptions",
    "RecallParams",
    "check_session_id",
    "option_fields",
    "recall_signature",
]


class RecallOptions(TypedDict, total=False):
    """recall()'s keyword options (after ``query_text`` and ``query_type``)."""

    datasets: Annotated[
        Sequence[str] | str | None,
        Field(
            default=None,
            description="Dataset names to search; default: every readable one "
            f"(at most {MAX_NAMES:,} names).",
        ),
        BeforeValidator(lambda v: check_names(v, what="datasets", max_items=MAX_NAMES)),
    ]
    dataset_ids: Annotated[
        Sequence[str] | None,
        Field(
            default=None,
            description="Dataset ids to search (shared datasets included; at most "
            f"{MAX_NAMES:,} ids of {MAX_ID_CHARS} characters).",
        ),
        BeforeValidator(
            c.optional(
                lambda v: check_ids(
                    v, what="dataset_ids", max_items=MAX_NAMES, max_chars=MAX_ID_CHARS
                )
            )
        ),
    ]
    top_k: Annotated[
        int,
        Field(default=15, ge=1, le=MAX_TOP_K, description="How many results to return at most."),
        BeforeValidator(c.int_in("top_k", 1, MAX_TOP_K)),
    ]
    auto_route: Annotated[
        bool,
        Field(default=True, description="Let the router pick the search type when none is given."),
        BeforeValidator(c.flag("auto_route")),
    ]
    session_id: Annotated[
        str | None,
        Field(
            default=None,
            description="The conversation this call belongs to (its answers are cached); "
            f"at most {MAX_SESSION_ID} characters.",
        ),
        BeforeValidator(c.check_session_id),
    ]
    only_context: Annotated[
        bool,
        Field(default=False, description="Only the retrieved context: no LLM answer."),
        BeforeValidator(c.flag("only_context")),
    ]
    system_prompt: Annotated[
        str | None,
        Field(
            default=None,
            description="The answer's system prompt, inline "
            f"(at most {MAX_SYSTEM_PROMPT_CHARS:,} characters).",
        ),
        BeforeValidator(c.optional(c.system_prompt)),
    ]
    system_prompt_path: Annotated[
        str | Path | None,
        Field(default=None, description="A prompt file (or one of the prompts package)."),
        BeforeValidator(c.optional(c.prompt_path)),
    ]
    node_name: Annotated[
        Sequence[str] | None,
        Field(
            default=None,
            description="Graph searches: only these node sets / names (at most "
            f"{MAX_NAMES:,}, each at most {MAX_SUBJECT_CHARS:,} characters).",
        ),
        BeforeValidator(c.optional(c.node_names)),
    ]
    node_name_filter_operator: Annotated[
        str,
        Field(default="OR", description="'OR': any of node_name; 'AND': all of them."),
        BeforeValidator(c.filter_operator),
    ]
    wide_search_top_k: Annotated[
        int | None,
        Field(
            default=None,
            ge=1,
            le=MAX_WIDE_SEARCH_TOP_K,
            description="Graph searches: candidates gathered before ranking.",
        ),
        BeforeValidator(c.optional(c.int_in("wide_search_top_k", 1, MAX_WIDE_SEARCH_TOP_K))),
    ]
    triplet_distance_penalty: Annotated[
        float | None,
        Field(default=None, ge=0, description="Triplet search: cost of a missing match."),
        BeforeValidator(c.optional(c.number_in("triplet_distance_penalty", ">= 0", high=None))),
    ]
    feedback_influence: Annotated[
        float,
        Field(default=0.0, ge=0, le=1, description="Weight of past feedback in ranking (0: off)."),
        BeforeValidator(c.number_in("feedback_influence", "from 0 (off) to 1")),
    ]
    recency_bias: Annotated[
        float,
        Field(
            default=0.0,
            ge=0,
            le=1,
            description="Weight of recency among the relevant results: 0 ranks by relevance "
            "alone, 1 puts the newest relevant memory first.",
        ),
        BeforeValidator(c.number_in("recency_bias", "from 0 (off) to 1 (newest relevant first)")),
    ]
    as_of: Annotated[
        datetime | str | None,
        Field(
            default=None,
            description="Answer as of this time: the facts valid then and what was stated at "
            "or before it (a datetime or an ISO 8601 date or time).",
        ),
        BeforeValidator(c.optional(c.moment("as_of"))),
    ]
    metadata_filters: Annotated[
        dict[str, object] | None,
        Field(
            default=None,
            description="Exact equalities on the metadata given to remember(), all required "
            "({'team': 'billing'}), or a query with operators ({'level': {'$gte': 3}}, "
            "$in, $or, ...): every search returns only what rests on matching items.",
        ),
        BeforeValidator(c.optional(c.mapping("metadata_filters", "metadata key: value"))),
    ]
    verbose: Annotated[
        bool,
        Field(default=False, description="Add the retriever's raw output to each result."),
        BeforeValidator(c.flag("verbose")),
    ]
    retriever_specific_config: Annotated[
        dict[str, object] | None,
        Field(
            default=None,
            description="Options of the chosen retriever's own config "
            f"(at most {MAX_OPTION_KEYS} keys).",
        ),
        BeforeValidator(
            c.optional(
                c.mapping(
                    "retriever_specific_config",
                    "the retriever's options",
                    max_keys=MAX_OPTION_KEYS,
                )
            )
        ),
    ]
    response_model: Annotated[
        type | None,
        Field(default=None, description="A pydantic model the answer is parsed into."),
    ]
    include_references: Annotated[
        bool,
        Field(default=False, description="Cite the sources of an answer in its text."),
        BeforeValidator(c.flag("include_references")),
    ]
    user: Annotated[
        Any,
        Field(default=None, description="Search as this user (a User or a user id)."),
        BeforeValidator(c.user),
    ]
    tenant_id: Annotated[
        str | None,
        Field(default=None, description="The tenant to search; default: the configured one."),
    ]
    scope: Annotated[
        Sequence[str] | str | None,
        Field(
            default=None,
            description='Sources to search, in order: "graph", "session", "trace" '
            "(session and trace need session_id); default: the graph.",
        ),
        BeforeValidator(c.optional(c.scope)),
    ]


def option_fields() -> dict[str, tuple[object, FieldInfo]]:
    """Each option's name -> (its type with its checks, its ``Field``), in declared order."""
    fields: dict[str, tuple[object, FieldInfo]] = {}
    for name, hint in get_type_hints(RecallOptions, include_extras=True).items():
        if get_origin(hint) is not Annotated:
            raise TypeError(f"RecallOptions.{name} must be Annotated with a Field(default=...).")
        base, *extras = get_args(hint)
        (info,) = [e for e in extras if isinstance(e, FieldInfo)]
        checks = [e for e in extras if not isinstance(e, FieldInfo)]
        fields[name] = (Annotated[(base, *checks)] if checks else base, info)
    return fields


def json_option_fields(
    excluded: frozenset[str] = frozenset(),
) -> dict[str, tuple[object, FieldInfo]]:
    """The options as a JSON body or a tool schema carries them (HTTP, MCP).

    Returns:
        name -> (its type without the engine's checks, which run on the call; its
        ``Field``, bounds included), but those in ``excluded``. A time is an ISO 8601
        string: typed ``datetime``, a number would be read as seconds since 1970,
        which recall() refuses.
    """
    fields: dict[str, tuple[object, FieldInfo]] = {}
    for name, (hint, info) in option_fields().items():
        if name not in excluded:
            base = get_args(hint)[0] if get_origin(hint) is Annotated else hint
            fields[name] = (_json_type(base), info)
    return fields


def _json_type(hint: object) -> object:
    """``hint`` with ``datetime`` (alone or in a union) read as ``str``."""
    if hint is datetime:
        return str
    if get_origin(hint) in (Union, types.UnionType) and datetime in get_args(hint):
        kept = tuple(dict.fromkeys(str if a is datetime else a for a in get_args(hint)))
        return Union[kept]  # noqa: UP007 - built from a tuple of types
    return hint


def _params_model() -> type[BaseModel]:
    return create_model(  # type: ignore[call-overload, no-any-return]
        "RecallParams",
        __base__=_ParamsBase,
        query_text=(
            Annotated[str, BeforeValidator(lambda v: check_query(v, what="query_text"))],
            Field(description="The question to ask memory."),
        ),
        query_type=(
            Annotated[SearchType | str | None, BeforeValidator(c.optional(c.query_type))],
            Field(default=None, description="A search type (CHUNKS, ...); None: routed."),
        ),
        **option_fields(),
    )


class _ParamsBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    @classmethod
    def check(
        cls,
        query_text: object,
        query_type: object = None,
        options: Mapping[str, object] | None = None,
    ) -> Any:
        """One call's arguments, validated (the first bad one raises).

        Raises:
            TypeError: an option that recall() does not have.
            InvalidInputError: a value recall() cannot use; the message names it.
        """
        values = {"query_text": query_text, "query_type": query_type, **(options or {})}
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise _error_of(exc) from None


def _error_of(exc: ValidationError) -> Exception:
    """The first error of ``exc`` as the error tree says it.

    A check's own error, ``TypeError`` for an unknown option, else
    ``InvalidInputError`` naming the option.
    """
    first = exc.errors(include_url=False)[0]
    name = ".".join(str(p) for p in first["loc"])
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, RecallEngineError):
        return cause
    if first["type"] == "extra_forbidden":
        return TypeError(f"recall() got an unexpected keyword argument {name!r}")
    return InvalidInputError(f"{name}: {first['msg']} (got {shown(first.get('input'))}).")


RecallParams: Any = _params_model()
"""One validated recall() call: ``query_text``, ``query_type`` and every option."""

F = TypeVar("F", bound=Callable[..., object])


def recall_signature(function: F) -> F:
    """Give ``function`` the explicit signature of recall()'s options.

    ``function`` takes ``**options: Unpack[RecallOptions]``; its new signature
    (``inspect``, ``help()``, IDEs) is its own parameters, then every option as a
    keyword-only parameter with its default and type.

    Args:
        function: the recall function to annotate (changed in place).

    Returns:
        ``function`` itself, with ``__signature__`` set.
    """
    own = inspect.signature(function)
    hints = get_type_hints(RecallOptions)
    keep = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
    options = [
        inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, default=info.default, annotation=hints[name]
        )
        for name, (_, info) in option_fields().items()
    ]
    function.__signature__ = own.replace(parameters=[*keep, *options])  # type: ignore[attr-defined]
    return function
