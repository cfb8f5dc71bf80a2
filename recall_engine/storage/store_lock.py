"""Who holds a store: the process that opened a tenant's Kuzu graph read-write.

Kuzu lets one process open a database read-write, or several read-only, never
both. The holder names itself in a small file next to the graph, so that the
error another process gets says which process to stop or to go through.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recall_engine.core.errors import StoreError, StoreLockedError

SHARE_HINT = (
    "One process at a time may open a data dir. Stop that process, or share the store "
    "through it: run `recall-engine serve` and use the HTTP API."
)


def holder_path(graph_path: Path) -> Path:
    """The file that names the process holding the graph at ``graph_path``."""
    return graph_path.with_name(graph_path.name + ".holder.json")


def record_holder(graph_path: Path) -> None:
    """Name this process as the holder (a hint for others, never a reason to fail)."""
    info = {
        "pid": os.getpid(),
        "command": " ".join([os.path.basename(sys.executable), *sys.argv])[:500],
        "since": datetime.now(UTC).isoformat(),
    }
    target = holder_path(graph_path)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        tmp.write_text(json.dumps(info), encoding="utf-8")
        tmp.replace(target)


def release_holder(graph_path: Path) -> None:
    """Remove the holder file if this process wrote it."""
    target = holder_path(graph_path)
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        if int(json.loads(target.read_text(encoding="utf-8"))["pid"]) == os.getpid():
            target.unlink()


def lock_holder(graph_path: Path) -> dict[str, Any] | None:
    """The other live process (``pid``, ``command``, ``since``) that recorded
    itself as holding the graph at ``graph_path``; None when there is none."""
    try:
        info = json.loads(holder_path(graph_path).read_text(encoding="utf-8"))
        pid = int(info["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if pid == os.getpid() or not _alive(pid):
        return None
    return {"pid": pid, "command": str(info.get("command", "")), "since": info.get("since")}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by another user
        return True
    return True


def locked_error(store_dir: Path, holder: dict[str, Any] | None) -> StoreLockedError:
    """The error for a store another process holds, naming it when known."""
    who = "another process"
    if holder is not None:
        who = f"process {holder['pid']}"
        if holder.get("command"):
            who += f" ({holder['command'][:200]})"
    return StoreLockedError(f"The store at {store_dir} is in use by {who}. {SHARE_HINT}")


def open_error(graph_path: Path, exc: Exception) -> StoreError:
    """A Kuzu open failure as a library error: a lock names its holder."""
    if "lock" in str(exc).lower():
        return locked_error(graph_path.parent, lock_holder(graph_path))
    return StoreError(f"Could not open the Kuzu graph at {graph_path}: {exc}.")
