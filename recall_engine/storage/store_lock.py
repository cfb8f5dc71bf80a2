"""Who holds a data dir: one process at a time opens it.

Kuzu lets one process open a graph read-write, the identity, tenant and
session SQLite files take writes from anyone, and each process keeps its own
in-memory indexes; two processes on one data dir would disagree or corrupt it.
So an engine takes an exclusive ``flock`` on the data dir itself (a directory
descriptor) when it opens and keeps it for its life. The kernel drops the lock
when the process dies, so a crash never leaves a stale lock. Engines of one
process on the same data dir share the hold (counted); the last ``release``
drops it.

The holder names itself in ``holder.json`` in the data dir (pid, host, start
time and program name, never the command line, which may hold keys; mode
0600), so that the ``StoreLockedError`` another process gets says whom to stop.
The file is removed when the hold is released (engine close, or at exit).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import json
import os
import re
import socket
import sys
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from recall_engine.core.errors import ConfigError, StoreError, StoreLockedError

HOLDER_FILE = "holder.json"
REMEDY = (
    "One process at a time may open a data dir: stop that process, or run "
    "`recall-engine serve` as the one process and reach it with the same Python API "
    "through `RecallEngine.connect(url, api_key=...)` (or its HTTP API)."
)


@dataclass
class _Hold:
    fd: int
    holder: Path
    count: int


_HELD: dict[tuple[int, int], _Hold] = {}
_HELD_LOCK = threading.Lock()


class DataDirHold:
    """One engine's share of this process's hold on a data dir."""

    def __init__(self, key: tuple[int, int]) -> None:
        self._key: tuple[int, int] | None = key

    def release(self) -> None:
        """Give the share back; the last one unlocks the data dir (idempotent)."""
        with _HELD_LOCK:
            key, self._key = self._key, None
            hold = _HELD.get(key) if key is not None else None
            if key is None or hold is None:
                return
            hold.count -= 1
            if hold.count == 0:
                del _HELD[key]
                _unlock(hold)


def hold_data_dir(data_dir: Path) -> DataDirHold:
    """Hold ``data_dir`` (created when missing) for this process.

    Raises:
        StoreLockedError: another live process holds it (the message names its pid).
        ConfigError: the folder cannot be created, opened or locked.
    """
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(data_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise ConfigError(
            f"data_dir {data_dir} cannot hold the store: {exc.strerror or exc}. Pass a "
            "writable folder as data_dir (or $RECALL_ENGINE_DATA_DIR)."
        ) from exc
    with _HELD_LOCK:
        stat = os.fstat(fd)
        key = (stat.st_dev, stat.st_ino)
        hold = _HELD.get(key)
        if hold is not None:  # another engine of this process holds it already
            os.close(fd)
            hold.count += 1
            return DataDirHold(key)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise locked_error(read_holder(data_dir)) from None
            raise ConfigError(
                f"data_dir {data_dir} cannot be locked ({exc.strerror or exc}); put it on a "
                "local filesystem."
            ) from exc
        hold = _HELD[key] = _Hold(fd, data_dir / HOLDER_FILE, 1)
        _write_holder(hold.holder)
        return DataDirHold(key)


class Holder(TypedDict):
    """The process that holds a data dir, as its holder file records it."""

    pid: int
    host: str
    since: str
    program: str


def holder_info() -> Holder:
    """What this process records about itself: nothing from its command line."""
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "since": datetime.now(UTC).isoformat(timespec="seconds"),
        "program": _program(),
    }


def _program() -> str:
    """The program's name: the ``-m`` module or the script's file name, no arguments."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    name = getattr(spec, "name", None) or ""
    if name:
        name = name.removesuffix(".__main__")
    elif sys.argv and sys.argv[0] not in ("", "-c", "-"):
        name = os.path.basename(sys.argv[0])
    return name[:80] or "python"


def _write_holder(target: Path) -> None:
    """Name this process in ``target`` (a hint for others, never a reason to fail)."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(holder_info(), out)
        os.replace(tmp, target)


def _unlock(hold: _Hold) -> None:
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        if int(json.loads(hold.holder.read_text(encoding="utf-8"))["pid"]) == os.getpid():
            hold.holder.unlink()
    with contextlib.suppress(OSError):
        os.close(hold.fd)  # closing the last descriptor drops the flock


@atexit.register
def _release_all() -> None:
    with _HELD_LOCK:
        holds = list(_HELD.values())
        _HELD.clear()
    for hold in holds:
        _unlock(hold)


def read_holder(data_dir: Path) -> Holder | None:
    """The live process named in ``data_dir``'s holder file, or None when unknown."""
    try:
        info = json.loads((data_dir / HOLDER_FILE).read_text(encoding="utf-8"))
        pid = int(info["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    same_host = info.get("host") == socket.gethostname()
    if same_host and not _alive(pid):
        return None
    return {
        "pid": pid,
        "host": str(info.get("host", "")),
        "since": str(info.get("since", "")),
        "program": str(info.get("program", ""))[:80],
    }


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by another user
        return True
    return True


def locked_error(holder: Holder | None) -> StoreLockedError:
    """The error for a data dir another process holds: its pid and the remedy, on one
    line, with no path (the message may reach an HTTP client)."""
    who = "another process"
    if holder is not None:
        details = [holder["program"]] if holder.get("program") else []
        if holder.get("host") and holder["host"] != socket.gethostname():
            details.append(f"on host {holder['host']}")
        if holder.get("since"):
            details.append(f"since {holder['since']}")
        who = f"process {holder['pid']}" + (f" ({', '.join(details)})" if details else "")
    return StoreLockedError(f"The data dir is in use by {who}. {REMEDY}")


_FILE_VERSION = re.compile(
    r"different version\. Database file version: (?P<file>\d+), "
    r"Current build storage version: (?P<build>\d+)"
)
"""Kuzu's words when a database file is of another storage version."""


def open_error(graph_path: Path, exc: Exception) -> StoreError:
    """A Kuzu open failure as a library error, without the server's paths.

    This process holds the data dir, so a Kuzu lock means a program outside
    recall-engine (a Kuzu shell, a copy of the files in use) has the graph open.
    """
    tenant = graph_path.parent.name
    version = _FILE_VERSION.search(str(exc))
    if version is not None:
        import kuzu

        return StoreError(
            f"The graph of tenant {tenant!r} was written by another version of Kuzu (its "
            f"storage version {version['file']}; the installed kuzu {kuzu.__version__} reads "
            f"{version['build']}). Kuzu reads only its own storage version: install the kuzu "
            "release that wrote it, or remember() the data again into a new data dir. "
            "Nothing was changed."
        )
    if "lock" in str(exc).lower():
        return StoreLockedError(
            f"The graph of tenant {tenant!r} is locked by a program outside recall-engine "
            "(a Kuzu shell, or a process that opened the files directly): close it."
        )
    return StoreError(
        f"Could not open the graph of tenant {tenant!r} ({type(exc).__name__}; the cause is "
        "chained to this error): check that the data dir's files are readable and writable."
    )
