"""The runner's unix socket: search, view and labels against the shard and model it keeps open,
and crawls or GC handed over by the CLI (run one at a time with the runner's own jobs).
Wire format: monodex/runner/rpc.py; each request is checked through the monodex/requests/ types the
CLI and MCP build, so a socket client gets the same errors. Connections are accepted and their
requests read by listener.py; a fixed set of worker threads answers them (reads and writes apart,
so queued crawls never hold up a search)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from monodex.indexer.ops import answers
from monodex.indexer.session import Session
from monodex.scheduler.listener import Listener
from monodex.scheduler.sender import Outgoing, Sender

from monodex import requests
from monodex.errors import MonodexError, UsageError
from monodex.observe import logs
from monodex.observe.progress import OnProgress
from monodex.runner import rpc
from monodex.schema.wire import Answer, to_json

MAX_PATH = 107  # sun_path holds 108 bytes with the terminating NUL
READ_WORKERS = 8  # searches embed their query: more threads than cores buys nothing
WRITE_WORKERS = 4  # handed-over crawls and GC mostly wait for work_lock
WORKERS = READ_WORKERS + WRITE_WORKERS  # the runner's socket threads, however many connect
IDLE_TIMEOUT = 10.0  # to send the request line; the CLI sends it at once
MAX_OPEN = 512  # connections held at once; the soft descriptor limit is often 1,024
WRITE_TIMEOUT = 60.0  # a client that stops reading its answer is dropped then (no worker waits)
MAX_UNSENT = 256 * 1024 * 1024  # answers held for clients slow to read them, in all


class _Workers:
    """A fixed set of daemon threads: a client stuck mid-answer never holds up the runner's exit."""

    def __init__(self, n: int, name: str) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True) for i in range(n)
        ]
        for t in self._threads:
            t.start()

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def close(self) -> None:
        for _ in self._threads:
            self._jobs.put(None)

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            job()


