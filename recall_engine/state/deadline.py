"""Bounded waits on a server's socket: a watchdog that shuts down the socket of a
call that outlasts its deadline.

A driver without a per-call timeout (psycopg waits for a reply for as long as
the socket stays open) blocks forever on a server that stopped answering but
keeps its connections (a hung process, a proxy or network path that drops
packets). Inside ``Watchdog.guard(fileno, timeout_s)`` such a call is cut: once
the deadline passes, the watchdog's thread shuts the socket down, the blocked
read returns end-of-file, and the driver raises its own "connection lost"
error, which the caller reports (``Guard.expired`` says that the deadline was
the cause). The connection is then broken and its pool discards it.

The socket is identified by its file number and inode, so a number that the
driver closed and the system gave to another socket meanwhile is left alone.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class Guard:
    """One guarded call; ``expired`` is True once the watchdog cut its socket."""

    fileno: int
    inode: tuple[int, int]
    deadline: float
    expired: bool = False


class Watchdog:
    """Cuts the sockets of guarded calls past their deadline; one thread, started
    on first use, serves every call of the owner (a database's connections)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._cond = threading.Condition()
        self._guards: dict[int, Guard] = {}
        self._thread: threading.Thread | None = None
        self._stopped = False

    @contextmanager
    def guard(self, fileno: int, timeout_s: float) -> Iterator[Guard]:
        """Watch the socket ``fileno`` for ``timeout_s`` seconds (the block's span).

        Yields the ``Guard``; a socket that is not open (a negative number, or
        closed) is not watched.
        """
        try:
            stat = os.fstat(fileno)
        except (OSError, ValueError):
            yield Guard(fileno, (0, 0), 0.0)
            return
        entry = Guard(fileno, (stat.st_dev, stat.st_ino), time.monotonic() + timeout_s)
        with self._cond:
            self._guards[id(entry)] = entry
            self._start()
            self._cond.notify()
        try:
            yield entry
        finally:
            with self._cond:
                self._guards.pop(id(entry), None)

    def close(self) -> None:
        """Stop the thread (guards still open are no longer watched)."""
        with self._cond:
            self._stopped = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join()

    def _start(self) -> None:
        if self._thread is None and not self._stopped:
            self._thread = threading.Thread(
                target=self._watch, name=f"{self._name}-deadline", daemon=True
            )
            self._thread.start()

    def _watch(self) -> None:
        with self._cond:
            while not self._stopped:
                now = time.monotonic()
                due = [g for g in self._guards.values() if g.deadline <= now]
                for entry in due:
                    self._guards.pop(id(entry), None)
                    entry.expired = True  # before the cut: the caller reads it once it fails
                    entry.expired = _cut(entry)
                waits = [g.deadline - now for g in self._guards.values()]
                self._cond.wait(min(waits) if waits else None)


def _cut(entry: Guard) -> bool:
    """Shut down ``entry``'s socket, if the number still names it; True when cut."""
    try:
        stat = os.fstat(entry.fileno)
        if (stat.st_dev, stat.st_ino) != entry.inode:
            return False
        copy = os.dup(entry.fileno)
    except OSError:
        return False
    try:
        sock = socket.socket(fileno=copy)
    except OSError:  # not a socket
        os.close(copy)
        return False
    with sock:  # closes the copy, never the driver's own number
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            return False
    return True
