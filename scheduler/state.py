"""runner-state.json: each job's last outcome and the refresh in progress, for `monodex status`.
Written by the runner only; status reads it (and judges a leftover in-progress record by the pid)."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from monodex.disk import jsonfile, writable
from monodex.observe import logs
from monodex.runner.spool import Request
from monodex.schema.crawl import InProgress

PROGRESS_EVERY_SECONDS = 0.5  # a status poll sees movement; a 47 s refresh costs ~100 small writes


class JobState:
    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self._clock, self._wall = clock, wall
        self._lock = threading.Lock()  # progress arrives from the crawl's threads
        self._current: InProgress | None = None
        self._written = float("-inf")
        self._warned = False

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _update(self, change: Callable[[dict[str, Any]], None]) -> None:
        with self._lock:
            data = self.read()
            change(data)
            jsonfile.write_atomic(self.path, data)

    def record(
        self, job: str, *, outcome: str, started: float, finished: float, result: Mapping[str, object]
    ) -> None:
        """outcome: ok, failed or interrupted (a stop is not a success that refreshed nothing)."""
        entry = {"ok": outcome == "ok", "outcome": outcome, "started_at": started, "finished_at": finished}
        entry["result"] = dict(result)

        def change(data: dict[str, Any]) -> None:
            data[job] = entry
            if job == "drain" and any(result.get(k) for k in ("refreshed", "failed", "interrupted")):
                data["last_productive_drain"] = entry  # most drains find nothing to do
            if job == "drain":
                data.pop("refresh", None)

        self._update(change)

    def refresh_started(self, request: Request) -> None:
        now = self._wall()
        self._current = {
            "label": request.key,
            "commit": request.commit,
            "files_done": 0,
            "files_total": None,  # known once the plan is made and embedding starts
            "chunks_embedded": 0,
            "started_at": now,
            "updated_at": now,
            "pid": os.getpid(),
        }
        self._written = float("-inf")
        self._warned = False
        self._write_current()

    def refresh_progress(self, files: int, total: int, chunks: int, phase: str = "index") -> None:
        """The crawl's progress callback: files embedded of those to embed, throttled to disk."""
        current = self._current
        if current is None:
            return
        first = current["files_total"] is None  # the plan is made: say how much there is to do
        current["files_done"], current["files_total"], current["chunks_embedded"] = files, total, chunks
        current["updated_at"] = self._wall()
        if first or files >= total or self._clock() - self._written >= PROGRESS_EVERY_SECONDS:
            self._write_current()

    def fill_progress(self, label_id: str, *, pending: int, rate: float) -> None:
        """Phase two's pace, after each round: status turns a label's pending chunks into an ETA."""
        record = {
            "label": label_id,
            "pending": pending,
            "chunks_per_second": round(rate, 2),
            "eta_seconds": round(pending / rate, 1) if rate > 0 else None,
            "updated_at": self._wall(),
            "pid": os.getpid(),
        }
        try:
            self._update(lambda data: data.update(filling=record))
        except OSError as exc:
            self._unwritable(exc)

    def refresh_ended(self) -> InProgress | None:
        """Clear the in-progress record; return it (an interrupted refresh keeps it in its job)."""
        current, self._current = self._current, None
        try:
            self._update(lambda data: data.pop("refresh", None))
        except OSError as exc:
            self._unwritable(exc)
        return current

    def _write_current(self) -> None:
        current = dict(self._current or {})
        self._written = self._clock()
        try:
            self._update(lambda data: data.update(refresh=current))
        except OSError as exc:  # status loses its progress line; the refresh itself goes on
            self._unwritable(exc)

    def _unwritable(self, exc: OSError) -> None:
        if not self._warned:  # once per refresh, not on every progress tick
            self._warned = True
            hint = writable.hint(self.path.parent)
            logs.get("monodex.runner").error(
                "state.unwritable", path=str(self.path), error=str(exc), hint=hint
            )
