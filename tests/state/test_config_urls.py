"""The state and Redis URLs of RecallConfig: read from the environment, checked,
and never shown with their password (repr, str, JSON dumps, errors)."""

from __future__ import annotations

import pytest

from recall_engine.config import RecallConfig
from recall_engine.core.errors import ConfigError

SECRET = "hunter2secret"
STATE = f"postgresql://app:{SECRET}@db.internal:5432/recall?schema=prod"
REDIS = f"redis://:{SECRET}@cache.internal:6379/0?prefix=prod"
GRAPH = f"falkordb://:{SECRET}@graph.internal:6380?prefix=prod"


def test_the_urls_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_ENGINE_STATE_URL", STATE)
    monkeypatch.setenv("RECALL_ENGINE_REDIS_URL", f"  {REDIS} ")
    monkeypatch.setenv("RECALL_ENGINE_GRAPH_URL", GRAPH)
    config = RecallConfig.load()
    assert config.state_url == STATE and config.redis_url == REDIS
    assert config.graph_url == GRAPH
    assert RecallConfig.load(state_url=None).state_url == STATE  # None: not given
    monkeypatch.setenv("RECALL_ENGINE_STATE_URL", " ")
    assert RecallConfig.load().state_url is None  # a blank variable is unset


def test_the_password_is_in_no_repr_str_or_json_dump() -> None:
    config = RecallConfig(state_url=STATE, redis_url=REDIS, graph_url=GRAPH)
    for shown in (repr(config), str(config), config.model_dump_json()):
        assert SECRET not in shown
        assert "postgresql://app:***@db.internal:5432/recall" in shown
        assert "redis://:***@cache.internal:6379/0" in shown
        assert "falkordb://:***@graph.internal:6380" in shown
    llm = RecallConfig(llm_model="openai/m", llm_api_base=f"http://app:{SECRET}@llm.internal/v1")
    for shown in (repr(llm), str(llm), llm.model_dump_json()):
        assert SECRET not in shown and "http://app:***@llm.internal/v1" in shown
    # A Python dump keeps the URL, so that a copy of the config still connects.
    assert RecallConfig.model_validate(config.model_dump()).state_url == STATE


@pytest.mark.parametrize(
    ("field", "url", "expected"),
    [
        ("state_url", f"mysql://app:{SECRET}@db/recall", "postgresql://"),
        ("state_url", f"postgresql://app:{SECRET}@db:port/recall", "port must be a number"),
        ("redis_url", f"http://:{SECRET}@cache:6379", "redis://"),
        ("redis_url", 6379, "must be a URL"),
        ("graph_url", f"bolt://neo4j:{SECRET}@graph:7687", "falkordb://"),
        ("graph_url", f"falkordb://:{SECRET}@graph:port", "port must be a number"),
    ],
)
def test_a_bad_url_is_refused_without_its_password(
    monkeypatch: pytest.MonkeyPatch, field: str, url: object, expected: str
) -> None:
    with pytest.raises(ConfigError) as info:
        RecallConfig(**{field: url})
    assert field in str(info.value) and expected in str(info.value)
    assert SECRET not in str(info.value) and "Invalid" in str(info.value)
    if isinstance(url, str):  # from the environment: the variable is named
        monkeypatch.setenv(f"RECALL_ENGINE_{field.upper()}", url)
        with pytest.raises(ConfigError) as info:
            RecallConfig.load()
        assert f"$RECALL_ENGINE_{field.upper()}" in str(info.value)
        assert SECRET not in str(info.value)
