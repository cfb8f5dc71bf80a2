"""One process holds a data dir (issue 16, findings 1, 5 and 8): the holder file
names the process only, is private and goes away on close; a second process is
refused at start, before it writes anything, with the holder's pid."""

import json
import os
import socket
import stat
import subprocess
import sys
import textwrap

import pytest

from recall_engine import RecallEngine
from recall_engine.core.errors import StoreLockedError
from recall_engine.storage.store_lock import HOLDER_FILE, hold_data_dir, locked_error
from recall_engine.testing import DeterministicEmbedder


def test_the_holder_file_names_the_process_and_nothing_of_its_command_line(tmp_path):
    data = tmp_path / "data"
    engine = RecallEngine(data, embedder=DeterministicEmbedder())
    try:
        holder = data / HOLDER_FILE
        assert stat.S_IMODE(holder.stat().st_mode) == 0o600
        info = json.loads(holder.read_text())
        assert set(info) == {"pid", "host", "since", "program"}
        assert info["pid"] == os.getpid() and info["host"] == socket.gethostname()
        assert " " not in info["program"] and "/" not in info["program"]
        assert not any(arg in holder.read_text() for arg in sys.argv[1:] if len(arg) > 3)
    finally:
        engine.close()
    assert not holder.exists()


async def test_engines_of_one_process_share_the_hold(tmp_path):
    data = tmp_path / "data"
    first = RecallEngine(data, embedder=DeterministicEmbedder())
    second = RecallEngine(data, embedder=DeterministicEmbedder())
    await first.remember("Ada met Babbage.")
    first.close()
    first.close()  # idempotent: it must not give back the second engine's share
    assert (data / HOLDER_FILE).exists()
    assert "main_dataset" in await second.list_datasets()  # still open, still holding
    second.close()
    assert not (data / HOLDER_FILE).exists()


def test_the_lock_error_has_the_pid_and_a_remedy_on_one_line_without_paths():
    error = locked_error(
        {"pid": 4242, "host": "elsewhere", "since": "2024-01-01T00:00:00+00:00", "program": "x"}
    )
    message = str(error)
    assert isinstance(error, StoreLockedError)
    assert "process 4242" in message and "on host elsewhere" in message
    assert "stop that process" in message and "recall-engine serve" in message
    assert "\n" not in message and "/" not in message
    assert "another process" in str(locked_error(None))


SECOND = textwrap.dedent(
    """
    import asyncio, sys
    from recall_engine import RecallEngine, api
    from recall_engine.core.errors import StoreLockedError
    from recall_engine.testing import DeterministicEmbedder

    def attempt(name, call):
        try:
            call()
        except StoreLockedError as exc:
            print(name, "refused", str(exc), sep="\\t")
        else:
            print(name, "ALLOWED", sep="\\t")

    attempt("engine", lambda: RecallEngine(sys.argv[1], embedder=DeterministicEmbedder()))
    attempt("create_user", lambda: asyncio.run(api.create_user("mallory")))
    attempt("recall", lambda: asyncio.run(api.recall("Ulm")))
    """
)


def _files(root):
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != HOLDER_FILE
    }


async def test_a_second_process_is_refused_at_start_and_writes_nothing(tmp_path):
    data = tmp_path / "data"
    engine = RecallEngine(data, embedder=DeterministicEmbedder())
    try:
        await engine.remember("Einstein was born in Ulm.")
        await engine.users()
        before = _files(data)
        env = {**os.environ, "RECALL_ENGINE_DATA_DIR": str(data)}
        out = subprocess.run(
            [sys.executable, "-c", SECOND, str(data)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr
        rows = dict(line.split("\t", 1) for line in out.stdout.splitlines())
        assert set(rows) == {"engine", "create_user", "recall"}
        for verdict in rows.values():
            assert verdict.startswith("refused\t"), rows
            assert f"process {os.getpid()}" in verdict and str(tmp_path) not in verdict
        cli = subprocess.run(
            [sys.executable, "-m", "recall_engine.cli", "--data-dir", str(data), "datasets"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert cli.returncode == 1 and cli.stdout == ""
        (line,) = cli.stderr.splitlines()
        assert line.startswith(f"error: The data dir is in use by process {os.getpid()} ")
        assert _files(data) == before  # no user, session or store was written
    finally:
        engine.close()


def test_a_data_dir_that_is_a_file_is_a_config_error(tmp_path):
    from recall_engine.core.errors import ConfigError

    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="data_dir"):
        hold_data_dir(tmp_path / "file" / "data")


ATEXIT = textwrap.dedent(
    """
    import sys
    from recall_engine import RecallEngine
    from recall_engine.testing import DeterministicEmbedder
    engine = RecallEngine(sys.argv[1], embedder=DeterministicEmbedder())  # never closed
    print(open(sys.argv[1] + "/holder.json").read())
    """
)


def test_the_holder_file_goes_away_at_exit_without_close(tmp_path):
    data = tmp_path / "data"
    out = subprocess.run(
        [sys.executable, "-c", ATEXIT, str(data)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["program"] == "python"  # `python -c`: no argument recorded
    assert not (data / HOLDER_FILE).exists()


async def test_store_errors_name_the_tenant_not_the_servers_paths(tmp_path):
    from recall_engine.core.errors import EmbeddingModelMismatchError, RecallPreconditionError

    data = tmp_path / "data"
    engine = RecallEngine(data, embedder=DeterministicEmbedder(64))
    with pytest.raises(RecallPreconditionError) as empty:
        await engine.recall("Ulm", "CHUNKS")
    await engine.remember("Einstein was born in Ulm.")
    engine.close()
    other = RecallEngine(data, embedder=DeterministicEmbedder(32))
    try:
        with pytest.raises(EmbeddingModelMismatchError) as mismatch:
            await other.recall("Ulm", "CHUNKS")
    finally:
        other.close()
    for error in (empty.value, mismatch.value):
        assert "tenant 'default'" in str(error)
        assert str(tmp_path) not in str(error)
