"""The sender finishes answers a worker could not send at once: real socket pairs, a reader
that reads and readers that never do."""

from __future__ import annotations

import socket
import time

from monodex.scheduler.sender import Outgoing, Sender

BIG = b"x" * 4_000_000 + b"\n"  # far more than a unix socket buffers


def _sender(timeout: float, max_unsent: int = 1 << 30) -> tuple[Sender, list[socket.socket]]:
    closed: list[socket.socket] = []
    s = Sender(timeout=timeout, max_unsent=max_unsent, closed=closed.append)
    s.start()
    return s, closed


def _wait(predicate, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not predicate():
        time.sleep(0.01)
    return bool(predicate())


def test_the_worker_returns_at_once_and_a_reading_client_gets_every_byte() -> None:
    sender, closed = _sender(timeout=30)
    server, client = socket.socketpair()
    try:
        out = Outgoing(server)
        started = time.monotonic()
        out.write(BIG)
        sender.finish(out)
        assert time.monotonic() - started < 1.0 and out.unsent  # the rest is the sender's
        got = bytearray()
        while chunk := client.recv(1 << 20):
            got += chunk
        assert bytes(got) == BIG and _wait(lambda: closed == [server]) and sender.held == 0
    finally:
        sender.close()
        client.close()


def test_a_client_that_never_reads_is_dropped_at_its_deadline_and_others_are_served() -> None:
    sender, closed = _sender(timeout=0.5)
    pairs = [socket.socketpair() for _ in range(3)]
    try:
        for server, _ in pairs:
            out = Outgoing(server)
            out.write(BIG)
            sender.finish(out)
        reader_server, reader = socket.socketpair()
        out = Outgoing(reader_server)
        out.write(b"small\n")
        sender.finish(out)  # all sent: closed at once, whatever the others do
        assert reader.recv(100) == b"small\n" and reader_server in closed
        assert _wait(lambda: len(closed) == 4) and sender.held == 0
        assert pairs[0][1].recv(10) == b"xxxxxxxxxx"  # what was buffered, then the end
    finally:
        sender.close()
        for _, c in pairs:
            c.close()


def test_over_the_bound_the_oldest_remainder_is_dropped() -> None:
    sender, closed = _sender(timeout=60, max_unsent=5_000_000)
    first, second = socket.socketpair(), socket.socketpair()
    try:
        for server, _ in (first, second):
            out = Outgoing(server)
            out.write(BIG)
            sender.finish(out)
        assert _wait(lambda: closed == [first[0]]) and 0 < sender.held <= 5_000_000
    finally:
        sender.close()
        for pair in (first, second):
            pair[1].close()


def test_progress_lines_are_dropped_while_a_client_does_not_read() -> None:
    server, client = socket.socketpair()
    out = Outgoing(server)
    out.write(BIG)
    left = len(out.unsent)
    out.write(b'{"progress": [1, 2, 3]}\n', droppable=True)
    assert len(out.unsent) == left  # nothing queued behind a stuck answer
    server.close()
    client.close()
