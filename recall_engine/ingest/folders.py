"""Which files of a folder remember() reads, and which it leaves unread and why."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from recall_engine.core.inputs import system_folder


@dataclass(frozen=True)
class UnreadFile:
    """A file a folder walk found and did not read, and why (``"unsupported type '.pdf'"``)."""

    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path} ({self.reason})"


def walk(
    folder: Path, skip: tuple[Path, ...], *, suffixes: tuple[str, ...]
) -> tuple[list[Path], list[UnreadFile], int]:
    """The files of ``folder`` to read (sorted), the files left unread with why,
    and how many hidden entries were left out. Links to folders are not followed
    (no loops); a subfolder that cannot be listed raises instead of being passed over.

    Raises:
        OSError: a folder that cannot be listed.
    """
    files: list[Path] = []
    unread: list[UnreadFile] = []
    hidden = 0
    if inside(folder, skip):
        return files, unread, hidden
    for root, folders, names in os.walk(folder, onerror=_raise):
        here = Path(root)
        kept = []
        for name in folders:
            sub = here / name
            if name.startswith("."):
                hidden += 1
            elif inside(sub, skip):
                continue
            elif sub.is_symlink():
                unread.append(UnreadFile(sub, "a link to a folder, not followed"))
            else:
                kept.append(name)
        folders[:] = kept  # os.walk descends into these only
        for name in names:
            file = here / name
            if name.startswith("."):
                hidden += 1
            elif not inside(file, skip):
                reason = _unreadable(file, suffixes)
                if reason is None:
                    files.append(file)
                else:
                    unread.append(UnreadFile(file, reason))
    return sorted(files), sorted(unread, key=lambda u: u.path), hidden


def _raise(exc: OSError) -> None:
    raise exc


def _unreadable(file: Path, suffixes: tuple[str, ...]) -> str | None:
    """Why a file found in a folder cannot be read; None when it can."""
    suffix = file.suffix.lower()
    if suffix not in suffixes:
        return f"unsupported type {suffix!r}" if suffix else "no file extension"
    system = system_folder(file)
    if system is not None:
        return f"a link into the system folder {system}"
    try:
        mode = file.stat().st_mode  # follows links
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a loop of links"
        if exc.errno != errno.ENOENT:
            raise
        return "a broken link" if file.is_symlink() else "gone before it was read"
    return None if stat.S_ISREG(mode) else file_kind(mode)


def resolved(path: Path) -> Path:
    """``path`` with ``~`` expanded and links followed; absolute where it cannot be resolved."""
    try:
        return Path(path).expanduser().resolve()
    except (OSError, RuntimeError):
        return Path(path).absolute()


def inside(path: Path, folders: tuple[Path, ...]) -> bool:
    """Whether ``path``, links followed, is one of ``folders`` (resolved) or lies in one."""
    if not folders:
        return False
    target = resolved(path)
    return any(target == f or f in target.parents for f in folders)


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, from its ``st_mode``."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"
