"""``ChunkFilter``: which chunks a search may return (exact metadata equalities, an
``AttributeFilter`` query, not expired, stated by a time), bound to a reader so that
every chunk search of ``recall()``'s lanes and of the tenant API honours it the same
way."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from recall_engine.core.metadata import EXPIRES_KEY
from recall_engine.read.attributes import AttributeFilter
from recall_engine.storage.time_filter import to_epoch


class ChunkFilter(BaseModel):
    """Which chunks a search may return: AND of exact equalities, not expired, and
    stated by ``stated_by``."""

    model_config = ConfigDict(frozen=True)

    equals: tuple[tuple[tuple[str, ...], object], ...] = Field(
        default=(), description="(path into chunk metadata, value) pairs, all required."
    )
    alive_at: float | None = Field(
        default=None, description="Epoch seconds: chunks expired by then are left out."
    )
    attributes: AttributeFilter | None = Field(
        default=None, description="A query with operators ($in, $gt, $or, ...) that must hold."
    )
    stated_by: float | None = Field(
        default=None,
        description="Epoch seconds: chunks stated later are left out (``as_of``); a chunk "
        "of unknown time passes.",
    )

    @property
    def narrows(self) -> bool:
        """Whether it tests metadata (expiry aside)."""
        return bool(self.equals) or self.attributes is not None

    def matches(self, metadata: Mapping[str, object]) -> bool:
        """The equalities hold (expiry aside)."""
        for path, value in self.equals:
            found: object = metadata
            for key in path:
                if not isinstance(found, Mapping) or key not in found:
                    return False
                found = found[key]
            if not _equal(found, value):
                return False
        return self.attributes is None or self.attributes.matches(metadata)

    def allows(
        self, metadata: Mapping[str, object], *, stated: str | datetime | None = None
    ) -> bool:
        """The equalities hold, the chunk has not expired by ``alive_at`` and was
        ``stated`` (its time; None: unknown, which passes) by ``stated_by``."""
        if self.stated_by is not None and to_epoch(stated) > self.stated_by:
            return False
        if self.alive_at is not None:
            expires = metadata.get(EXPIRES_KEY)
            if isinstance(expires, bool) or not isinstance(expires, int | float):
                expires = math.inf
            if expires <= self.alive_at:
                return False
        return self.matches(metadata)

    def and_(self, other: ChunkFilter | None) -> ChunkFilter:
        """Both filters at once."""
        if other is None:
            return self
        times = [t for t in (self.alive_at, other.alive_at) if t is not None]
        bounds = [t for t in (self.stated_by, other.stated_by) if t is not None]
        attributes = self.attributes.and_(other.attributes) if self.attributes else other.attributes
        return ChunkFilter(
            equals=(*self.equals, *other.equals),
            alive_at=max(times) if times else None,
            attributes=attributes,
            stated_by=min(bounds) if bounds else None,
        )


def _equal(stored: object, wanted: object) -> bool:
    if isinstance(stored, bool) or isinstance(wanted, bool):
        return stored is wanted or (type(stored) is type(wanted) and stored == wanted)
    return bool(stored == wanted)
