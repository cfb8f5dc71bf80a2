from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from recall_engine.config import RecallConfig
from recall_engine.llm import LLMConfig
from recall_engine.testing import FakeLLMServer


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


@pytest.fixture
def llm_config(server: FakeLLMServer) -> LLMConfig:
    # Tiny backoff keeps retry tests fast; the short timeout bounds the slow-reply tests.
    return LLMConfig(
        model="openai/fake-model",
        api_base=server.base_url,
        api_key=SecretStr("test"),
        timeout_s=2.0,
        max_retries=2,
        backoff_base_s=0.001,
        backoff_max_s=0.01,
    )


@pytest.fixture
def offline_config(tmp_path) -> RecallConfig:
    return RecallConfig(data_dir=tmp_path)


# The fixture users get from `pytest_plugins = ["recall_engine.testing"]`; imported
# here because pytest_plugins is only allowed in the rootdir conftest.
from recall_engine.testing import fake_llm_server  # noqa: E402, F401
