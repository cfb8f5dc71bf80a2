"""A small memory to retrieve from, embedded and served (``tests.remote_fixture``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.remote_fixture import in_mode

NOTES = [
    "Grace Hopper found a moth trapped in a relay of the Mark II computer.",
    "Ada Lovelace wrote an algorithm for the Analytical Engine.",
]
OTHER = "The Mark II relay log is kept in a drawer of the east archive."
QUESTION = "What did Grace Hopper find in the Mark II relay?"


async def fill(engine: Any) -> None:
    for text in NOTES:
        await engine.remember(text, dataset_name="notes", metadata={"shelf": "computing"})
    await engine.remember(OTHER, dataset_name="archive")


@pytest.fixture(params=["embedded", "remote"])
async def memory(request, engine) -> Iterator[Any]:
    """The filled engine itself, or reached over HTTP through ``RecallEngine.connect``."""
    await fill(engine)
    with in_mode(request.param, engine) as memory:
        yield memory
