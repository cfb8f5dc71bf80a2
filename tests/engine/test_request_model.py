"""The recall() parameters are declared once (``RecallParams``): every entry point
that spells them out for users takes exactly those names and defaults."""

import inspect
from collections.abc import Callable

from recall_engine import api
from recall_engine.engine import RecallEngine
from recall_engine.pipeline.request import RecallParams
from recall_engine.server.app import RecallBody


def _signature(function: Callable[..., object]) -> dict[str, object]:
    parameters = inspect.signature(function).parameters
    return {n: p.default for n, p in parameters.items() if n != "self"}


def test_recall_signatures_match_the_model() -> None:
    declared = {
        name: (inspect.Parameter.empty if field.is_required() else field.default)
        for name, field in RecallParams.model_fields.items()
    }
    assert _signature(RecallEngine.recall) == declared
    assert _signature(api.recall) == declared


def test_http_body_defaults_follow_the_model() -> None:
    for name, field in RecallBody.model_fields.items():
        if name in RecallParams.model_fields and not field.is_required():
            assert field.default == RecallParams.model_fields[name].default, name
