"""The README is one screen a newcomer can act on: its quickstart is real code, run as
a user would run it, and every page it points to exists."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


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
    # What the README says it prints is what it prints (the getting-started page too).
    for page in (README, ROOT / "docs" / "getting-started.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        claimed = re.search(r"It prints .*?`([^`]*\['D1:1'\])`", text)
        assert claimed and claimed.group(1) == result.stdout.strip(), (page.name, result.stdout)
    assert (tmp_path / ".recall_engine" / "tenants" / "default").is_dir()


def test_readme_fits_one_screen_and_says_how_to_install():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert "pip install ." in text
    assert "make demo" in text and "make test" in text


def test_every_relative_link_of_the_readme_exists():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert local, "the README links into the docs"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README links to missing files: {missing}"
