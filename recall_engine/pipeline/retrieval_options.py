"""What a retriever is asked in a recall() call: its typed config from the request,
and how many hits (more than ``top_k`` where a later stage re-ranks them)."""

from __future__ import annotations

from pydantic import ValidationError

from recall_engine.core.errors import InvalidInputError
from recall_engine.pipeline.narrowing import retrieval_depth
from recall_engine.pipeline.request import _PARAM_DEFAULTS, MAX_TOP_K, RecallRequest
from retrievers import Retriever
from retrievers.base import RetrieverConfig

FEEDBACK_WINDOW = 20
"""The best hits of an item result that feedback may reorder: the retriever is asked
for at least this many, so a well-rated hit down to rank 20 can move into a cut at 10.
A fixed window, not a multiple of ``top_k``: the head is then the same for every
``top_k`` (a window that grows with ``top_k`` moves the min-max scaling of every score)."""

STABLE_HEAD = 10
"""The head of an answering type's hits that feedback may reorder. Its context was laid
out from what it retrieved, so it is not asked for more than ``top_k``; reordering only
the first 10 keeps them the same for every ``top_k`` of at least 10."""


def retrieval_k(request: RecallRequest, retriever: type[Retriever], *, recency: bool = True) -> int:
    """Hits to ask for: ``top_k``, and for item results re-ranked by feedback at
    least ``FEEDBACK_WINDOW``, so a well-rated hit below the cut can move into it
    (with recency, the relevant pool: ``narrowing.retrieval_depth``)."""
    k = request.top_k
    if request.feedback_influence > 0 and not retriever.answers:
        k = min(MAX_TOP_K, max(k, FEEDBACK_WINDOW))
    if recency:
        k = max(k, retrieval_depth(k, request.recency_bias, answers=retriever.answers))
    return k


def feedback_window(request: RecallRequest, retriever: type[Retriever]) -> int:
    """How many of the best hits feedback reorders (the rest keep their order);
    ``retriever`` is the type asked (FEELING_LUCKY's, not the one it ran), whose
    ``retrieval_k`` the hits were asked with."""
    if retriever.answers:
        return min(request.top_k, STABLE_HEAD)
    return FEEDBACK_WINDOW


def retriever_config(retriever: type[Retriever], request: RecallRequest) -> RetrieverConfig:
    """The retriever's typed config from retriever_specific_config and the recall()
    parameters it declares.

    Raises:
        InvalidInputError: an option the retriever does not have, or a bad value.
    """
    fields = retriever.config_model.model_fields
    values = dict(request.retriever_specific_config)
    for name, value in request.retriever_params.items():
        if name not in fields:
            raise InvalidInputError(
                f"{name} does not apply to {retriever.search_type.value}; leave it at "
                f"{_PARAM_DEFAULTS[name]!r} or pick a graph search type that uses it."
            )
        values[name] = value
    try:
        return retriever.config_model(**values)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc'])) or 'config'}={error.get('input')!r}: {error['msg']}"
            for error in exc.errors(include_url=False)
        )
        raise InvalidInputError(
            f"retriever_specific_config does not fit {retriever.search_type.value}: "
            f"{problems}. Fix the value or leave it out; the options are "
            f"{', '.join(sorted(fields))}."
        ) from exc
