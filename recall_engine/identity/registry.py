"""Users, dataset owners and grants of every tenant: a file in the data dir
(SQLite), or tables of the shared state store (Postgres, ``state.postgres``).

The datasets themselves live in each tenant's graph store; this registry only
records who created each one and whom its owner shared it with. A dataset with
no recorded owner (created before users existed, or by a caller that does not
name a user) belongs to the tenant's default user, whose id is derived from the
tenant name so that it is the same in every process.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from recall_engine.core.bounds import MAX_ID_CHARS, check_length
from recall_engine.core.cells import Cell
from recall_engine.core.errors import InvalidInputError, UserNotFoundError
from recall_engine.core.validation import check_name, stable_id
from recall_engine.identity.models import DEFAULT_USER_NAME, Access, Permission, User
from recall_engine.state.sql import SqlDatabase
from recall_engine.state.sqlite import SqliteFile

FILE_NAME = "identity.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    tenant_id TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL,
    created_at TEXT NOT NULL, is_default INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, id), UNIQUE (tenant_id, name));
CREATE TABLE IF NOT EXISTS dataset_owners (
    tenant_id TEXT NOT NULL, dataset_id TEXT NOT NULL, owner_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, dataset_id));
CREATE TABLE IF NOT EXISTS grants (
    tenant_id TEXT NOT NULL, dataset_id TEXT NOT NULL, user_id TEXT NOT NULL,
    permission TEXT NOT NULL CHECK (permission IN ('read', 'write')),
    PRIMARY KEY (tenant_id, dataset_id, user_id));
"""
_RANK = {"read": 1, "write": 2, "owner": 3}


def default_user_id(tenant_id: str) -> str:
    """The id of a tenant's default user (the same in every process and data dir)."""
    return stable_id("user", tenant_id, DEFAULT_USER_NAME)


def _user(row: tuple[Cell, ...]) -> User:
    tenant_id, user_id, name, created_at, is_default = row
    return User(
        id=user_id,
        name=name,
        tenant_id=tenant_id,
        created_at=datetime.fromisoformat(created_at),
        is_default=bool(is_default),
    )


