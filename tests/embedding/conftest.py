"""Fixtures for the embedding tests: both backends of the packaged model."""

from __future__ import annotations

import pytest

BACKENDS = ("onnx", "torch")


@pytest.fixture(params=BACKENDS)
def backend_embedder(request, onnx_minilm, minilm):
    """The packaged model on each backend in turn (loaded once per session)."""
    return onnx_minilm if request.param == "onnx" else minilm
