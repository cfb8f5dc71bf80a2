"""FalkorDB's one-time build, started ahead on a fresh machine.

The distributed profile's tests need a FalkorDB server built from source once into
the user cache (``.ci/services.py``: a few minutes, mostly on one core). Built on
first use, every xdist worker that meets such a test waits for it, and a 2-core
machine runs nothing else meanwhile (on a fresh machine, two workers each waited
4.5-5 minutes in their first such test). When the build is absent as a run of the
whole suite starts, ``start`` runs it in the background from the controller, and
``last`` moves the test files that use the server to the end of the run, so the
workers run the rest of the suite while it builds. Nothing changes once the build
is cached.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLAG = "RECALL_ENGINE_TESTS_FALKORDB_BUILDING"
"""Set by the controller (and inherited by its workers) while the build runs ahead."""
_USERS = ("tests.distributed_profile", "tests.storage.falkordb_live", "tests.remote_fixture")
_WORDS = ("distributed", "falkordb")


def start() -> None:
    """In the controller (or a run without workers): when FalkorDB is not built,
    build it in a background process of its own and set ``FLAG`` for the workers.
    Workers that reach a FalkorDB test first wait on the build's lock, as before."""
    if os.environ.get(FLAG) or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    from tests.storage.falkordb_live import _services

    services = _services()
    if services._built_falkor_bin() is not None:
        return
    services.FALKOR_DIR.mkdir(parents=True, exist_ok=True)
    log = (services.FALKOR_DIR / "build-ahead.log").open("ab")
    subprocess.Popen(
        [sys.executable, str(ROOT / ".ci" / "services.py"), "build"],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    log.close()
    os.environ[FLAG] = "1"


def _uses_falkordb(item: pytest.Item) -> bool:
    if any(word in item.nodeid.lower() for word in _WORDS):
        return True
    module = getattr(item, "module", None)
    for value in vars(module).values() if module is not None else ():
        if isinstance(value, types.ModuleType):
            name = value.__name__
        else:
            name = getattr(value, "__module__", None)
        if name in _USERS:
            return True
    return False


def last(items: list[pytest.Item]) -> None:
    """While the build runs ahead (``FLAG``), move every file holding a test that
    uses FalkorDB after the others, keeping the order within each group (the same
    order on every worker: it depends only on the collected items)."""
    if not os.environ.get(FLAG):
        return
    late = {item.path for item in items if _uses_falkordb(item)}
    items.sort(key=lambda item: item.path in late)
