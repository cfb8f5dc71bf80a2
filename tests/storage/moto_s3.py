"""A real S3-compatible server for the tests: ``moto.server`` in its own process on
127.0.0.1, started once per test session (per xdist worker) on a free port, with
one bucket, and stopped when the session ends.

Tests keep apart by prefix (``fresh_uri``): moto keeps everything in memory until
the session ends. The secret key is a marker the leak tests look for.
"""

from __future__ import annotations

import atexit
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field

from tests.live_uvicorn import free_port

BUCKET = "recall-engine-test"
SECRET = "s3cr3t-NEVER-SHOWN-4f1d"
ACCESS_KEY = "AKIATESTINGKEY0001"


@dataclass(frozen=True)
class MotoS3:
    endpoint: str
    bucket: str = BUCKET
    options: dict[str, str] = field(default_factory=dict, repr=False)

    def fresh_uri(self) -> str:
        """An ``s3://`` prefix no other test uses."""
        return f"s3://{self.bucket}/{uuid.uuid4().hex[:12]}"


_SERVER: MotoS3 | None = None
_PROC: subprocess.Popen[bytes] | None = None


def server() -> MotoS3:
    """The session's moto server (started on first use, stopped by ``shutdown`` at the
    session's end)."""
    global _SERVER, _PROC
    if _SERVER is None:
        _PROC, _SERVER = start()
        atexit.register(shutdown)  # where the session's end did not run
    return _SERVER


def shutdown() -> None:
    """Stop the session's server, if started (tests/conftest.py calls it at the
    session's end: an xdist worker may be killed before atexit runs)."""
    global _SERVER, _PROC
    proc, _PROC, _SERVER = _PROC, None, None
    if proc is not None:
        stop(proc)


def start() -> tuple[subprocess.Popen[bytes], MotoS3]:
    """A moto server of one's own (the caller stops it with ``stop``)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            request = urllib.request.Request(f"{endpoint}/{BUCKET}", method="PUT")
            urllib.request.urlopen(request, timeout=2).close()
            break
        except urllib.error.HTTPError as exc:
            if exc.code == 409:  # there already
                break
            stop(proc)
            raise
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop(proc)
                raise RuntimeError("moto.server did not start") from None
            time.sleep(0.1)
    options = {
        "endpoint": endpoint,
        "region": "us-east-1",
        "allow_http": "true",
        "aws_access_key_id": ACCESS_KEY,
        "aws_secret_access_key": SECRET,
    }
    return proc, MotoS3(endpoint, options=options)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
