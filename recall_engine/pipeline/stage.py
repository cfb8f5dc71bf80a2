"""A recall() stage: a named step over the call's ``RecallState``.

``RecallPipeline.stages`` is a plain list of them, run in order until one sets
``state.done``; add your own with ``RecallPipeline.insert_stage`` (or edit the list)::

    async def drop_short(state: RecallState) -> None:
        if state.output is not None:
            state.output.hits = [h for h in state.output.hits if len(h.text) > 20]

    engine.pipeline.insert_stage(stage("drop_short", drop_short), after="retrieve")

Each stage is timed under its name (``metadata["timings"]`` with ``verbose=True``) and
gets an OpenTelemetry span ``recall.<name>`` when telemetry records.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from recall_engine.core.errors import InvalidInputError
from recall_engine.pipeline.state import RecallState


class Stage(Protocol):
    """One step of recall(): reads and updates ``state``; sets ``state.done`` to stop."""

    @property
    def name(self) -> str:
        """The stage's name: unique in a pipeline, used for its timing and span."""
        ...

    async def run(self, state: RecallState) -> None:
        """Do this stage's work on one call's state."""
        ...


@dataclass(frozen=True)
class FunctionStage:
    """A ``Stage`` from a name and an async function of the state."""

    name: str
    fn: Callable[[RecallState], Awaitable[None]]

    async def run(self, state: RecallState) -> None:
        """Call ``fn`` with ``state``."""
        await self.fn(state)


def stage(name: str, fn: Callable[[RecallState], Awaitable[None]]) -> Stage:
    """A stage named ``name`` that runs ``fn(state)``."""
    return FunctionStage(name, fn)


def insert_stage(
    stages: list[Stage], new: Stage, *, after: str | None = None, before: str | None = None
) -> None:
    """Insert ``new`` into ``stages`` after or before the stage of that name.

    Args:
        stages: the list to change (in place).
        new: the stage to add; its name must not be taken.
        after: the name of the stage ``new`` runs after.
        before: the name of the stage ``new`` runs before (give one of the two).

    Raises:
        InvalidInputError: not exactly one of ``after``/``before``, an unknown stage
            name, or a name already in ``stages`` (``stages`` is then unchanged).
    """
    names = [s.name for s in stages]
    if (after is None) == (before is None):
        raise InvalidInputError("insert_stage needs exactly one of after= or before=.")
    if new.name in names:
        raise InvalidInputError(f"A stage named {new.name!r} is already in the pipeline.")
    anchor = after if after is not None else before
    if anchor not in names:
        raise InvalidInputError(f"No stage named {anchor!r}; the stages are: {', '.join(names)}.")
    index = names.index(anchor) + (1 if after is not None else 0)
    stages.insert(index, new)
