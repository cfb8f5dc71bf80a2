"""``recall_engine.Memory`` is the one engine Protocol: the embedded and the remote
engine offer each of its methods with the same parameters (mypy checks the types,
in ``recall_engine.api``), and the server and tenant ports are built on it."""

from __future__ import annotations

import inspect

import pytest

import recall_engine
from recall_engine import Memory, RecallEngine, RemoteRecallEngine
from recall_engine.memory import MemoryWrites
from recall_engine.server.port import EnginePort
from recall_engine.tenants.base import EnginePort as TenantEnginePort

METHODS = sorted(
    name
    for protocol in (Memory, MemoryWrites)
    for name, value in vars(protocol).items()
    if inspect.iscoroutinefunction(value)
)


def _parameters(function: object) -> list[tuple[str, object]]:
    """Names and kinds of a method's parameters, TypedDict ``**options`` expanded."""
    out = []
    for p in inspect.signature(function).parameters.values():  # type: ignore[arg-type]
        if p.name == "self":
            continue
        if p.kind is p.VAR_KEYWORD:
            hint = inspect.get_annotations(function, eval_str=True)[p.name]  # type: ignore[arg-type]
            (options,) = hint.__args__
            out += [(name, p.KEYWORD_ONLY) for name in options.__annotations__]
        else:
            out.append((p.name, p.kind))
    return out


def test_memory_is_public_and_lists_the_engine_api() -> None:
    assert recall_engine.Memory is Memory
    assert set(METHODS) == {
        "remember",
        "recall",
        "forget",
        "facts",
        "list_datasets",
        "list_items",
        "datasets",
        "create_user",
        "users",
        "grant",
        "revoke",
        "add_feedback",
    }


@pytest.mark.parametrize("engine", [RecallEngine, RemoteRecallEngine], ids=["embedded", "remote"])
@pytest.mark.parametrize("method", METHODS)
def test_both_engines_take_memorys_parameters(engine: type, method: str) -> None:
    declared = getattr(Memory, method)
    assert _parameters(getattr(engine, method)) == _parameters(declared)


def test_the_ports_are_built_on_memory() -> None:
    assert Memory in EnginePort.__mro__
    assert MemoryWrites in TenantEnginePort.__mro__ and MemoryWrites in Memory.__mro__
