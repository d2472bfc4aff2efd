"""The socket listener on its own, with real unix sockets and tiny limits: idle connections time
out, a request longer than the bound is refused unread, the oldest idle connection makes room,
and connections being answered (or still young) hold newcomers in the backlog."""

from __future__ import annotations

import queue
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from monodex.scheduler.listener import Listener

from monodex.disk import paths

Got = queue.Queue[tuple[socket.socket, bytes | None]]


@pytest.fixture
def listen() -> Iterator[object]:
    made: list[Listener] = []

    def make(**limits: float) -> tuple[Path, Listener, Got]:
        path = paths.resolve().runtime_dir / f"l{len(made)}.sock"
        path.parent.mkdir(parents=True, exist_ok=True)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(path))
        sock.listen(64)
        got: Got = queue.Queue()
        kw = {"max_request": 100, "idle_timeout": 30.0, "max_open": 100, **limits}
        lst = Listener(
            sock,
            lambda conn, line: got.put((conn, line)),
            max_request=int(kw["max_request"]),
            idle_timeout=kw["idle_timeout"],
            max_open=int(kw["max_open"]),
            evict_after=kw.get("evict_after", 1.0),
        )
        lst.start()
        made.append(lst)
        return path, lst, got

    yield make
    for lst in made:
        lst.close()


def _client(path: Path, data: bytes = b"") -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(str(path))
    if data:
        s.sendall(data)
    return s


def test_a_request_line_is_handed_on_and_an_idle_connection_times_out(listen) -> None:  # type: ignore[no-untyped-def]
    path, lst, got = listen(idle_timeout=0.3)
    idle = _client(path)
    with _client(path, b'{"op": "ping"}\nignored') as c:
        conn, line = got.get(timeout=10)
        assert line == b'{"op": "ping"}'
        conn.sendall(b"answer\n")
        conn.close()
        lst.finished()
        assert c.recv(100) == b"answer\n"
    assert idle.recv(100) == b""  # closed by the listener after idle_timeout
    idle.close()


def test_a_line_longer_than_the_bound_is_refused_unread(listen) -> None:  # type: ignore[no-untyped-def]
    path, _, got = listen(max_request=100)
    with _client(path, b"x" * 1000):
        conn, line = got.get(timeout=10)
        assert line is None
        conn.close()
    with _client(path, b"y" * 100 + b"\n"):  # exactly the bound is fine
        conn, line = got.get(timeout=10)
        assert line == b"y" * 100
        conn.close()


def test_the_oldest_idle_connection_makes_room_for_a_new_one(listen) -> None:  # type: ignore[no-untyped-def]
    path, _, got = listen(max_open=3, evict_after=0.3)
    idle = [_client(path) for _ in range(3)]
    with _client(path, b"req\n"):
        conn, line = got.get(timeout=10)
        assert line == b"req"
        conn.close()
    assert idle[0].recv(10) == b""  # dropped
    idle[1].sendall(b"still here\n")
    assert got.get(timeout=10)[1] == b"still here"
    for s in idle:
        s.close()


def test_connections_being_answered_keep_newcomers_in_the_backlog(listen) -> None:  # type: ignore[no-untyped-def]
    path, lst, got = listen(max_open=2)
    clients = [_client(path, f"r{i}\n".encode()) for i in range(3)]
    first = [got.get(timeout=10), got.get(timeout=10)]
    with pytest.raises(queue.Empty):
        got.get(timeout=0.5)  # the third waits: two are being answered
    first[0][0].close()
    lst.finished()
    assert got.get(timeout=10)[1] == b"r2"
    for s in clients:
        s.close()
