"""Each top-level package imports on its own, and every documented bench starts.

Each check runs in a fresh interpreter: inside the test process another test
may already have imported what a broken import order needs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHES = sorted(p.stem for p in (ROOT / "bench").glob("*.py") if not p.stem.startswith("_"))


def fresh(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("package", ["recall_engine", "router", "retrievers", "prompts"])
def test_package_imports_in_a_fresh_interpreter(package: str) -> None:
    result = fresh("-c", f"import {package}")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("module", ["router", "retrievers", "recall_engine.core"])
def test_lower_layers_do_not_load_the_engine(module: str) -> None:
    code = f"import sys, {module}; print('recall_engine.engine' in sys.modules)"
    result = fresh("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


# Every bench's `--help`, one after another in one fresh interpreter (argv: the benches);
# prints what failed, one line each.
_EVERY_HELP = """
import contextlib, io, runpy, sys
failed = []
for bench in sys.argv[1:]:
    out = io.StringIO()
    sys.argv = [f"bench.{bench}", "--help"]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_module(f"bench.{bench}", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        if exc.code not in (0, None):
            failed.append(f"{bench}: exit status {exc.code}")
    except BaseException as exc:
        failed.append(f"{bench}: {type(exc).__name__}: {exc}")
    if "usage" not in out.getvalue().lower():
        failed.append(f"{bench}: no usage printed")
print("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


def test_every_bench_starts() -> None:
    assert BENCHES
    result = fresh("-c", _EVERY_HELP, *BENCHES)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow  # one interpreter per bench; test_every_bench_starts runs them in one
@pytest.mark.parametrize("bench", BENCHES)
def test_bench_help_starts(bench: str) -> None:
    result = fresh("-m", f"bench.{bench}", "--help")
    assert result.returncode == 0, result.stderr
    assert "usage" in result.stdout.lower()


def test_the_error_tree_is_importable_from_the_top_level() -> None:
    code = (
        "import recall_engine\n"
        "assert recall_engine.errors.InvalidInputError is recall_engine.InvalidInputError\n"
        "from recall_engine import RecallEngineError, InvalidInputError, StoreLockedError\n"
        "from recall_engine import TenantNotFoundError\n"
        "import recall_engine.errors as errors\n"
        "import recall_engine.core.errors as core\n"
        "names = {n for n, v in vars(core).items() if isinstance(v, type)"
        " and issubclass(v, core.RecallEngineError)}\n"
        "missing = [n for n in sorted(names | set(errors.__all__)) if not hasattr(recall_engine, n)]\n"
        "assert not missing, missing\n"
        "assert issubclass(InvalidInputError, RecallEngineError)\n"
        "assert issubclass(TenantNotFoundError, InvalidInputError)\n"
        "import sys; print('recall_engine.engine' in sys.modules)\n"
    )
    result = fresh("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"  # errors load without the engine
