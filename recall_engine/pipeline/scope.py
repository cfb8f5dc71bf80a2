"""The scope stage: which datasets of a tenant a recall (or forget) may read."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal, cast

from recall_engine.core.errors import DatasetNotFoundError
from recall_engine.core.hits import ChunkHit
from recall_engine.identity.models import Access
from recall_engine.identity.policy import check_readable, not_found, own_dataset
from recall_engine.read.api import ReadAPI
from retrievers.graph_config import GraphSearchConfig
from retrievers.graph_steps import NodeFilter


def resolve_dataset_ids(
    tenant_id: str,
    known: dict[str, str],
    names: Sequence[str] | None,
    ids: Sequence[str] | None,
) -> tuple[str, ...]:
    """The explicit dataset ids to search; every dataset of the tenant when neither
    ``names`` nor ``ids`` is given. ``known`` maps dataset id -> name. Ids win over
    names, as in Cognee.

    Raises:
        DatasetNotFoundError: an id or name that the tenant does not have.
    """
    if ids is not None:
        missing = [i for i in ids if i not in known]
        if missing:
            raise DatasetNotFoundError(f"Unknown dataset id(s) {missing} in tenant {tenant_id!r}.")
        return tuple(dict.fromkeys(ids))
    if names is None:
        return tuple(known)
    by_name = {name: dataset_id for dataset_id, name in known.items()}
    missing = [n for n in names if n not in by_name]
    if missing:
        available = ", ".join(sorted(by_name)) or "(none)"
        raise DatasetNotFoundError(
            f"Unknown dataset(s) {missing} in tenant {tenant_id!r}; known datasets: {available}."
        )
    return tuple(dict.fromkeys(by_name[n] for n in names))


def resolve_readable(
    tenant_id: str,
    known: Mapping[str, str],
    access: Mapping[str, Access],
    names: Sequence[str] | None,
    ids: Sequence[str] | None,
) -> tuple[str, ...]:
    """The dataset ids a recall searches, for a user whose readable datasets are
    ``access`` (id -> owner/write/read). ``ids`` win over ``names``; names resolve
    among the user's own datasets; neither means every readable dataset.

    Raises:
        DatasetNotFoundError: an unknown id, or a name that is not one of the user's own.
        PermissionDeniedError: an id the user may not read.
    """
    if ids is not None:
        check_readable(tenant_id, known, access, list(ids))
        return tuple(dict.fromkeys(ids))
    if names is None:
        return tuple(i for i in known if i in access)
    found = {n: own_dataset(tenant_id, known, access, n) for n in names}
    missing = [n for n, i in found.items() if i is None]
    if missing:
        raise not_found(tenant_id, known, access, missing)
    return tuple(dict.fromkeys(i for i in found.values() if i is not None))


async def node_scope(
    params: Mapping[str, object], read: ReadAPI
) -> Callable[[ChunkHit], bool] | None:
    """Which chunks a call with ``node_name`` may read (``retrievers.graph_steps.NodeFilter``:
    those of the named node sets or mentioning an entity of those names); None without
    ``node_name``. ``params``: the request's ``retriever_params``."""
    names = cast("Sequence[str] | None", params.get("node_name"))
    if not names:
        return None
    operator = cast("Literal['OR', 'AND']", params.get("node_name_filter_operator", "OR"))
    options = GraphSearchConfig(node_name=tuple(names), node_name_filter_operator=operator)
    node_filter = await NodeFilter.build(read, options)
    return node_filter.keeps if node_filter is not None else None
