"""Who acts on a tenant's memory, and what they may do with each dataset."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

Permission = Literal["read", "write"]
"""What a grant gives: ``write`` includes ``read``."""

Access = Literal["owner", "write", "read"]
"""What a user may do with a dataset: its owner may also grant, revoke and delete it."""

DEFAULT_USER_NAME = "default_user"


class User(BaseModel):
    """A user of one tenant. Pass it (or its ``id``) as ``user=``."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    tenant_id: str
    created_at: datetime
    is_default: bool = False


class DatasetAccess(BaseModel):
    """One dataset a user can read, as ``engine.datasets(user=...)`` lists it."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    owner_id: str
    owner_name: str
    permission: Access
