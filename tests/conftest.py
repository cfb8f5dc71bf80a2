"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from recall_engine.testing import block_network


@pytest.fixture(scope="session", autouse=True)
def _no_network() -> Iterator[None]:
    """No test may reach a real provider: only 127.0.0.1 / ::1 / localhost connect."""
    with block_network():
        yield
