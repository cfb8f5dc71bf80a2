"""Ctrl-C during ``recall-engine remember``: the process stops at once, with status 130
and one line on stderr, and the data dir holds what it held before (and is free)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from recall_engine import RecallEngine, cli
from recall_engine.testing import DeterministicEmbedder

ROOT = Path(__file__).resolve().parents[1]

# The CLI with the deterministic embedder; a batch holding the word HELD waits until
# the file argv[1] exists, so the test knows the ingest is under way when it signals.
DRIVER = """
import pathlib, sys, time
from recall_engine import RecallEngine, cli
from recall_engine.testing import DeterministicEmbedder

class Held(DeterministicEmbedder):
    def embed(self, texts, **kwargs):
        if any("HELD" in text for text in texts):
            print("embedding", file=sys.stderr, flush=True)
            gate = pathlib.Path(sys.argv[1])
            while not gate.exists():
                time.sleep(0.05)
        return super().embed(texts, **kwargs)

opened = RecallEngine.__init__
def init(self, data_dir=None, **kwargs):
    opened(self, data_dir, embedder=Held(), **kwargs)
RecallEngine.__init__ = init
sys.exit(cli.main(sys.argv[2:]))
"""


@pytest.fixture
def fast_engine(monkeypatch):
    original = RecallEngine.__init__

    def init(self, data_dir=None, **kwargs):
        original(self, data_dir, embedder=DeterministicEmbedder(), **kwargs)

    monkeypatch.setattr(RecallEngine, "__init__", init)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_ctrl_c_during_remember_stops_at_once_and_stores_nothing(
    tmp_path, capsys, fast_engine
) -> None:
    data = str(tmp_path / "data")
    assert cli.main(["--data-dir", data, "remember", "Ann lives in Lyon."]) == 0
    before = _items(data, capsys)
    gate = tmp_path / "gate"
    run = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(gate), "--data-dir", data, "remember",
         "HELD Bob lives in Oslo."],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert run.stderr is not None
    assert run.stderr.readline() == "embedding\n", run.communicate()
    run.send_signal(signal.SIGINT)
    try:
        out, err = run.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        gate.touch()  # let the ingest end, so that the process does not linger
        run.communicate(timeout=60)
        pytest.fail("remember went on after Ctrl-C until its ingest was done")
    assert run.returncode == 130 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("interrupted: ") and "Traceback" not in err
    # The data dir is free again and holds what it held before.
    assert _items(data, capsys) == before


def _items(data: str, capsys) -> list[dict[str, object]]:
    capsys.readouterr()
    assert cli.main(["--data-dir", data, "items", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_remember_reads_stdin_before_it_holds_the_data_dir(
    tmp_path, monkeypatch, capsys, fast_engine
) -> None:
    # While it waits for the text (and a Ctrl-C there ends it as usual), another
    # process may use the data dir.
    data = tmp_path / "data"
    held_while_reading = []

    def read() -> bytes:
        held_while_reading.append((data / "holder.json").exists())
        return b"Ann lives in Lyon."

    monkeypatch.setattr("sys.stdin", SimpleNamespace(buffer=SimpleNamespace(read=read)))
    assert cli.main(["--data-dir", str(data), "remember", "-"]) == 0
    assert "1 new" in capsys.readouterr().out
    assert held_while_reading == [False]
