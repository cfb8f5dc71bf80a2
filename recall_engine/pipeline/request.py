"""The validate stage: a recall() call checked and normalised into a ``RecallRequest``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.search_types import SearchType, parse_search_type
from recall_engine.core.validation import check_ids, check_names, check_query, check_text
from recall_engine.pipeline.narrowing import check_metadata_filters, check_recency_bias
from recall_engine.prompts import PROMPTS_PACKAGE
from recall_engine.read.filters import ChunkFilter

MAX_TOP_K = 1000
FILTER_OPERATORS = ("OR", "AND")

# recall() parameters that are handed to the retriever's own config when it has a
# field of that name; a non-default value for a retriever without one is an error.
RETRIEVER_PARAMS = (
    "node_name",
    "node_name_filter_operator",
    "wide_search_top_k",
    "triplet_distance_penalty",
)
_PARAM_DEFAULTS: dict[str, Any] = {
    "node_name": None,
    "node_name_filter_operator": "OR",
    "wide_search_top_k": None,
    "triplet_distance_penalty": None,
}

# Parameters whose stage does not exist yet: a non-default value is refused,
# never accepted and ignored. Each entry goes when its stage lands.
NOT_SUPPORTED_YET: dict[str, Any] = {}
MAX_SESSION_ID = 200
SOURCES = ("graph", "session", "trace")
"""What ``scope`` can name: the permanent memory, the session's cached answers and
its recorded tool calls (``RecallEngine.trace``)."""
MAX_WIDE_SEARCH_TOP_K = 10_000


class RecallParams(BaseModel):
    """The recall() parameters, declared once: names, defaults and limits.

    ``RecallEngine.recall``, the module-level ``recall`` and the HTTP body take
    these; ``RecallRequest.build`` checks a ``RecallParams`` (its own messages, so
    the model is built unvalidated with ``RecallParams.of``) and normalises it.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    query_text: str
    query_type: SearchType | str | None = None
    datasets: Sequence[str] | str | None = None
    dataset_ids: Sequence[str] | None = None
    top_k: int = Field(default=15, ge=1, le=MAX_TOP_K)
    auto_route: bool = True
    session_id: str | None = Field(default=None, max_length=MAX_SESSION_ID)
    only_context: bool = False
    system_prompt: str | None = None
    system_prompt_path: str | Path | None = None
    node_name: Sequence[str] | None = None
    node_name_filter_operator: str = "OR"
    wide_search_top_k: int | None = Field(default=None, ge=1, le=MAX_WIDE_SEARCH_TOP_K)
    triplet_distance_penalty: float | None = Field(default=None, ge=0)
    feedback_influence: float = Field(default=0.0, ge=0, le=1)
    recency_bias: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Weight of recency among the relevant results: 0 ranks by relevance "
        "alone, 1 puts the newest relevant memory first.",
    )
    metadata_filters: dict[str, Any] | None = Field(
        default=None,
        description="Exact equalities on the metadata given to remember(), all required "
        "({'team': 'billing'}): every search returns only what rests on matching items.",
    )
    verbose: bool = False
    retriever_specific_config: dict[str, Any] | None = None
    response_model: type | None = None
    include_references: bool = False
    user: Any = None
    tenant_id: str | None = None
    scope: Sequence[str] | str | None = None

    @classmethod
    def of(cls, values: dict[str, Any]) -> RecallParams:
        """The parameters of one call, unchecked (``RecallRequest.build`` checks
        them): ``values`` are the caller's locals; other names are ignored."""
        return cls.model_construct(**{k: values[k] for k in cls.model_fields if k in values})


