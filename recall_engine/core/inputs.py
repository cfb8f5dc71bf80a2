"""Limits on raw input that every layer shares: how deep JSON and metadata may nest, and which
folders are system or pseudo-filesystem folders that no store or walk belongs in.

Plain functions with no project imports, so config, ingest and the HTTP server
apply the same rule.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects accepted in a JSON body or file.
Python's JSON decoder overflows its stack near 1,000 levels; real data nests a few."""
MAX_METADATA_DEPTH = 32
"""The deepest nesting of dicts and lists in caller metadata, the metadata dict
itself being level 1 (so metadata fits well inside a ``MAX_JSON_DEPTH`` body)."""

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_STEP = np.zeros(256, dtype=np.int8)
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1

PSEUDO_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))
"""Kernel pseudo-filesystems: their files appear, vanish and block as processes run."""
_SHARED_MEMORY = Path("/dev/shm")


def json_depth(data: bytes | bytearray | str) -> int:
    """How deep arrays and objects nest in JSON text (brackets inside strings do not
    count): a linear scan in C, cheaper than the parse it guards."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    opened = raw.count(b"[") + raw.count(b"{")
    if opened <= 1:
        return opened
    if b'"' in raw:
        raw = _STRING.sub(b'""', raw)
    step = _STEP[np.frombuffer(raw, dtype=np.uint8)]
    return int(np.cumsum(step, dtype=np.int32).max(initial=0))


def system_folder(path: Path) -> Path | None:
    """The system folder ``path`` is (the file-system root) or lies in (``/proc``,
    ``/sys``, ``/dev``), after following links; None for an ordinary path."""
    try:
        resolved = Path(os.path.realpath(path))
    except (OSError, ValueError):
        return None
    if resolved == Path(resolved.anchor):
        return resolved
    if resolved == _SHARED_MEMORY or _SHARED_MEMORY in resolved.parents:
        return None  # a tmpfs for ordinary files, not a pseudo-filesystem
    for folder in PSEUDO_FOLDERS:
        if resolved == folder or folder in resolved.parents:
            return folder
    return None
