"""`import recall_engine` stays light, and litellm is loaded offline when it is needed."""

from __future__ import annotations

import subprocess
import sys

HEAVY = (
    "litellm",
    "torch",
    "sentence_transformers",
    "openai",
    "transformers",
    "onnxruntime",
    "tokenizers",
)


def run(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "", "PYTHONHASHSEED": "0", **env},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_import_recall_engine_loads_no_heavy_module():
    code = (
        "import sys, recall_engine, recall_engine.llm.completion, recall_engine.llm, "
        "recall_engine.prompts, recall_engine.testing, recall_engine.embedding, "
        "recall_engine.embedding.onnx\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    assert run(code).strip() == "[]"


def test_litellm_is_imported_offline_and_quiet():
    code = (
        "import os, sys\n"
        "from recall_engine.testing import install_network_guard\n"
        "install_network_guard()\n"  # a remote price-map fetch would fail loudly
        "from recall_engine.llm._litellm import get_litellm\n"
        "litellm = get_litellm()\n"
        "assert get_litellm() is litellm\n"
        "print(os.environ['LITELLM_LOCAL_MODEL_COST_MAP'], litellm.telemetry,"
        " 'litellm' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env={"PATH": ""}
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "False", "True"]
    assert "cost map" not in result.stderr.lower()


def test_the_engine_loads_networkx_only_for_a_graph_report():
    """networkx (GRAPH_REPORT's communities) is not part of every process's start."""
    code = (
        "import sys\n"
        "from recall_engine import RecallEngine\n"
        "import retrievers.graph_report\n"
        "print('networkx' in sys.modules)"
    )
    assert run(code).strip() == "False"
