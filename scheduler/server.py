"""The runner's unix socket: search, view and labels against the shard and model it keeps open,
and crawls or GC handed over by the CLI (run one at a time with the runner's own jobs).
Wire format: monodex/rpc.py."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import socketserver
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from monodex.indexer import ops
from monodex.indexer.session import Session

from monodex import logs, rpc
from monodex.errors import MonodexError

MAX_PATH = 107  # sun_path holds 108 bytes with the terminating NUL


class _Threaded(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = False


class Server:
    def __init__(self, session: Session, work_lock: threading.Lock, stop: threading.Event) -> None:
        self.session = session
        self.work_lock = work_lock
        self.stop = stop
        self.path: Path = session.paths.socket_path
        self.log = logs.get("monodex.runner")
        self.busy_with = ""  # what holds work_lock, for clients that have to wait
        self._server: _Threaded | None = None
        self._thread: threading.Thread | None = None
        self._cancels: set[threading.Event] = set()
        self._cancels_lock = threading.Lock()

    def start(self) -> None:
        if len(os.fsencode(self.path)) > MAX_PATH:
            raise MonodexError(
                f"the socket path {self.path} is longer than {MAX_PATH} bytes",
                "set XDG_RUNTIME_DIR to a shorter directory",
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(self.path.parent, 0o700)
        if rpc.connect(self.session.paths) is not None:
            raise MonodexError(f"another runner answers on {self.path}", "see 'monodex status'")
        self.path.unlink(missing_ok=True)  # left by a runner that was killed
        handler = _handler_class(self)
        old = os.umask(0o177)  # the socket is created 0600: only this user may query the index
        try:
            self._server = _Threaded(str(self.path), handler)
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        self._thread = threading.Thread(target=self._server.serve_forever, name="monodex-socket", daemon=True)
        self._thread.start()
        self.log.info("socket.listening", path=str(self.path))

    def close(self) -> None:
        self.cancel_all()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self.path.unlink(missing_ok=True)

    def cancel_all(self) -> None:
        with self._cancels_lock:
            for ev in self._cancels:
                ev.set()

    def serve(self, request: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        op, args = request.get("op"), request.get("args") or {}
        if request.get("v") != rpc.VERSION or not isinstance(op, str) or not isinstance(args, dict):
            raise MonodexError(
                "the CLI and the runner speak different protocol versions",
                "restart the runner so both run the installed monodex",
            )
        if op == "ping":
            return {"pid": os.getpid()}
        if op not in ops.WRITES:
            return ops.run(self.session, op, args)
        cancel = threading.Event()
        last = [0.0]

        def progress(files: int, total: int, chunks: int) -> None:
            now = time.monotonic()
            if now - last[0] >= 0.2 or files >= total:
                last[0] = now
                try:
                    send({"progress": [files, total, chunks]})
                except OSError:
                    cancel.set()  # the client went away (Ctrl-C): stop after the current batch

        with self._cancels_lock:
            self._cancels.add(cancel)
        try:
            if self.stop.is_set():
                cancel.set()
            if not self.work_lock.acquire(blocking=False):
                send({"waiting": f"waiting for the runner to finish {self.busy_with or 'its current job'}"})
                self.work_lock.acquire()
            try:
                self.busy_with = f"a {op} handed over by the CLI"
                return ops.run(self.session, op, args, progress, cancel)
            finally:
                self.busy_with = ""
                self.work_lock.release()
        finally:
            with self._cancels_lock:
                self._cancels.discard(cancel)


def _handler_class(server: Server) -> type[socketserver.StreamRequestHandler]:
    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            lock = threading.Lock()

            def send(msg: dict[str, Any]) -> None:
                with lock:
                    self.wfile.write(json.dumps(msg, ensure_ascii=False).encode() + b"\n")
                    self.wfile.flush()

            started = time.perf_counter()
            op = "?"
            try:
                request = json.loads(self.rfile.readline(rpc.MAX_LINE))
                if not isinstance(request, dict):
                    raise ValueError("not a JSON object")
                op = str(request.get("op"))
                answer: dict[str, Any] = {"ok": True, "result": server.serve(request, send)}
            except MonodexError as exc:
                answer = {
                    "ok": False,
                    "error": {"problem": exc.problem, "hint": exc.hint, "exit": exc.exit_code},
                }
            except ValueError as exc:
                problem = f"malformed request to the runner: {exc}"
                answer = {"ok": False, "error": {"problem": problem, "hint": "", "exit": 2}}
            except Exception as exc:  # noqa: BLE001 - one client's crash must not stop the runner
                server.log.exception("socket.failed", op=op)
                answer = {
                    "ok": False,
                    "error": {
                        "problem": f"the runner failed on {op!r}: {type(exc).__name__}: {exc}",
                        "hint": "see the runner log; 'monodex status' shows whether it is still up",
                        "exit": 1,
                    },
                }
            with contextlib.suppress(OSError):
                send(answer)
            ms = round((time.perf_counter() - started) * 1e3, 1)
            server.log.debug("socket.served", op=op, ok=answer["ok"], ms=ms)

    return Handler


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
