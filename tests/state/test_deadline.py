"""The watchdog that bounds a driver's wait on a socket (``state.deadline``)."""

from __future__ import annotations

import socket
import threading

from recall_engine.state.deadline import Watchdog


def test_a_call_past_its_deadline_reads_end_of_file() -> None:
    dog = Watchdog("test")
    a, b = socket.socketpair()
    try:
        with dog.guard(a.fileno(), 0.1) as guard:
            assert a.recv(1) == b""  # the peer never writes: only the cut ends this
        assert guard.expired
    finally:
        dog.close()
        a.close()
        b.close()


def test_a_call_that_ends_in_time_leaves_the_socket_as_it_was() -> None:
    dog = Watchdog("test")
    a, b = socket.socketpair()
    try:
        with dog.guard(a.fileno(), 0.2) as guard:
            b.sendall(b"x")
            assert a.recv(1) == b"x"
        threading.Event().wait(0.4)  # past the deadline of the finished call
        assert not guard.expired
        b.sendall(b"y")
        assert a.recv(1) == b"y"
    finally:
        dog.close()
        a.close()
        b.close()


def test_a_number_closed_and_given_to_another_socket_is_not_cut() -> None:
    dog = Watchdog("test")
    a, b = socket.socketpair()
    with dog.guard(a.fileno(), 0.2) as guard:
        a.close()  # the driver dropped the connection itself
        c, d = socket.socketpair()  # which may take the same number
        threading.Event().wait(0.4)
    try:
        assert not guard.expired
        d.sendall(b"z")
        assert c.recv(1) == b"z"
    finally:
        dog.close()
        for sock in (b, c, d):
            sock.close()
