"""Telemetry is optional: without opentelemetry installed the engine imports and
works (the HTTP server needs it anyway: FastAPI depends on opentelemetry-api), and
bad settings say what to set."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from recall_engine import ConfigError
from recall_engine.telemetry.settings import CONTENT_ENV, ENABLED_ENV, TelemetrySettings

ROOT = Path(__file__).resolve().parents[2]

NO_OTEL = """
import asyncio, importlib.abc, sys, tempfile

class NoOtel(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, NoOtel())
from recall_engine import RecallEngine, SearchType
from recall_engine.telemetry import spans
from recall_engine.testing import DeterministicEmbedder

async def main():
    with tempfile.TemporaryDirectory() as data:
        async with RecallEngine(data, embedder=DeterministicEmbedder()) as engine:
            await engine.remember("Grace Hopper found a moth in the Mark II.")
            results = await engine.recall("What did Grace Hopper find?", SearchType.CHUNKS)
            print(spans.tracer() is None, "moth" in results[0].text)

asyncio.run(main())
print(any(m.startswith("opentelemetry") for m in sys.modules))
"""


def test_the_engine_works_without_opentelemetry_installed():
    result = subprocess.run([sys.executable, "-c", NO_OTEL], cwd=ROOT, capture_output=True,
                            text=True, timeout=180)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "False"]


def test_import_recall_engine_loads_no_telemetry_integration_or_framework():
    code = ("import sys, recall_engine; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('opentelemetry', 'langchain_core', 'llama_index')))")  # fmt: skip
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv(ENABLED_ENV, "off")
    monkeypatch.setenv(CONTENT_ENV, "true")
    assert TelemetrySettings.from_env() == TelemetrySettings(enabled=False, capture_content=True)
    monkeypatch.delenv(CONTENT_ENV)
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "True")
    assert TelemetrySettings.from_env().capture_content is True
    monkeypatch.setenv(ENABLED_ENV, "maybe")
    with pytest.raises(ConfigError, match=f"{ENABLED_ENV}='maybe' is not a flag"):
        TelemetrySettings.from_env()


def test_configure_refuses_what_is_not_a_flag():
    from recall_engine import telemetry

    before = telemetry.current()
    with pytest.raises(ConfigError, match="capture_content must be True or False"):
        telemetry.configure(capture_content="yes")  # type: ignore[arg-type]
    assert telemetry.current() == before


def test_configure_refuses_what_is_not_a_provider():
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider

    from recall_engine import telemetry

    before = telemetry.current()
    with pytest.raises(ConfigError, match=r"tracer_provider must be a TracerProvider instance"):
        telemetry.configure(tracer_provider=TracerProvider)  # the class, not an instance
    with pytest.raises(ConfigError, match=r"meter_provider must be a MeterProvider instance"):
        telemetry.configure(meter_provider="otlp")
    assert telemetry.current() == before  # else every later recall() would fail
    with pytest.raises(ConfigError, match="meter_provider"):
        telemetry.configure(tracer_provider=TracerProvider(), meter_provider=MeterProvider)
    assert telemetry.current() == before
