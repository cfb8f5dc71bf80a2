"""The README's quickstart is real code: run it as a user would."""

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_has_a_quickstart_of_about_ten_lines():
    quickstart = python_blocks()[0]
    assert "remember(" in quickstart and "recall(" in quickstart
    assert len([line for line in quickstart.splitlines() if line.strip()]) <= 12


def test_readme_quickstart_runs(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", python_blocks()[0]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "I moved to Lyon" in result.stdout and "['D1:1']" in result.stdout
    assert (tmp_path / ".recall_engine" / "tenants" / "default").is_dir()
