"""Folder names for engine names (tenants), one to one on every file system.

Plain functions with no project imports beyond the error tree, so the config,
the stores and the tests derive a tenant's folder the same way.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from pathlib import Path

from recall_engine.core.errors import InvalidInputError

_LITERAL = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_RESERVED_WINDOWS = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{p}{n}" for p in ("com", "lpt") for n in range(1, 10)]
)
MAX_DIR_NAME = 200


def dir_name(name: str) -> str:
    """A folder name for an engine name, one to one and the same on every file system.

    Lowercase ASCII letters, digits, ``_`` and ``-`` (and ``.`` inside the name)
    stay; every other character becomes ``=`` and the hex of its UTF-8 bytes
    (``Acme`` -> ``=41cme``, ``org team`` -> ``org=20team``). The result is plain
    lowercase ASCII, so case-insensitive and Unicode-normalising file systems
    cannot merge two names, and decoding it gives the name back. A Windows device
    name (``con``, ``nul``, ...) has its first letter escaped; a name whose folder
    name would pass 200 characters becomes ``==`` and its SHA-256 (never an
    escaped name, which has no ``==``).
    """
    out = []
    last = len(name) - 1
    for n, char in enumerate(name):
        if char in _LITERAL or (char == "." and 0 < n < last and name[n - 1] != "."):
            out.append(char)
        else:
            out.append("".join(f"={b:02x}" for b in char.encode("utf-8", "surrogatepass")))
    if name.split(".")[0] in _RESERVED_WINDOWS:
        out[0] = f"={ord(name[0]):02x}"
    encoded = "".join(out)
    if len(encoded) > MAX_DIR_NAME:
        return "==" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
    return encoded


def tenant_folder(root: Path, tenant_id: str) -> Path:
    """The folder of a tenant's store under ``root``: ``root/<dir_name(tenant_id)>``,
    or the folder an older version made under the name itself when that one exists.

    Raises:
        InvalidInputError: on a case-insensitive or normalising file system, the
            name would land in the folder of another tenant (made by an older version).
    """
    encoded = dir_name(tenant_id)
    try:
        entries = set(os.listdir(root))
    except OSError:
        return root / encoded
    if encoded in entries:
        return root / encoded
    if tenant_id in entries:  # made before names were encoded: keep reading it
        return root / tenant_id
    folded = encoded.casefold()
    for entry in entries:
        if unicodedata.normalize("NFC", entry).casefold() == folded:
            raise InvalidInputError(
                f"tenant {tenant_id!r} would share the folder {entry!r} of another tenant "
                "on this file system (case-insensitive or normalising); pick another name."
            )
    return root / encoded
