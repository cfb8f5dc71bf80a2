"""The scope stage: which datasets of a tenant a recall (or forget) may read."""

from __future__ import annotations

from collections.abc import Sequence

from recall_engine.core.errors import DatasetNotFoundError


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