@dataclass(frozen=True)
class RecallRequest:
    """A validated recall() call."""

    query_text: str
    query_type: SearchType | None
    datasets: tuple[str, ...] | None
    dataset_ids: tuple[str, ...] | None
    top_k: int
    auto_route: bool
    session_id: str | None
    only_context: bool
    system_prompt: str | None
    system_prompt_path: str | Path | None
    verbose: bool
    retriever_specific_config: dict[str, Any]
    response_model: type[BaseModel] | None
    include_references: bool
    retriever_params: dict[str, Any]
    """The RETRIEVER_PARAMS the caller set to something other than the default."""
    feedback_influence: float
    user: Any
    tenant_id: str | None
    scope: tuple[str, ...] | None = None
    """The sources to search (``SOURCES``); None is the default path."""
    recency_bias: float = 0.0
    where: ChunkFilter | None = None
    """``metadata_filters`` as the filter every read of the call honours; None: none."""

    @classmethod
    def build(cls, params: RecallParams) -> RecallRequest:
        """Check every parameter and normalise it.

        Raises:
            InvalidInputError: a value that recall() cannot use, with what to pass instead.
        """
        for name, default in NOT_SUPPORTED_YET.items():
            value = getattr(params, name)
            if value != default:
                raise InvalidInputError(
                    f"{name}={value!r} is not supported yet by this version of recall(); "
                    f"leave {name} at its default ({default!r})."
                )
        query = check_query(params.query_text, what="query_text")
        top_k = params.top_k
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInputError(
                f"top_k must be an integer from 1 to {MAX_TOP_K}, got {top_k!r}."
            )
        query_type = params.query_type
        if query_type is not None:
            try:
                query_type = parse_search_type(query_type)
            except ValueError as exc:
                raise InvalidInputError(str(exc)) from exc
        specific = params.retriever_specific_config or {}
        if not isinstance(specific, dict):
            raise InvalidInputError(
                "retriever_specific_config must be a dict of the retriever's options."
            )
        from recall_engine.completion import resolve_response_model

        response_model = resolve_response_model(params.response_model, specific)
        retriever_params = _retriever_params(params)
        session_id = check_session_id(params.session_id)
        return cls(
            query_text=query,
            query_type=query_type,
            datasets=check_names(params.datasets, what="datasets"),
            dataset_ids=_ids(params.dataset_ids),
            top_k=top_k,
            auto_route=_flag(params.auto_route, "auto_route"),
            session_id=session_id,
            only_context=_flag(params.only_context, "only_context"),
            system_prompt=_system_prompt(params.system_prompt),
            system_prompt_path=_prompt_path(params.system_prompt_path),
            verbose=_flag(params.verbose, "verbose"),
            retriever_specific_config={k: v for k, v in specific.items() if k != "response_model"},
            response_model=response_model,
            include_references=_flag(params.include_references, "include_references"),
            retriever_params=retriever_params,
            feedback_influence=_influence(params.feedback_influence),
            user=_user(params.user),
            tenant_id=params.tenant_id,
            scope=check_scope(params.scope, session_id),
            recency_bias=check_recency_bias(params.recency_bias),
            where=check_metadata_filters(params.metadata_filters),
        )


def _ids(value: Any) -> tuple[str, ...] | None:
    return None if value is None else check_ids(value, what="dataset_ids")


def _system_prompt(value: Any) -> str | None:
    return None if value is None else check_text(value, what="system_prompt")


def _prompt_path(value: Any) -> str | Path | None:
    """A prompt file that exists (in the working directory or, for a relative
    path, in the prompts package), checked before anything runs."""
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike):
        raise InvalidInputError(
            "system_prompt_path must be the path of a prompt file (str or Path), got "
            f"{type(value).__name__}; pass inline text as system_prompt= instead."
        )
    raw = check_text(os.fspath(value), what="system_prompt_path")
    path = Path(raw).expanduser()
    if path.is_dir():
        raise InvalidInputError(
            f"system_prompt_path {raw!r} is a directory; pass the path of a prompt file."
        )
    if path.exists() and not path.is_file():
        raise InvalidInputError(f"system_prompt_path {raw!r} is not a regular file.")
    checked = value if isinstance(value, str) else Path(raw)
    if path.is_file():
        return checked
    packaged = resources.files(PROMPTS_PACKAGE).joinpath(raw)
    if raw and not path.is_absolute() and packaged.is_file():
        return checked
    raise InvalidInputError(
        f"system_prompt_path {raw!r} does not exist (looked in the working directory and the "
        f"{PROMPTS_PACKAGE!r} package); pass an existing file, or the text as system_prompt=."
    )


