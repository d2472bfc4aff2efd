"""The runner: an APScheduler 3 BlockingScheduler (the only importer of apscheduler) that
drains the spool every few seconds and runs GC and verification nightly."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger
from monodex.scheduler import jobs, refresh

from monodex import logs, spool
from monodex.errors import MonodexError, UsageError
from monodex.paths import Paths


@dataclass(frozen=True)
class Schedules:
    drain_seconds: float = 2.0
    gc_cron: str = "0 3 * * *"
    verify_cron: str = "30 3 * * *"


def pid_file(paths: Paths) -> Any:
    return paths.state_dir / "runner.pid"


def running_pid(paths: Paths) -> int | None:
    """The pid of a live runner, or None (a stale pid file is ignored)."""
    try:
        pid = int(pid_file(paths).read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def _cron(expr: str, name: str) -> CronTrigger:
    try:
        return CronTrigger.from_crontab(expr)
    except ValueError as exc:
        raise UsageError(
            f"schedules.{name}: invalid cron expression {expr!r}: {exc}", 'use five fields, e.g. "0 3 * * *"'
        ) from exc


class Runner:
    def __init__(self, paths: Paths, schedules: Schedules = Schedules()) -> None:
        self.paths = paths
        self.schedules = schedules
        self.stop = threading.Event()
        self.spool = spool.default(paths.state_dir)
        self.state = jobs.JobState(paths.state_dir / "runner-state.json")
        self.log = logs.get("monodex.runner")
        self.scheduler = BlockingScheduler(job_defaults={"coalesce": True, "max_instances": 1})

    def _timed(self, name: str, fn: Callable[[], dict[str, Any]]) -> None:
        started = time.time()
        try:
            result = fn()
            ok = not result.get("failed")
        except MonodexError as exc:
            result, ok = {"error": exc.problem}, False
        self.state.record(name, ok=ok, started=started, finished=time.time(), result=result)

    def drain_once(self) -> None:
        def work() -> dict[str, Any]:
            report = jobs.drain(
                self.spool,
                lambda r: refresh.refresh_label(self.paths, r, self.stop),
                should_stop=self.stop.is_set,
            )
            return report.as_json()

        self._timed("drain", work)

    def start(self) -> None:
        if (pid := running_pid(self.paths)) is not None:
            raise MonodexError(f"a runner is already running (pid {pid})", "see 'monodex status'")
        self.paths.state_dir.mkdir(parents=True, exist_ok=True)
        pid_file(self.paths).write_text(str(os.getpid()))
        recovered = self.spool.recover()
        self.log.info("runner.started", pid=os.getpid(), recovered=recovered)
        s = self.schedules
        self.scheduler.add_job(
            self.drain_once, "interval", seconds=s.drain_seconds, id="drain", next_run_time=None
        )
        self.scheduler.add_job(
            lambda: self._timed("gc", lambda: refresh.collect_garbage(self.paths)),
            _cron(s.gc_cron, "gc"),
            id="gc",
        )
        self.scheduler.add_job(
            lambda: self._timed("verify", lambda: refresh.verify_labels(self.paths, self.stop)),
            _cron(s.verify_cron, "verify"),
            id="verify",
        )
        self.scheduler.get_job("drain").modify(next_run_time=_now())  # drain at once on start
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        try:
            self.scheduler.start()
        finally:
            pid_file(self.paths).unlink(missing_ok=True)
            self.log.info("runner.stopped")

    def _on_signal(self, signum: int, _frame: Any) -> None:
        self.log.info("runner.stopping", signal=signum)
        self.stop.set()
        threading.Thread(target=self.scheduler.shutdown, kwargs={"wait": True}, daemon=True).start()


def _now() -> Any:
    from datetime import datetime

    return datetime.now(UTC)
