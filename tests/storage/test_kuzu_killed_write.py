"""A process killed while its ingest writes the Kuzu graph leaves a data dir that
opens again, at its last finished write, with nothing of the killed ingest visible
(``storage.kuzu_wal``); remembering the same data again then stores it."""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SYLLABLES = ("ka", "lo", "mi", "ren", "tas", "vo", "zel", "dra", "bin", "quo", "fen", "sul")

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from recall_engine import RecallEngine
    from recall_engine.storage import kuzu_graph
    from recall_engine.testing import DeterministicEmbedder

    write = kuzu_graph.KuzuGraphStore.write_ingest
    def announced(self, *args, **kwargs):
        print("writing the graph", flush=True)
        return write(self, *args, **kwargs)
    kuzu_graph.KuzuGraphStore.write_ingest = announced

    async def main():
        engine = RecallEngine(sys.argv[1], embedder=DeterministicEmbedder())
        await engine.remember(Path(sys.argv[2]), dataset_name="docs")
        print("done", flush=True)
        engine.close()
    asyncio.run(main())
    """
)

CHECK = textwrap.dedent(
    """
    import asyncio, json, sys
    from recall_engine import RecallEngine
    from recall_engine.testing import DeterministicEmbedder

    async def main():
        engine = RecallEngine(sys.argv[1], embedder=DeterministicEmbedder())
        store = engine.store()
        items = await engine.list_items()
        chunks = store.graph.execute("MATCH (c:Chunk) RETURN count(c)")[0][0]
        rows = len(store.vectors.load_chunks()[0])
        print(json.dumps({"items": len(items), "chunks": chunks, "rows": rows}))
        engine.close()
    asyncio.run(main())
    """
)


def _folder(path: Path, count: int, *, chars: int = 8000) -> Path:
    """``count`` documents of about ``chars`` characters of generated sentences (names,
    places, years and project numbers, so the graph gets many entities and relations)."""
    rnd = random.Random(7)
    path.mkdir(parents=True)
    for n in range(count):
        sentences = [f"Document {n:04d} starts here."]
        while sum(map(len, sentences)) < chars:
            name, place = (
                "".join(rnd.choice(SYLLABLES) for _ in range(rnd.randint(2, 3))).capitalize()
                for _ in range(2)
            )
            sentences.append(
                f"{name} moved to {place} in {rnd.randint(1990, 2024)} and worked on "
                f"project w{rnd.randint(0, 99999)}."
            )
        (path / f"doc{n:04d}.txt").write_text(" ".join(sentences), encoding="utf-8")
    return path


def _run(script: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _remember(script: Path, data: Path, folder: Path, *, kill_after_s: float | None) -> float:
    """Remember ``folder`` into ``data`` in a child process, killed ``kill_after_s`` into
    its graph write (None: let it finish); the seconds its graph write took (or was
    given; 0 when there was nothing new to write)."""
    child = subprocess.Popen(
        [sys.executable, str(script), str(data), str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert child.stdout is not None
    started = None
    for line in child.stdout:
        if "writing the graph" in line:
            started = time.perf_counter()
            if kill_after_s is not None:
                time.sleep(kill_after_s)
                child.send_signal(signal.SIGKILL)
                break
    child.wait(timeout=300)
    assert kill_after_s is not None or child.returncode == 0
    return 0.0 if started is None else time.perf_counter() - started


def test_a_store_killed_during_its_graph_write_opens_again(tmp_path: Path) -> None:
    writer, check = tmp_path / "writer.py", tmp_path / "check.py"
    writer.write_text(WRITER, encoding="utf-8")
    check.write_text(CHECK, encoding="utf-8")
    every = _folder(tmp_path / "every", 300)
    half = tmp_path / "half"
    half.mkdir()
    for doc in sorted(every.iterdir())[:150]:
        shutil.copy(doc, half / doc.name)
    base = tmp_path / "base"
    took = _remember(writer, base, half, kill_after_s=None)  # about as long as the next
    assert took > 0
    for share in (0.3, 0.5, 0.7, 0.85, 0.95):
        data = tmp_path / f"killed-{share}"
        shutil.copytree(base, data)
        _remember(writer, data, every, kill_after_s=share * took)
        opened = _run(check, data)
        assert opened.returncode == 0, (share, opened.returncode, opened.stderr[-2000:])
        after = json.loads(opened.stdout)
        assert after["items"] in (150, 300), (share, after)  # all of the ingest or none
        assert after["chunks"] == after["rows"], (share, after)
        _remember(writer, data, every, kill_after_s=None)  # and it can be remembered again
        assert json.loads(_run(check, data).stdout)["items"] == 300
