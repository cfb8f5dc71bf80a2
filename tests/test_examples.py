"""The examples in examples/ run: in-process with the hash embedder by default (fast),
and as a user runs them, with the packaged model, in the slow run."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CONTRACT = [
    "sessions.py",
    "shared_datasets.py",
    "custom_prompt.py",
    "query_types.py",
    "custom_retriever.py",
]
EXPECT = {
    "sessions.py": "[session] What blocked the Difference Engine build?",
    "shared_datasets.py": "refused: PermissionDeniedError",
    "custom_prompt.py": "Visitor: What did Grace Hopper find in the Mark II?",
    "query_types.py": "\n\nEvidence:\n- chunk 0 of document",
    "custom_retriever.py": "EXACT_PHRASE: The connection pool outage blocked the build",
}


@pytest.mark.parametrize("name", CONTRACT)
def test_example_runs(name, tmp_path, monkeypatch, capsys):
    from recall_engine import engine as engine_module
    from recall_engine.testing import DeterministicEmbedder

    monkeypatch.setattr(engine_module, "make_embedder", lambda config: DeterministicEmbedder())
    monkeypatch.setenv("RECALL_ENGINE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    from retrievers import REGISTRY, unregister_retriever

    before = set(REGISTRY)
    try:
        runpy.run_path(str(EXAMPLES / name), run_name="__main__")
        runpy.run_path(str(EXAMPLES / name), run_name="__main__")  # twice: re-runs are fine
    finally:
        for added in set(REGISTRY) - before:  # a search type the example registered
            unregister_retriever(added)
    out = capsys.readouterr().out
    assert EXPECT[name] in out
    if name == "custom_retriever.py":
        assert "candidates" not in out  # shares the words, not the phrase


@pytest.mark.slow
@pytest.mark.parametrize("name", CONTRACT)
def test_example_runs_with_the_packaged_model(name, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RECALL_ENGINE_DATA_DIR": str(tmp_path / "d")}
    result = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert EXPECT[name] in result.stdout
