"""Users and permissions applied to a tenant store: what the engine's remember(),
forget(), grant(), revoke() and datasets() do. Blocking: call it off the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from recall_engine.core.bounds import MAX_ID_CHARS, check_length, shown
from recall_engine.core.errors import InvalidInputError, PermissionDeniedError
from recall_engine.core.validation import dataset_id_for, stable_id
from recall_engine.identity.models import DatasetAccess, Permission, User
from recall_engine.identity.policy import check_owner, check_writable, not_found, own_dataset
from recall_engine.identity.registry import IdentityRegistry, default_user_id
from recall_engine.storage.tenant import TenantStore

PERMISSIONS = ("read", "write")


@dataclass(frozen=True)
class WriteTarget:
    """Where a remember() goes, and for whom."""

    user: User
    dataset_id: str
    dataset_name: str


def own_dataset_id(tenant_id: str, user: User, name: str) -> str:
    """The id of ``user``'s dataset called ``name`` (the default user's ids are the
    tenant-wide ones, so stores from before users existed keep theirs)."""
    if user.is_default:
        return dataset_id_for(tenant_id, name)
    return stable_id("dataset", tenant_id, user.id, name)


def check_permission(value: object) -> Permission:
    if value not in PERMISSIONS:
        raise InvalidInputError(f"permission must be 'read' or 'write', got {shown(value)}.")
    return "read" if value == "read" else "write"


class AccessControl:
    """The registry's rules over one tenant store at a time."""

    def __init__(self, registry: IdentityRegistry) -> None:
        self.registry = registry

    def write_target(
        self, store: TenantStore, user_ref: object, name: str, dataset_id: str | None
    ) -> WriteTarget:
        """The dataset a remember() writes to: ``dataset_id`` (any dataset the user may
        write to) or the user's own dataset ``name`` (created on first use, and
        recorded as theirs).

        Raises:
            UserNotFoundError: an unknown user.
            DatasetNotFoundError: an unknown ``dataset_id``.
            PermissionDeniedError: no write permission on ``dataset_id``.
        """
        tenant = store.tenant_id
        user = self.registry.resolve_user(tenant, user_ref)
        if dataset_id is not None:
            known = store.datasets()
            access = self.registry.access(tenant, user, known)
            check_writable(tenant, known, access, dataset_id)
            return WriteTarget(user, dataset_id, known[dataset_id])
        target = own_dataset_id(tenant, user, name)
        if not user.is_default:
            self.registry.set_owner(tenant, target, user.id)
        return WriteTarget(user, target, name)

    def forgettable(
        self,
        store: TenantStore,
        user_ref: object,
        data_ids: Sequence[str] | None,
        name: str | None,
    ) -> str | None:
        """Check that the user may delete these data items (write permission on their
        datasets) or this dataset (their own, by name); return the dataset's id.

        Raises:
            DatasetNotFoundError: ``name`` is not one of the user's own datasets.
            PermissionDeniedError: a data item in a dataset the user may not write to.
        """
        tenant = store.tenant_id
        user = self.registry.resolve_user(tenant, user_ref)
        known = store.datasets()
        access = self.registry.access(tenant, user, known)
        if name is not None:
            found = own_dataset(tenant, known, access, name)
            if found is None:
                raise not_found(tenant, known, access, [name])
            return found
        wanted = set(data_ids or ())
        home = {d.id: d.dataset_id for d in store.graph.documents()}
        denied = sorted(
            i for i in wanted if i in home and access.get(home[i]) not in ("owner", "write")
        )
        if denied:
            raise PermissionDeniedError(
                f"This user may not delete data item(s) {denied}: they are in datasets it "
                "cannot write to; nothing was deleted. Ask the dataset's owner for write "
                "permission (engine.grant(dataset_id, to=user, permission='write'))."
            )
        return None

    def dataset_dropped(self, tenant_id: str, dataset_id: str) -> None:
        self.registry.drop_dataset(tenant_id, dataset_id)

    def grant(
        self, store: TenantStore, dataset_id: str, to: object, permission: object, by: object
    ) -> None:
        """Share a dataset (only its owner may).

        Raises:
            DatasetNotFoundError, PermissionDeniedError, UserNotFoundError, InvalidInputError.
        """
        level = check_permission(permission)
        _, grantee = self._owner_and_user(store, dataset_id, to, by)
        self.registry.grant(store.tenant_id, dataset_id, grantee.id, level)

    def revoke(
        self, store: TenantStore, dataset_id: str, to: object, permission: object, by: object
    ) -> None:
        """Take a grant back: all of it (``permission=None``), or ``permission="write"``
        only (the user keeps reading).

        Raises:
            InvalidInputError: another ``permission``; ``"read"`` is refused rather than
                read as "everything", since reading is the least a grant gives.
        """
        if permission == "read":
            raise InvalidInputError(
                "revoke(permission='read') is ambiguous: a grant cannot keep writing without "
                "reading. Pass permission=None to revoke the whole grant, or "
                "permission='write' to leave the user read access."
            )
        level = None if permission is None else check_permission(permission)
        _, grantee = self._owner_and_user(store, dataset_id, to, by)
        self.registry.revoke(store.tenant_id, dataset_id, grantee.id, level)

    def _owner_and_user(
        self, store: TenantStore, dataset_id: str, to: object, by: object
    ) -> tuple[User, User]:
        tenant = store.tenant_id
        if not isinstance(dataset_id, str) or not dataset_id.strip():
            raise InvalidInputError(f"dataset_id must be a dataset's id, got {shown(dataset_id)}.")
        check_length(
            dataset_id,
            what="dataset_id",
            limit=MAX_ID_CHARS,
            hint="Pass the id engine.datasets() lists.",
        )
        owner = self.registry.resolve_user(tenant, by)
        if to is None:
            raise InvalidInputError("Name the user to share with: to=<User or user id>.")
        grantee = self.registry.resolve_user(tenant, to)
        check_owner(
            tenant, store.datasets(), self.registry.owner_of(tenant, dataset_id), owner, dataset_id
        )
        if grantee.id == owner.id:
            raise InvalidInputError("The owner already has every permission on its dataset.")
        return owner, grantee

    def datasets(self, store: TenantStore, user_ref: object) -> list[DatasetAccess]:
        """The datasets the user can read, own ones first, then by name."""
        tenant = store.tenant_id
        user = self.registry.resolve_user(tenant, user_ref)
        known = store.datasets()
        access = self.registry.access(tenant, user, known)
        owners = self.registry.owners(tenant)
        names = {u.id: u.name for u in self.registry.users(tenant)}
        out = []
        for dataset_id, level in access.items():
            owner_id = owners.get(dataset_id, default_user_id(tenant))
            out.append(
                DatasetAccess(
                    id=dataset_id,
                    name=known[dataset_id],
                    owner_id=owner_id,
                    owner_name=names.get(owner_id, "default_user"),
                    permission=level,
                )
            )
        return sorted(out, key=lambda d: (d.permission != "owner", d.name, d.id))
