"""Stored times as numbers, so interval filters are one vectorised comparison."""

from __future__ import annotations

import math
from datetime import UTC, datetime


def to_epoch(value: str | datetime | None) -> float:
    """Seconds since 1970 (naive times read as UTC); NaN when absent or unreadable."""
    if value is None or value == "":
        return math.nan
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return math.nan
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()