class IdentityRegistry:
    """Users and dataset permissions, per tenant. Blocking: call it off the event loop,
    unless ``in_process`` (reads of this process's own file are short)."""

    def __init__(self, source: Path | SqlDatabase) -> None:
        """``source``: the data dir (its ``identity.sqlite3``), or a state database."""
        self._owned = isinstance(source, Path)
        self._db: SqlDatabase = (
            SqliteFile(source / FILE_NAME, _SCHEMA) if isinstance(source, Path) else source
        )

    @property
    def in_process(self) -> bool:
        """Its database is the data dir's own SQLite file, which only this process uses
        (the store's single holder), not a shared state database on a server."""
        return self._owned

    def close(self) -> None:
        """Close the file (a shared state database stays open: its owner closes it)."""
        if self._owned:
            self._db.close()

    # users

    def ensure_default_user(self, tenant_id: str) -> User:
        """The tenant's default user, created on first use."""
        user_id = default_user_id(tenant_id)
        with self._db.read() as conn:  # a read when it exists: reads leave the files alone
            row = None
            if conn is not None:
                row = conn.execute(
                    "SELECT * FROM users WHERE tenant_id = ? AND id = ?", (tenant_id, user_id)
                ).fetchone()
        if row is not None:
            return _user(row)
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO users VALUES (?, ?, ?, ?, 1) ON CONFLICT DO NOTHING",
                (tenant_id, user_id, DEFAULT_USER_NAME, datetime.now(UTC).isoformat()),
            )
            row = conn.execute(
                "SELECT * FROM users WHERE tenant_id = ? AND id = ?", (tenant_id, user_id)
            ).fetchone()
        return _user(row)

    def create_user(self, tenant_id: str, name: str, *, exist_ok: bool = False) -> User:
        """Add a user named ``name`` (unique in the tenant).

        Raises:
            InvalidInputError: a bad name, or one that is taken (unless ``exist_ok``).
        """
        name = check_name(name, what="name")
        if name == DEFAULT_USER_NAME:
            raise InvalidInputError(
                f"{DEFAULT_USER_NAME!r} is the tenant's default user; pick another name."
            )
        with self._db.write() as conn:
            row = conn.execute(
                "SELECT * FROM users WHERE tenant_id = ? AND name = ?", (tenant_id, name)
            ).fetchone()
            if row is not None:
                if exist_ok:
                    return _user(row)
                raise InvalidInputError(
                    f"A user named {name!r} already exists in tenant {tenant_id!r}; pick "
                    "another name, or pass exist_ok=True to get that user."
                )
            values = (tenant_id, str(uuid.uuid4()), name, datetime.now(UTC).isoformat(), 0)
            conn.execute("INSERT INTO users VALUES (?, ?, ?, ?, ?)", values)
        return _user(values)

    def users(self, tenant_id: str) -> list[User]:
        """Every user of the tenant, oldest first."""
        with self._db.read() as conn:
            if conn is None:
                return []
            rows = conn.execute(
                "SELECT * FROM users WHERE tenant_id = ? ORDER BY created_at, name", (tenant_id,)
            ).fetchall()
        return [_user(r) for r in rows]

    def resolve_user(self, tenant_id: str, ref: object) -> User:
        """The user ``ref`` names: None (the default user), a ``User`` or a user id.

        Raises:
            UserNotFoundError: no such user in this tenant.
            InvalidInputError: ``ref`` is not a user, an id or None, or an id over
                ``MAX_ID_CHARS`` characters.
        """
        if ref is None:
            return self.ensure_default_user(tenant_id)
        if isinstance(ref, User):
            if ref.tenant_id != tenant_id:
                raise UserNotFoundError(
                    f"User {ref.name!r} belongs to tenant {ref.tenant_id!r}, not {tenant_id!r}; "
                    "create the user in this tenant (engine.create_user(..., tenant_id=...))."
                )
            user_id = ref.id
        elif isinstance(ref, str | uuid.UUID):
            user_id = check_length(
                str(ref),
                what="user",
                limit=MAX_ID_CHARS,
                hint="Pass a User or the id engine.create_user() gave it.",
            ).strip()
        else:
            raise InvalidInputError(
                f"user must be a User, a user id or None, got {type(ref).__name__}."
            )
        if user_id == default_user_id(tenant_id):
            return self.ensure_default_user(tenant_id)
        with self._db.read() as conn:
            row = None
            if conn is not None:
                row = conn.execute(
                    "SELECT * FROM users WHERE tenant_id = ? AND id = ?", (tenant_id, user_id)
                ).fetchone()
        if row is None:
            raise UserNotFoundError(
                f"No user with id {user_id!r} in tenant {tenant_id!r}; create one with "
                "engine.create_user(name) and pass it (or its id) as user=."
            )
        return _user(row)

    # datasets and grants

    def set_owner(self, tenant_id: str, dataset_id: str, owner_id: str) -> None:
        """Record who created a dataset (the first record wins)."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO dataset_owners VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (tenant_id, dataset_id, owner_id),
            )

    def owners(self, tenant_id: str) -> dict[str, str]:
        """Dataset id -> owner id, for the datasets with a recorded owner."""
        with self._db.read() as conn:
            if conn is None:
                return {}
            rows = conn.execute(
                "SELECT dataset_id, owner_id FROM dataset_owners WHERE tenant_id = ?",
                (tenant_id,),
            ).fetchall()
        return dict(rows)

    def owner_of(self, tenant_id: str, dataset_id: str) -> str:
        return self.owners(tenant_id).get(dataset_id, default_user_id(tenant_id))

    def grant(self, tenant_id: str, dataset_id: str, user_id: str, permission: Permission) -> None:
        """Give ``user_id`` ``permission`` on a dataset (never lowers an existing grant)."""
        with self._db.write() as conn:
            row = conn.execute(
                "SELECT permission FROM grants WHERE tenant_id = ? AND dataset_id = ? "
                "AND user_id = ?",
                (tenant_id, dataset_id, user_id),
            ).fetchone()
            if row is not None and _RANK[row[0]] >= _RANK[permission]:
                return
            conn.execute(
                "INSERT INTO grants VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, dataset_id, "
                "user_id) DO UPDATE SET permission = excluded.permission",
                (tenant_id, dataset_id, user_id, permission),
            )

    def revoke(
        self, tenant_id: str, dataset_id: str, user_id: str, permission: Permission | None
    ) -> None:
        """Take a grant back: all of it, or (``permission="write"``) only writing."""
        key = (tenant_id, dataset_id, user_id)
        where = "tenant_id = ? AND dataset_id = ? AND user_id = ?"
        with self._db.write() as conn:
            if permission == "write":
                conn.execute(f"UPDATE grants SET permission = 'read' WHERE {where}", key)
            else:
                conn.execute(f"DELETE FROM grants WHERE {where}", key)

    def drop_dataset(self, tenant_id: str, dataset_id: str) -> None:
        """Forget the owner and grants of a deleted dataset."""
        with self._db.write() as conn:
            for table in ("dataset_owners", "grants"):
                conn.execute(
                    f"DELETE FROM {table} WHERE tenant_id = ? AND dataset_id = ?",
                    (tenant_id, dataset_id),
                )

    def access(self, tenant_id: str, user: User, known: Mapping[str, str]) -> dict[str, Access]:
        """What ``user`` may do with each of the tenant's datasets (``known``: id ->
        name); datasets the user cannot read are left out."""
        default_id = default_user_id(tenant_id)
        with self._db.read() as conn:
            owners: dict[str, str] = {}
            granted: dict[str, str] = {}
            if conn is not None:
                owners = dict(
                    conn.execute(
                        "SELECT dataset_id, owner_id FROM dataset_owners WHERE tenant_id = ?",
                        (tenant_id,),
                    ).fetchall()
                )
                granted = dict(
                    conn.execute(
                        "SELECT dataset_id, permission FROM grants WHERE tenant_id = ? "
                        "AND user_id = ?",
                        (tenant_id, user.id),
                    ).fetchall()
                )
        out: dict[str, Access] = {}
        for dataset_id in known:
            if owners.get(dataset_id, default_id) == user.id:
                out[dataset_id] = "owner"
            elif granted.get(dataset_id) == "write":
                out[dataset_id] = "write"
            elif granted.get(dataset_id) == "read":
                out[dataset_id] = "read"
        return out
