"""One thread around a selector, woken through a socket pair: the shape of the socket's
listener and of its sender. Subclasses define `_round` (one select and what follows)."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time

from monodex.observe import logs


class SelectLoop:
    def __init__(self, name: str) -> None:
        self._wake_r, self._wake_w = socket.socketpair()
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._wake_r, selectors.EVENT_READ, None)  # its key's data is None
        self._stop = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.log = logs.get("monodex.runner")

    def _round(self) -> None:
        raise NotImplementedError

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    def _woken(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_r.recv(4096)

    def _stop_loop(self) -> None:
        """Stop the thread; the caller then closes what it holds and `_close_loop`s."""
        self._stop = True
        self._wake()
        self._thread.join(timeout=10)

    def _close_loop(self) -> None:
        self._sel.close()
        self._wake_r.close()
        self._wake_w.close()

    def _loop(self) -> None:
        while not self._stop:
            try:
                self._round()
            except Exception:  # noqa: BLE001 - a dead loop would leave every client hanging
                self.log.exception("socket.loop_failed", thread=self._thread.name)
                time.sleep(0.1)
