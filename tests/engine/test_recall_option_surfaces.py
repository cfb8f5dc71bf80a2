"""recall()'s options are declared once (``core.recall_options.RecallOptions``): every
surface that offers them exposes exactly those names, with the declared defaults
(the MCP tool's schema: ``tests/mcp/test_recall_schema.py``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Unpack, get_args, get_origin, get_type_hints

import pytest

from recall_engine import RecallEngine, RemoteRecallEngine, api
from recall_engine.core.errors import InvalidInputError
from recall_engine.core.recall_options import RecallOptions, RecallParams, option_fields
from recall_engine.server.app import LOCAL_ONLY_OPTIONS, RecallBody

DECLARED = {name: info.default for name, (_, info) in option_fields().items()}


def _keywords(function: Callable[..., object]) -> dict[str, object]:
    parameters = inspect.signature(function).parameters.values()
    return {p.name: p.default for p in parameters if p.kind is p.KEYWORD_ONLY}


@pytest.mark.parametrize(
    "function",
    [RecallEngine.recall, api.recall, RemoteRecallEngine.recall],
    ids=["engine", "module", "remote"],
)
def test_python_signatures_are_the_declared_options(function: Callable[..., object]) -> None:
    assert _keywords(function) == DECLARED
    # what mypy checks callers against: the same TypedDict
    hint = get_type_hints(function)["options"]
    assert get_origin(hint) is Unpack and get_args(hint) == (RecallOptions,)


def test_the_model_validates_the_declared_options() -> None:
    assert set(RecallParams.model_fields) == {"query_text", "query_type", *DECLARED}
    params = RecallParams.check("Where?", "chunks", {"datasets": "notes", "top_k": 3})
    assert params.datasets == ("notes",) and params.top_k == 3
    assert params.query_type.value == "CHUNKS"
    with pytest.raises(TypeError, match="no_such_option"):
        RecallParams.check("Where?", None, {"no_such_option": 1})
    with pytest.raises(InvalidInputError, match="top_k"):
        RecallParams.check("Where?", None, {"top_k": "3"})
    with pytest.raises(InvalidInputError, match=r"^tenant_id: .*string"):  # pydantic's own check
        RecallParams.check("Where?", None, {"tenant_id": ["a" * 500]})


def test_http_body_is_the_declared_options() -> None:
    schema = RecallBody.model_json_schema(by_alias=False)
    expected = {"query_text", "query_type", *(set(DECLARED) - LOCAL_ONLY_OPTIONS)}
    assert set(schema["properties"]) == expected
    for name in set(DECLARED) - LOCAL_ONLY_OPTIONS:
        assert RecallBody.model_fields[name].default == DECLARED[name], name


def test_openapi_body_of_recall_is_the_declared_options(served_app: Any) -> None:
    openapi = served_app.openapi()
    body = openapi["paths"]["/api/v1/recall"]["post"]["requestBody"]["content"]
    ref = body["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    properties = openapi["components"]["schemas"][ref]["properties"]
    camel = {_camel(n) for n in (set(DECLARED) - LOCAL_ONLY_OPTIONS)}
    assert set(properties) - {"query_text", "queryType"} == camel


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


@pytest.fixture
def served_app(tmp_path: Any, hash_embedder: Any) -> Any:
    from recall_engine.server.app import ServerSettings, create_app

    engine = RecallEngine(tmp_path / "data", embedder=hash_embedder)
    try:
        yield create_app(engine, ServerSettings(auth=False))
    finally:
        engine.close()
