"""The OpenTelemetry, LangChain and LlamaIndex examples run, as tests/test_examples.py
runs the others: in-process with the hash embedder, twice on one data dir."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from recall_engine import telemetry

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXPECT = {
    "opentelemetry_traces.py": ["  recall.retrieve", "query text in the spans: False",
                                "recalls by CHUNKS: 1", "  remember.chunking"],
    "langchain_retriever.py": ["CHUNKS chunk 0 of", "chain answer: Every ten minutes."],
    "llamaindex_retriever.py": ["context reached the LLM: True", "[observatory] chunk 0:"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_example_runs(name, tmp_path, monkeypatch, capsys):
    from recall_engine import engine as engine_module
    from recall_engine.testing import DeterministicEmbedder

    monkeypatch.setattr(engine_module, "make_embedder", lambda config: DeterministicEmbedder())
    monkeypatch.setenv("RECALL_ENGINE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    try:
        for _ in range(2):  # re-runs are fine
            runpy.run_path(str(EXAMPLES / name), run_name="__main__")
            out = capsys.readouterr().out
            for expected in EXPECT[name]:
                assert expected in out
    finally:
        telemetry.configure(tracer_provider=None, meter_provider=None)
