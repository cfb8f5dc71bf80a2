"""The rules of dataset access, as plain functions over one user's access map.

``access`` maps each dataset id a user can read to ``"owner"``, ``"write"`` or
``"read"`` (``IdentityRegistry.access``); ``known`` maps every dataset id of
the tenant to its name. Names resolve among the user's own datasets only;
shared datasets are named by id.
"""

from __future__ import annotations

from collections.abc import Mapping

from recall_engine.core.errors import DatasetNotFoundError, PermissionDeniedError
from recall_engine.identity.models import Access, User

GRANT_HINT = "ask its owner to share it: engine.grant(dataset_id, to=user, permission={!r})"


def own_dataset(
    tenant_id: str, known: Mapping[str, str], access: Mapping[str, Access], name: str
) -> str | None:
    """The id of the user's own dataset called ``name``; None when there is none."""
    for dataset_id, level in access.items():
        if level == "owner" and known.get(dataset_id) == name:
            return dataset_id
    return None


def not_found(
    tenant_id: str, known: Mapping[str, str], access: Mapping[str, Access], names: list[str]
) -> DatasetNotFoundError:
    """The error for names that are not among the user's own datasets, pointing at
    the shared datasets of that name the user can read."""
    own = sorted(known[i] for i, level in access.items() if level == "owner")
    shared = {known[i]: i for i, level in access.items() if level != "owner" and known[i] in names}
    message = (
        f"Unknown dataset(s) {names} among this user's own datasets in tenant "
        f"{tenant_id!r}; known datasets: {', '.join(own) or '(none)'}."
    )
    if shared:
        ids = ", ".join(f"{n!r}: {i!r}" for n, i in shared.items())
        message += f" Datasets shared with this user are named by id: pass dataset_ids ({ids})."
    return DatasetNotFoundError(message)


def check_readable(
    tenant_id: str, known: Mapping[str, str], access: Mapping[str, Access], ids: list[str]
) -> None:
    """Raises DatasetNotFoundError / PermissionDeniedError for ids the user cannot read."""
    missing = [i for i in ids if i not in known]
    if missing:
        raise DatasetNotFoundError(
            f"Unknown dataset id(s) {missing} in tenant {tenant_id!r}; list the readable "
            "ones with engine.datasets(user=...)."
        )
    denied = [i for i in ids if i not in access]
    if denied:
        raise PermissionDeniedError(
            f"This user may not read dataset(s) {denied}; " + GRANT_HINT.format("read") + "."
        )


def check_writable(
    tenant_id: str, known: Mapping[str, str], access: Mapping[str, Access], dataset_id: str
) -> None:
    """Raises DatasetNotFoundError / PermissionDeniedError unless the user may write."""
    if dataset_id not in known:
        raise DatasetNotFoundError(
            f"Unknown dataset id {dataset_id!r} in tenant {tenant_id!r}; list the datasets "
            "this user can use with engine.datasets(user=...)."
        )
    if access.get(dataset_id) not in ("owner", "write"):
        raise PermissionDeniedError(
            f"This user may not write to dataset {known[dataset_id]!r} ({dataset_id}); "
            "nothing was stored or deleted. " + GRANT_HINT.format("write").capitalize() + "."
        )


def check_owner(
    tenant_id: str, known: Mapping[str, str], owner_id: str, by: User, dataset_id: str
) -> None:
    """Raises DatasetNotFoundError / PermissionDeniedError unless ``by`` owns the dataset."""
    if dataset_id not in known:
        raise DatasetNotFoundError(f"Unknown dataset id {dataset_id!r} in tenant {tenant_id!r}.")
    if owner_id != by.id:
        raise PermissionDeniedError(
            f"Only the owner of dataset {known[dataset_id]!r} ({dataset_id}) may share it or "
            f"take it back, and {by.name!r} is not; pass by=<its owner>."
        )
