"""Accepting the runner's socket connections and reading their request lines, in one thread.

socketserver gave every connection a thread before its request arrived (1,000 idle connections
made 1,016 threads) and a listen backlog of 5 (a burst of 50 CLIs saw refused connects), issue 12.
Here one selector thread accepts with the kernel's largest backlog and reads each request line
without blocking: at most `max_request` bytes, within `idle_timeout` seconds. Only complete
requests reach the worker threads, so an idle connection costs a file descriptor, not a thread;
past `max_open` connections, one that has sent no whole request for `evict_after` seconds is
dropped for each newcomer (a CLI sends its request at once: it is not one of them)."""

from __future__ import annotations

import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from monodex.scheduler.selectloop import SelectLoop

Received = Callable[[socket.socket, bytes | None], None]  # the line; None when it is too long


@dataclass
class _Pending:
    sock: socket.socket
    since: float
    deadline: float
    buf: bytearray = field(default_factory=bytearray)


class Listener(SelectLoop):
    """Owns a bound, listening socket. `received(conn, line)` runs on this thread and must only
    hand the connection on; whoever takes it closes it and then calls `finished()`."""

    def __init__(
        self,
        sock: socket.socket,
        received: Received,
        *,
        max_request: int,
        idle_timeout: float,
        max_open: int,
        evict_after: float = 1.0,
    ) -> None:
        self._listen = sock
        self._received = received
        self.max_request, self.idle_timeout, self.max_open = max_request, idle_timeout, max_open
        self.evict_after = evict_after
        self._pending: dict[int, _Pending] = {}  # by descriptor, oldest first
        self._handed = 0  # handed on and not finished yet
        self._lock = threading.Lock()
        self._accepting = False
        super().__init__("monodex-socket")

    def start(self) -> None:
        self._listen.setblocking(False)
        self._thread.start()

    def finished(self) -> None:
        """A handed-on connection is closed: room for another."""
        with self._lock:
            self._handed -= 1
        self._wake()

    def close(self) -> None:
        self._stop_loop()
        for p in list(self._pending.values()):
            p.sock.close()
        self._pending.clear()
        self._listen.close()
        self._close_loop()

    def _round(self) -> None:
        self._pace(time.monotonic())
        for key, _ in self._sel.select(self._timeout(time.monotonic())):
            if key.fileobj is self._listen:
                self._accept()
            elif key.fileobj is self._wake_r:
                self._woken()
            elif key.data in self._pending:  # may have been evicted by this round's accept
                self._read(key.data)
        self._expire(time.monotonic())

    def _open(self) -> int:
        with self._lock:
            return self._handed + len(self._pending)

    def _oldest(self) -> _Pending | None:
        return next(iter(self._pending.values()), None)

    def _room(self, now: float) -> bool:
        """Room for a newcomer: under max_open, or an idle connection to drop for it."""
        oldest = self._oldest()
        return self._open() < self.max_open or (oldest is not None and oldest.since + self.evict_after <= now)

    def _timeout(self, now: float) -> float | None:
        oldest = self._oldest()
        if oldest is None:
            return None
        at = oldest.deadline
        if self._open() >= self.max_open and oldest.since + self.evict_after > now:
            at = min(at, oldest.since + self.evict_after)  # it becomes droppable then
        return max(0.0, at - now)

    def _pace(self, now: float) -> None:
        """Accept while there is room; else the kernel's backlog holds newcomers until a worker
        finishes or an idle connection can be dropped."""
        want = self._room(now)
        if want and not self._accepting:
            self._sel.register(self._listen, selectors.EVENT_READ, None)
        elif not want and self._accepting:
            self._sel.unregister(self._listen)
        self._accepting = want

    def _accept(self) -> None:
        for _ in range(64):  # a burst per wake-up, then the reads get their turn
            now = time.monotonic()
            if not self._room(now):
                return
            try:
                conn, _ = self._listen.accept()
            except BlockingIOError:
                return
            except OSError as exc:  # out of descriptors: drop an idle one, or let the backlog wait
                self.log.warning("socket.accept_failed", error=str(exc), open=self._open())
                if self._pending:
                    self._drop(next(iter(self._pending)), "socket.evicted")
                else:
                    time.sleep(0.05)
                return
            if self._open() >= self.max_open:  # only now that a newcomer is really there
                self._drop(next(iter(self._pending)), "socket.evicted")
            conn.setblocking(False)
            fd = conn.fileno()
            self._pending[fd] = _Pending(conn, now, now + self.idle_timeout)
            self._sel.register(conn, selectors.EVENT_READ, fd)

    def _read(self, fd: int) -> None:
        p = self._pending[fd]
        try:
            data = p.sock.recv(min(65536, self.max_request + 1 - len(p.buf)))
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the client gave up before sending a whole request
            self._drop(fd, "")
            return
        start = len(p.buf)
        p.buf += data
        end = p.buf.find(b"\n", start)
        if 0 <= end <= self.max_request:
            self._hand_on(fd, bytes(p.buf[:end]))
        elif len(p.buf) > self.max_request:  # refused without reading (or keeping) the rest
            self._hand_on(fd, None)

    def _hand_on(self, fd: int, line: bytes | None) -> None:
        p = self._pending.pop(fd)
        self._sel.unregister(p.sock)
        p.sock.setblocking(True)
        with self._lock:
            self._handed += 1
        try:
            self._received(p.sock, line)
        except Exception:  # noqa: BLE001 - one bad hand-over must not stop the listener
            self.log.exception("socket.hand_on_failed")
            p.sock.close()
            self.finished()

    def _expire(self, now: float) -> None:
        for fd, p in list(self._pending.items()):
            if p.deadline > now:
                return  # all share one timeout: the rest arrived later
            self._drop(fd, "socket.idle_timeout")

    def _drop(self, fd: int, event: str) -> None:
        p = self._pending.pop(fd)
        self._sel.unregister(p.sock)
        p.sock.close()
        if event:
            self.log.debug(event, received=len(p.buf))
