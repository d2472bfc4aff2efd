"""Writing the runner's answers without letting a client that stops reading hold a worker.

A worker used to `sendall` its answer with a 60 s timeout: eight clients asking for a large
answer and never reading it held all eight read workers, and every `labels` or `search` through
the runner waited ~57 s (issue 22). Now a worker writes what the socket takes at once (an answer
that fits its buffer, which is most of them, is done there) and hands the rest to one thread
that writes every remainder without blocking, each until its own deadline, within a bound on
the bytes held for all of them."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from monodex.scheduler.selectloop import SelectLoop

CHUNK = 256 * 1024  # bytes per send(): one slow client's remainder does not hog the thread


class Outgoing:
    """One connection's answer lines, written without blocking by the worker that makes them.
    `write` raises OSError when the client has gone (a handed-over crawl stops for that)."""

    def __init__(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        self.conn = conn
        self.unsent = bytearray()
        self._lock = threading.Lock()  # a crawl's progress and its answer come from two threads

    def write(self, data: bytes, *, droppable: bool = False, max_unsent: int = 64 * 1024) -> None:
        """Queue `data` and send what the socket takes now. A droppable line (progress) is
        skipped while `max_unsent` bytes already wait: a client that does not read needs none."""
        with self._lock:
            if droppable and len(self.unsent) >= max_unsent:
                return
            self.unsent += data
            self._flush()

    def _flush(self) -> None:
        while self.unsent:
            try:
                sent = self.conn.send(self.unsent[:CHUNK])
            except BlockingIOError:
                return
            del self.unsent[:sent]


@dataclass
class _Remainder:
    conn: socket.socket
    data: memoryview
    deadline: float
    size: int


class Sender(SelectLoop):
    """One thread finishing the answers workers could not send at once. Each is dropped (its
    connection closed) at its deadline, or, oldest first, when more than `max_unsent` bytes wait
    in all. `closed(conn)` runs once for every connection handed over, after it is closed."""

    def __init__(self, *, timeout: float, max_unsent: int, closed: Callable[[socket.socket], None]) -> None:
        self.timeout, self.max_unsent, self._closed = timeout, max_unsent, closed
        self._new: list[_Remainder] = []
        self._open: dict[int, _Remainder] = {}  # by descriptor, oldest first
        self._held = 0
        self._lock = threading.Lock()
        super().__init__("monodex-sender")

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stop_loop()
        for r in [*self._open.values(), *self._new]:
            self._finish(r)
        self._open.clear()
        self._new.clear()
        self._close_loop()

    def finish(self, out: Outgoing) -> None:
        """The worker is done with the connection: close it now if all is sent, else hand the
        remainder to this thread (the worker returns at once either way)."""
        if not out.unsent:
            self._finish(_Remainder(out.conn, memoryview(b""), 0.0, 0))
            return
        data = bytes(out.unsent)
        r = _Remainder(out.conn, memoryview(data), time.monotonic() + self.timeout, len(data))
        with self._lock:
            self._new.append(r)
            self._held += r.size
        self._wake()

    @property
    def held(self) -> int:
        """Bytes of answers waiting for their clients to read them."""
        with self._lock:
            return self._held

    def _round(self) -> None:
        with self._lock:
            new, self._new = self._new, []
        for r in new:
            fd = r.conn.fileno()
            self._open[fd] = r
            self._sel.register(r.conn, selectors.EVENT_WRITE, fd)
        self._bound()
        first = min((r.deadline for r in self._open.values()), default=None)
        wait = None if first is None else max(0.0, first - time.monotonic())
        for key, _ in self._sel.select(wait):
            if key.data is None:
                self._woken()
            elif (one := self._open.get(key.data)) is not None:
                self._send(key.data, one)
        now = time.monotonic()
        for fd, r in list(self._open.items()):
            if r.deadline <= now:
                self._drop(fd, "socket.write_timeout")

    def _send(self, fd: int, r: _Remainder) -> None:
        try:
            sent = r.conn.send(r.data[:CHUNK])
        except BlockingIOError:
            return
        except OSError:  # the client went away
            self._drop(fd, "")
            return
        r.data = r.data[sent:]
        with self._lock:
            self._held -= sent
        if not r.data:
            self._drop(fd, "")

    def _bound(self) -> None:
        """Over max_unsent in all: drop the oldest remainders until under it."""
        while self.held > self.max_unsent and self._open:
            self._drop(next(iter(self._open)), "socket.write_evicted")

    def _drop(self, fd: int, event: str) -> None:
        r = self._open.pop(fd)
        self._sel.unregister(r.conn)
        with self._lock:
            self._held -= len(r.data)
        if event:
            self.log.warning(event, unsent=len(r.data), of=r.size)
        self._finish(r)

    def _finish(self, r: _Remainder) -> None:
        with contextlib.suppress(OSError):
            r.conn.shutdown(socket.SHUT_RDWR)
        r.conn.close()
        self._closed(r.conn)