class Server:
    def __init__(self, session: Session, work_lock: threading.Lock, stop: threading.Event) -> None:
        self.session = session
        self.work_lock = work_lock
        self.stop = stop
        self.path: Path = session.paths.socket_path
        self.log = logs.get("monodex.runner")
        self.busy_with = ""  # what holds work_lock, for clients that have to wait
        self.lock_waiters = 0  # handed-over writes waiting for work_lock (the fill job yields)
        self._waiters_lock = threading.Lock()
        self._listener: Listener | None = None
        self._reads: _Workers | None = None
        self._writes: _Workers | None = None
        self._sender: Sender | None = None
        self._cancels: set[threading.Event] = set()
        self._cancels_lock = threading.Lock()

    def _waiting(self, change: int) -> None:
        with self._waiters_lock:
            self.lock_waiters += change

    def start(self) -> None:
        if len(os.fsencode(self.path)) > MAX_PATH:
            raise MonodexError(
                f"the socket path {self.path} is longer than {MAX_PATH} bytes",
                "set XDG_RUNTIME_DIR to a shorter directory",
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.path.parent, 0o700)
        if (other := rpc.attempt(self.path)) is not None:
            other.close()
            raise MonodexError(f"another runner answers on {self.path}", "see 'monodex status'")
        self.path.unlink(missing_ok=True)  # left by a runner that was killed
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is created 0600: only this user may query the index
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        sock.listen(socket.SOMAXCONN)  # a burst of CLIs waits here instead of being refused
        self._sender = Sender(timeout=WRITE_TIMEOUT, max_unsent=MAX_UNSENT, closed=self._closed)
        self._sender.start()
        self._reads = _Workers(READ_WORKERS, "monodex-read")
        self._writes = _Workers(WRITE_WORKERS, "monodex-write")
        self._listener = Listener(
            sock, self._received, max_request=rpc.MAX_REQUEST, idle_timeout=IDLE_TIMEOUT, max_open=MAX_OPEN
        )
        self._listener.start()
        self.log.info("socket.listening", path=str(self.path))

    def close(self) -> None:
        self.cancel_all()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        for workers in (self._reads, self._writes):
            if workers is not None:
                workers.close()
        if self._sender is not None:
            self._sender.close()
            self._sender = None
        self.path.unlink(missing_ok=True)

    def _closed(self, conn: socket.socket) -> None:
        if (listener := self._listener) is not None:
            listener.finished()

    def cancel_all(self) -> None:
        with self._cancels_lock:
            for ev in self._cancels:
                ev.set()

    def _received(self, conn: socket.socket, line: bytes | None) -> None:
        """On the listener's thread: parse (at most MAX_REQUEST bytes) and queue for a worker."""
        request: dict[str, object] | Exception
        try:
            request = _parse(line)
        except (ValueError, MonodexError) as exc:
            request = exc
        kind = requests.TYPES.get(str(request.get("op"))) if isinstance(request, dict) else None
        write = kind is not None and kind.WRITES
        assert self._reads is not None and self._writes is not None
        (self._writes if write else self._reads).submit(lambda: self._answer(conn, request))

    def _answer(self, conn: socket.socket, request: dict[str, object] | Exception) -> None:
        """On a worker: the answer is written without blocking; what the client does not take at
        once is left to the sender thread, so a client that stops reading holds no worker."""
        out = Outgoing(conn)

        def send(msg: dict[str, Any]) -> None:  # progress and waiting lines of a handed-over write
            out.write(_line(msg), droppable="progress" in msg)

        started = time.perf_counter()
        op = str(request.get("op")) if isinstance(request, dict) else "?"
        answer: rpc.Reply = {"ok": False}
        try:
            answer = self._outcome(request, send, op)
            with contextlib.suppress(OSError):
                out.write(_line(answer))
        finally:
            if (sender := self._sender) is not None:
                sender.finish(out)
            else:  # the runner is shutting down
                conn.close()
        ms = round((time.perf_counter() - started) * 1e3, 1)
        self.log.debug("socket.served", op=op, ok=answer["ok"], ms=ms)

    def _outcome(
        self, request: dict[str, Any] | Exception, send: Callable[[dict[str, Any]], None], op: str
    ) -> rpc.Reply:
        try:
            if isinstance(request, Exception):
                raise request
            return {"ok": True, "result": self.serve(request, send)}
        except MonodexError as exc:
            error: rpc.Failure = {"problem": exc.problem, "hint": exc.hint, "exit": exc.exit_code}
            if isinstance(exc, requests.FieldError):  # the client names the field its own way
                error["field"] = exc.wire()
            return {"ok": False, "error": error}
        except ValueError as exc:
            problem = f"malformed request to the runner: {exc}"
            return {"ok": False, "error": {"problem": problem, "hint": "", "exit": 2}}
        except Exception as exc:  # noqa: BLE001 - one client's crash must not stop the runner
            self.log.exception("socket.failed", op=op)
            return {
                "ok": False,
                "error": {
                    "problem": f"the runner failed on {op!r}: {type(exc).__name__}: {exc}",
                    "hint": "see the runner log; 'monodex status' shows whether it is still up",
                    "exit": 1,
                },
            }

    def serve(self, request: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> Mapping[str, object]:
        op, args = request.get("op"), request.get("args")
        if request.get("v") != rpc.VERSION:
            raise MonodexError(
                "the CLI and the runner speak different protocol versions",
                "restart the runner so both run the installed monodex",
            )
        if not isinstance(op, str):
            raise UsageError(f'"op" must be a string, got {type(op).__name__}', 'send {"v", "op", "args"}')
        if op == "ping":
            return {"pid": os.getpid()}
        typed = requests.parse(op, {} if args is None else args)  # it says what args must be
        if typed.WRITES:
            answers.check(self.session, typed)  # a bad revision is refused now, not after waiting
        cancel = threading.Event()
        progress = _progress(send, cancel)
        with self._cancels_lock:
            self._cancels.add(cancel)
        try:
            if self.stop.is_set():
                cancel.set()
            if not typed.WRITES:  # reads run side by side; a long one (eval) reports progress too
                return answers.run(self.session, typed, progress, cancel)
            return self._write(typed, op, send, progress, cancel)
        finally:
            with self._cancels_lock:
                self._cancels.discard(cancel)

    def _write(
        self,
        typed: requests.Request,
        op: str,
        send: Callable[[dict[str, Any]], None],
        progress: OnProgress,
        cancel: threading.Event,
    ) -> Answer:
        """A write handed over by a client: one at a time, after the runner's current job."""
        if not self.work_lock.acquire(blocking=False):
            send({"waiting": f"waiting for the runner to finish {self.busy_with or 'its current job'}"})
            self._waiting(+1)  # the fill job yields to us after its current round
            try:
                self.work_lock.acquire()
            finally:
                self._waiting(-1)
        try:
            self.busy_with = f"a {op} handed over by the CLI"
            return answers.run(self.session, typed, progress, cancel)
        finally:
            self.busy_with = ""
            self.work_lock.release()


def _progress(send: Callable[[dict[str, Any]], None], cancel: threading.Event) -> OnProgress:
    """Progress lines to the client, at most five a second; a client gone (Ctrl-C) cancels."""
    last = [0.0]

    def progress(files: int, total: int, chunks: int, phase: str) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.2 or files >= total:
            last[0] = now
            try:
                send({"progress": [files, total, chunks, phase]})
            except OSError:
                cancel.set()  # the client went away (Ctrl-C): stop after the current batch

    return progress


def _line(msg: Mapping[str, object]) -> bytes:
    return to_json(msg).encode() + b"\n"


def _parse(line: bytes | None) -> dict[str, object]:
    if line is None:
        raise UsageError(
            f"request too large: no end of line in its first {rpc.MAX_REQUEST:,} bytes "
            f"(max {rpc.MAX_REQUEST:,} bytes)",
            "a request is a few hundred bytes; shorten its arguments (a search text is at most a few KB)",
        )
    try:
        request = json.loads(line)
    except RecursionError:  # answered, not a dropped connection
        raise ValueError("JSON nested too deeply") from None
    if not isinstance(request, dict):
        raise ValueError("not a JSON object")
    return request


def wait_listening(path: Path, timeout: float) -> bool:
    """Tests and benches: until a runner accepts connections on path."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            try:
                s.connect(str(path))
                return True
            except OSError:
                time.sleep(0.05)
    return False
