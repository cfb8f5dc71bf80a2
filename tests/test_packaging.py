"""The wheel carries every package and the prompt files; the examples run."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (built,) = out.glob("recall_engine-*.whl")
    return built


def test_wheel_contains_prompts_router_rules_and_packages(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "prompts/answer_from_context.v1.txt" in names
    assert "router/default_rules.toml" in names
    for package in ("recall_engine", "retrievers", "router", "prompts"):
        assert f"{package}/__init__.py" in names
    assert not any(n.startswith(("tests/", "bench/", "examples/")) for n in names)


def test_every_prompt_file_is_in_the_wheel(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {p.name for p in (ROOT / "prompts").glob("*.txt")}
    assert shipped and {f"prompts/{n}" for n in shipped} <= names


def test_quickstart_example_runs_offline(tmp_path):
    env = {**os.environ, "RECALL_ENGINE_DATA_DIR": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "remembered 3 items (3 new" in result.stdout
    # The headline call: no query_type, routed to GRAPH_COMPLETION, answered offline.
    assert "A (GRAPH_COMPLETION, extractive):" in result.stdout and "ERR-4012" in result.stdout