def check_session_id(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_SESSION_ID:
        raise InvalidInputError(
            f"session_id must be a non-empty string of at most {MAX_SESSION_ID} characters, "
            f"got {value!r}."
        )
    return check_text(value, what="session_id").strip()


def check_scope(value: Any, session_id: str | None) -> tuple[str, ...] | None:
    """The sources a recall searches, in the order given (None: the default path).

    Raises:
        InvalidInputError: not a list of known sources, or a session source
            without a ``session_id``.
    """
    if value is None:
        return None
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
    scope = tuple(dict.fromkeys(value))
    if session_id is None and any(s != "graph" for s in scope):
        raise InvalidInputError(
            f"scope {list(scope)} reads a session: pass session_id= as well (the session's "
            "cached answers and traces are searched), or use scope=['graph']."
        )
    return scope


def _influence(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInputError(
            f"feedback_influence must be a number from 0 (off) to 1, got {value!r}."
        )
    return float(value)


def _user(value: Any) -> Any:
    """None, a ``User``-like object with an ``id``, or a user id (str or UUID)."""
    if value is None or isinstance(value, str | UUID) or hasattr(value, "id"):
        return value
    raise InvalidInputError(
        f"user must be a User (engine.create_user), a user id or None, got {type(value).__name__}."
    )


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(f"{what} must be True or False, got {value!r}.")
    return value


def _names(value: Sequence[str] | str | None, what: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        # Cognee's node_name is a list; a bare string would be read letter by letter
        # by some callers and as one name by others: say which is meant.
        raise InvalidInputError(
            f"{what} must be a list of names, got the string {value!r}; pass [{value!r}]."
        )
    if not isinstance(value, list | tuple):
        raise InvalidInputError(f"{what} must be a list of strings, got {type(value).__name__}.")
    values = list(value)
    if not values or not all(isinstance(v, str) and v.strip() for v in values):
        raise InvalidInputError(f"{what} must be a non-empty list of non-empty strings.")
    return tuple(check_text(v, what=f"{what}[{i}]").strip() for i, v in enumerate(values))


def _retriever_params(params: RecallParams) -> dict[str, Any]:
    out: dict[str, Any] = {}
    names = params.node_name
    if names is not None:
        out["node_name"] = _names(names, "node_name")
    operator = params.node_name_filter_operator
    if not isinstance(operator, str) or operator.upper() not in FILTER_OPERATORS:
        raise InvalidInputError(
            f"node_name_filter_operator must be 'OR' or 'AND', got {operator!r}."
        )
    if operator.upper() != "OR":
        out["node_name_filter_operator"] = operator.upper()
    wide = params.wide_search_top_k
    if wide is not None:
        if (
            isinstance(wide, bool)
            or not isinstance(wide, int)
            or not 1 <= wide <= MAX_WIDE_SEARCH_TOP_K
        ):
            raise InvalidInputError(
                f"wide_search_top_k must be an integer from 1 to {MAX_WIDE_SEARCH_TOP_K}, "
                f"got {wide!r}."
            )
        out["wide_search_top_k"] = wide
    penalty = params.triplet_distance_penalty
    if penalty is not None:
        if isinstance(penalty, bool) or not isinstance(penalty, int | float) or penalty < 0:
            raise InvalidInputError(
                f"triplet_distance_penalty must be a number >= 0, got {penalty!r}."
            )
        out["triplet_distance_penalty"] = float(penalty)
    return out
