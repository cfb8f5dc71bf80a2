"""Users of a tenant, who owns each dataset, and whom its owner shared it with."""

from recall_engine.identity.models import DatasetAccess, Permission, User
from recall_engine.identity.registry import IdentityRegistry, default_user_id

__all__ = ["DatasetAccess", "IdentityRegistry", "Permission", "User", "default_user_id"]
