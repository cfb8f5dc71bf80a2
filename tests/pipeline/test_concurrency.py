"""recall() during remember(), two processes on one data dir, and crashes mid-ingest."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from recall_engine import Document, RecallEngine, SearchType
from recall_engine.core.errors import StoreLockedError

LEX = SearchType.CHUNKS_LEXICAL


def _big(docs: int, sentences: int, word: str) -> list[Document]:
    return [
        Document(
            text=" ".join(
                f"Record {d}-{i} notes that pump {i} in hall {d} was serviced by the {word} crew."
                for i in range(sentences)
            ),
            title=f"{word}-{d}",
        )
        for d in range(docs)
    ]


async def test_recall_during_remember_never_blocks_and_sees_only_committed_items(
    tmp_path, hash_embedder, monkeypatch
):
    engine = RecallEngine(tmp_path, embedder=hash_embedder, chunk_size=32, chunk_overlap=0)
    try:
        await engine.remember(_big(2, 20, "day"), dataset_name="old")
        store = engine.store()
        committed = threading.Event()
        write_ingest = store.graph.write_ingest

        def tracked(*args, **kwargs):
            out = write_ingest(*args, **kwargs)
            committed.set()  # the Kuzu commit: the moment the new items become visible
            return out

        monkeypatch.setattr(store.graph, "write_ingest", tracked)
        ingest = asyncio.create_task(engine.remember(_big(20, 150, "night"), dataset_name="big"))
        during = 0
        for i in range(50):
            results = await engine.recall(
                "pump serviced night crew", LEX if i % 2 else SearchType.CHUNKS, top_k=20
            )
            assert results  # the old dataset always answers
            if any(r.dataset_name == "big" for r in results):
                assert committed.is_set(), "a chunk of an ingest that had not committed"
            during += not ingest.done()
            await asyncio.sleep(0.01)
        stored = await ingest
        assert stored.chunk_count >= 3000
        # Recalls kept being served while the ingest ran: it never held the loop or
        # the store for its whole length (bench/concurrency.py times the latencies).
        assert during >= 25, f"only {during} of 50 recalls ran while the ingest did"
        results = await engine.recall("night crew", LEX, datasets=["big"], top_k=5)
        assert len(results) == 5
    finally:
        engine.close()


HOLDER = textwrap.dedent(
    """
    import asyncio, sys, time
    from recall_engine import RecallEngine
    from recall_engine.testing import DeterministicEmbedder
    async def main():
        eng = RecallEngine(sys.argv[1], embedder=DeterministicEmbedder())
        await eng.remember("Einstein was born in Ulm.")
        print("ready", flush=True)
        time.sleep(60)
    asyncio.run(main())
    """
)


async def test_a_second_process_gets_a_clear_error_then_opens_after_kill_9(tmp_path, hash_embedder):
    data = tmp_path / "data"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(data)], stdout=subprocess.PIPE,
                              text=True)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError, match=f"in use by process {holder.pid}"):
            RecallEngine(data, embedder=hash_embedder)
        holder.kill()  # SIGKILL: no cleanup runs in the holder, the kernel drops its lock
        holder.wait()
        engine = RecallEngine(data, embedder=hash_embedder)
        (hit,) = await engine.recall("Ulm", LEX)
        assert hit.text == "Einstein was born in Ulm."
        await engine.remember("Einstein worked in Bern.")  # and it writes
        engine.close()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


CRASHER = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from recall_engine import Document, RecallEngine
    from recall_engine.testing import DeterministicEmbedder
    data, mode = sys.argv[1], sys.argv[2]
    DOCS = [Document(text=" ".join(f"Crash note {d}-{i}: the zebra valve {i} leaked."
                                   for i in range(60)), title=f"crash-{d}") for d in range(10)]
    async def main():
        eng = RecallEngine(data, embedder=DeterministicEmbedder(), chunk_size=32, chunk_overlap=0)
        await eng.remember("Einstein was born in Ulm.")
        store = eng.store()
        if mode == "before_commit":
            def die(*args, **kwargs):  # the vectors are written, the graph commit is next
                os.kill(os.getpid(), signal.SIGKILL)
            store.graph.write_ingest = die
        print("ingesting", flush=True)
        await eng.remember(DOCS, dataset_name="crash")
        print("done", flush=True)
    asyncio.run(main())
    """
)


async def _crash_and_recover(tmp_path, embedder, mode: str, delay: float = 0.0) -> int:
    data = tmp_path / "data"
    child = subprocess.Popen([sys.executable, "-c", CRASHER, str(data), mode],
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert child.stdout is not None and child.stdout.readline().strip() == "ingesting"
    if mode == "timed":
        time.sleep(delay)
        child.kill()
    child.wait(timeout=120)
    assert child.returncode != 0 or mode == "timed"
    engine = RecallEngine(data, embedder=embedder, chunk_size=32, chunk_overlap=0)
    try:
        assert len(await engine.recall("Ulm", LEX)) == 1  # the store opens and answers
        seen = len(await engine.recall("zebra valve leaked", LEX, top_k=1000))
        stored = await engine.remember(
            [Document(text=" ".join(f"Crash note {d}-{i}: the zebra valve {i} leaked."
                                    for i in range(60)), title=f"crash-{d}") for d in range(10)],
            dataset_name="crash",
        )  # fmt: skip
        assert len(stored.data_ids) == 10
        full = len(await engine.recall("zebra valve leaked", LEX, top_k=1000))
        assert full == 300  # 10 items of 30 chunks, each once
        assert seen in (0, full), f"{seen} chunks of a half-ingested remember are visible"
        return seen
    finally:
        engine.close()


async def test_a_crash_before_the_commit_leaves_nothing_visible(tmp_path, hash_embedder):
    assert await _crash_and_recover(tmp_path, hash_embedder, "before_commit") == 0


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.05, 0.3, 0.8, 1.5])
async def test_a_kill_9_at_any_moment_of_remember_is_recoverable(tmp_path, hash_embedder, delay):
    await _crash_and_recover(tmp_path, hash_embedder, "timed", delay)
