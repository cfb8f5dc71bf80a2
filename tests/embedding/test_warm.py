"""A process whose last engine's model load is still running at exit ends cleanly
(``embedding.warm``): the interpreter waits for the warm-up instead of tearing ONNX
Runtime down in the middle of it (which aborted with exit code 134)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# Each asyncio.run opens its own engine (its own ONNX embedder) and recalls the same
# question: the second recall finds the query's vector in the process's cache, so it
# never waits for its engine's warm-up, and the process exits while that load runs.
SCRIPT = textwrap.dedent(
    """
    import asyncio, atexit, sys, threading
    from recall_engine import RecallEngine, SearchType

    def alive_at_exit():
        names = [t.name for t in threading.enumerate() if t.name == "recall-engine-warm-up"]
        print("warm-up threads at exit:", len(names), flush=True)

    atexit.register(alive_at_exit)  # runs after the interpreter joins non-daemon threads

    async def fill(data_dir):
        async with RecallEngine(data_dir) as engine:
            await engine.remember("Pier 4 closes at 6 pm on weekdays.")

    async def one(data_dir):
        async with RecallEngine(data_dir) as engine:
            await engine.recall("When does pier 4 close?", SearchType.CHUNKS)

    data_dir, first = sys.argv[1], sys.argv[2] == "first"
    if first:
        asyncio.run(fill(data_dir))
    asyncio.run(one(data_dir))
    asyncio.run(one(data_dir))
    """
)

RUNS = 3


def test_two_runs_with_a_warm_up_in_flight_exit_cleanly(tmp_path):
    data_dir = str(tmp_path / "data")
    for run in range(RUNS):
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, data_dir, "first" if run == 0 else "again"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, (run, out.returncode, out.stderr[-2000:])
        assert "warm-up threads at exit: 0" in out.stdout, (run, out.stdout, out.stderr[-2000:])
