"""The validate stage: a recall() call checked and normalised into a ``RecallRequest``.

``RecallParams`` (``core.recall_options``, where the options are declared) checks
each value; ``RecallRequest.build`` adds the checks that need more than one value or
the world outside the call (a prompt file, the session a scope reads, the response
model against the retriever's config) and the pipeline's own forms of the values.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from recall_engine.core.errors import InvalidInputError
from recall_engine.core.recall_options import (
    MAX_SESSION_ID,
    MAX_TOP_K,
    MAX_WIDE_SEARCH_TOP_K,
    SOURCES,
    RecallParams,
    check_session_id,
    option_fields,
)
from recall_engine.core.search_types import SearchTypeName
from recall_engine.pipeline.narrowing import check_metadata_filters
from recall_engine.prompts import PROMPTS_PACKAGE
from recall_engine.read.filters import ChunkFilter
from retrievers.base import RetrieverClass

__all__ = [
    "MAX_SESSION_ID",
    "MAX_TOP_K",
    "MAX_WIDE_SEARCH_TOP_K",
    "RETRIEVER_PARAMS",
    "SOURCES",
    "RecallParams",
    "RecallRequest",
    "check_scope",
    "check_session_id",
]

# recall() parameters that are handed to the retriever's own config when it has a
# field of that name; a non-default value for a retriever without one is an error.
RETRIEVER_PARAMS = (
    "node_name",
    "node_name_filter_operator",
    "wide_search_top_k",
    "triplet_distance_penalty",
)
_PARAM_DEFAULTS: dict[str, object] = {
    name: info.default for name, (_, info) in option_fields().items() if name in RETRIEVER_PARAMS
}

# Parameters whose stage does not exist yet: a non-default value is refused,
# never accepted and ignored. Each entry goes when its stage lands.
NOT_SUPPORTED_YET: dict[str, object] = {}


@dataclass(frozen=True)
class RecallRequest:
    """A validated recall() call."""

    query_text: str
    query_type: SearchTypeName | None
    datasets: tuple[str, ...] | None
    dataset_ids: tuple[str, ...] | None
    top_k: int
    auto_route: bool
    session_id: str | None
    only_context: bool
    system_prompt: str | None
    system_prompt_path: str | Path | None
    verbose: bool
    retriever_specific_config: dict[str, object]
    response_model: type[BaseModel] | None
    include_references: bool
    retriever_params: dict[str, object]
    """The RETRIEVER_PARAMS the caller set to something other than the default."""
    feedback_influence: float
    user: object
    tenant_id: str | None
    scope: tuple[str, ...] | None = None
    """The sources to search (``SOURCES``); None is the default path."""
    recency_bias: float = 0.0
    as_of: datetime | None = None
    """Answer as of this time (naive UTC); None: now."""
    where: ChunkFilter | None = None
    """``metadata_filters`` as the filter every read of the call honours; None: none."""
    retriever: RetrieverClass | None = None
    """A retriever class to run in place of the registry's ``query_type`` (an entry
    into the pipeline with its own search, as the tenant API's lanes); None: look
    ``query_type`` up."""
    results: bool = True
    """Build what recall() returns (the answer stage's entries); False: the caller
    reads the ranked hits (``RecallState.output``) and nothing is built from them (the
    tenant API's searches)."""

    @classmethod
    def build(cls, params: Any) -> RecallRequest:
        """The pipeline's form of a validated call (a ``RecallParams``).

        Raises:
            InvalidInputError: values that do not go together, or a prompt file or
                response model that cannot be used; with what to pass instead.
        """
        for name, default in NOT_SUPPORTED_YET.items():
            value = getattr(params, name)
            if value != default:
                raise InvalidInputError(
                    f"{name}={value!r} is not supported yet by this version of recall(); "
                    f"leave {name} at its default ({default!r})."
                )
        specific = params.retriever_specific_config or {}
        from recall_engine.llm.completion import resolve_response_model

        response_model = resolve_response_model(params.response_model, specific)
        return cls(
            query_text=params.query_text,
            query_type=params.query_type,
            datasets=params.datasets,
            dataset_ids=params.dataset_ids,
            top_k=params.top_k,
            auto_route=params.auto_route,
            session_id=params.session_id,
            only_context=params.only_context,
            system_prompt=params.system_prompt,
            system_prompt_path=_prompt_path(params.system_prompt_path),
            verbose=params.verbose,
            retriever_specific_config={k: v for k, v in specific.items() if k != "response_model"},
            response_model=response_model,
            include_references=params.include_references,
            retriever_params=_retriever_params(params),
            feedback_influence=params.feedback_influence,
            user=params.user,
            tenant_id=params.tenant_id,
            scope=check_scope(params.scope, params.session_id),
            recency_bias=params.recency_bias,
            as_of=params.as_of,
            where=check_metadata_filters(params.metadata_filters),
        )


def _prompt_path(value: str | Path | None) -> str | Path | None:
    """A prompt file that exists (in the working directory or, for a relative
    path, in the prompts package), checked before anything runs."""
    if value is None:
        return None
    raw = os.fspath(value)
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


def check_scope(scope: Sequence[str] | None, session_id: str | None) -> tuple[str, ...] | None:
    """A checked scope (``RecallParams.scope``) that reads a session only with one.

    Raises:
        InvalidInputError: a session source without a ``session_id``.
    """
    if scope is None:
        return None
    if session_id is None and any(s != "graph" for s in scope):
        raise InvalidInputError(
            f"scope {list(scope)} reads a session: pass session_id= as well (the session's "
            "cached answers and traces are searched), or use scope=['graph']."
        )
    return tuple(scope)


def _retriever_params(params: object) -> dict[str, object]:
    """The RETRIEVER_PARAMS the caller set to something other than their default."""
    values = {name: getattr(params, name) for name in RETRIEVER_PARAMS}
    return {k: v for k, v in values.items() if v != _PARAM_DEFAULTS[k]}
