"""The runner: an APScheduler 3 BlockingScheduler (the only importer of apscheduler) that
drains the spool every few seconds and runs GC and verification nightly. It owns the index for
its whole life (one Session: the Edge shard stays locked, the model warm) and serves the CLI over
a unix socket (server.py). Jobs and handed-over crawls that write take `work_lock` in turn."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC
from typing import Any

from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger
from monodex.indexer.ops import background
from monodex.indexer.session import Session
from monodex.scheduler import jobs
from monodex.scheduler.server import Server

from monodex.disk import writable
from monodex.disk.paths import Paths
from monodex.errors import MonodexError, UsageError
from monodex.observe import logs
from monodex.runner import runnerpid, spool
from monodex.runner.runnerpid import pid_file, running_pid  # noqa: F401 - importable from here too
from monodex.schema.crawl import DrainAnswer, Filled, PollAnswer
from monodex.settings import config
from monodex.settings.config import Schedules


def _cron(expr: str, name: str) -> CronTrigger:
    try:
        return CronTrigger.from_crontab(expr)
    except ValueError as exc:
        raise UsageError(
            f"schedules.{name}: invalid cron expression {expr!r}: {exc}",
            f'fix "schedules": {{"{name}": ...}} in config.json (or --{name}-cron), e.g. "0 3 * * *"',
        ) from exc


FILL_SECONDS = 2.0  # how often the fill job looks for chunks waiting for their vector


class Runner:
    def __init__(self, paths: Paths, schedules: Schedules | None = None) -> None:
        self.paths = paths
        cfg = config.load(paths)
        self.schedules = schedules or cfg.schedules
        self.session = Session(cfg, paths, shared=True)
        self.work_lock = threading.Lock()
        self.stop = threading.Event()
        self._stop_said = threading.Event()  # a signal's "runner.stopping" was logged
        self._ended = threading.Event()  # start() returned: nothing left for a signal to stop
        self.server = Server(self.session, self.work_lock, self.stop)
        self.spool = spool.default(paths.state_dir)
        self.state = jobs.JobState(paths.state_dir / "runner-state.json")
        self.log = logs.get("monodex.runner")
        self._last_failure: dict[str, str] = {}
        self._crashed = False  # requests a crash left claimed were recovered: collect after them
        self._fill_memory: Any = None  # the fill job's writes against the memory ceiling, across rounds
        self.scheduler = BlockingScheduler(job_defaults={"coalesce": True, "max_instances": 1})

    def _timed(self, name: str, fn: Callable[[], Mapping[str, object]], *, hold: bool = True) -> None:
        """Run a job and record its outcome; with hold, under work_lock for its whole run (a
        job that takes the lock only for its writes, like fill, passes hold=False)."""
        started = time.time()
        with self.work_lock if hold else contextlib.nullcontext():
            if hold:
                self.server.busy_with = f"its {name} job"
            result: Mapping[str, object]
            try:
                result = fn()
                outcome = (
                    "interrupted" if result.get("interrupted") else "failed" if result.get("failed") else "ok"
                )
            except MonodexError as exc:
                result, outcome = {"error": exc.problem, "hint": exc.hint}, "failed"
                # an unwritable spool fails every drain (each 2 s): say it once, again when it changes
                level = logging.DEBUG if self._last_failure.get(name) == exc.problem else logging.ERROR
                self._last_failure[name] = exc.problem
                self.log.log(level, "job.failed", job=name, error=exc.problem, hint=exc.hint)
            except Exception as exc:  # noqa: BLE001 - recorded and logged here, the runner stays up
                result, outcome = {"error": f"{type(exc).__name__}: {exc}"}, "failed"
                self.log.exception("job.crashed", job=name)
            finally:
                if hold:
                    self.server.busy_with = ""
        if outcome != "failed" or "error" not in result:
            self._last_failure.pop(name, None)
        try:
            self.state.record(name, outcome=outcome, started=started, finished=time.time(), result=result)
        except OSError as exc:
            hint = writable.hint(self.state.path.parent)
            self.log.error("state.unwritable", path=str(self.state.path), error=str(exc), hint=hint)

    def drain_once(self) -> None:
        if not self.spool.pending():
            return  # the common case, every few seconds: no lock, no state write

        def work() -> DrainAnswer:
            report = jobs.drain(
                self.spool,
                lambda r: background.refresh_label(
                    self.session, r, self.stop, progress=self.state.refresh_progress
                ),
                should_stop=self.stop.is_set,
                state=self.state,
            )
            return report.as_json()

        # No wake of the fill job from here: while APScheduler shuts down it holds its job store
        # lock waiting for this very thread, so a get_job() now would never return.
        self._timed("drain", work)
        if self._crashed and not self.spool.pending() and not self.stop.is_set():
            # A crash leaves what only gc collects (verify reports it as drift until then):
            # collected once the requests it interrupted are served, not at night.
            self._crashed = False
            self._timed("gc", lambda: background.collect_after_crash(self.session))

    def recover(self) -> int:
        """Requests a crashed runner left claimed go back to the queue (at start-up): how many.
        Any means a crash, whose garbage is collected once they are served (drain_once)."""
        recovered = self.spool.recover()
        self._crashed = self._crashed or recovered > 0
        return recovered

    def wake_drain(self) -> None:
        """Run the drain job now (a caller waits for a fresh label), not at its next interval."""
        job = self.scheduler.get_job("drain")
        if job is not None:
            job.modify(next_run_time=_now())

    def fill_once(self) -> None:
        """Phase two, the runner's lowest priority: a round of vectors at a time, and only while
        no refresh is due and no handed-over command waits for the index. The model runs outside
        work_lock and yields between slices of texts; only each round's write takes the lock."""
        if self._should_yield():
            return
        try:
            waiting = background.labels_waiting(self.session)
        except MonodexError:
            return  # the drain job reports what is wrong with the index
        started = time.monotonic()
        filled = 0
        if self._fill_memory is None:
            self._fill_memory = background.fill_memory(self.session)
        for label_id in waiting:
            while not self._should_yield():
                rounds: list[Filled] = []

                def one(lid: str = label_id, out: list[Filled] = rounds) -> Filled:
                    out.append(
                        background.fill_round(
                            self.session,
                            lid,
                            should_stop=self._should_yield,
                            lock=self.work_lock,
                            watch=self._fill_memory,
                        )
                    )
                    return out[-1]

                self._timed("fill", one, hold=False)
                if not rounds:
                    return  # failed: recorded and logged; the next tick tries again
                report = rounds[-1]
                filled += report["filled"]
                rate = filled / max(time.monotonic() - started, 1e-6)
                self.state.fill_progress(label_id, pending=report["pending_after"], rate=rate)
                if not report["pending_after"] or not report["filled"]:
                    break
        if waiting and not self._should_yield():
            self.log.info(
                "fill.done", labels=len(waiting), chunks=filled, seconds=round(time.monotonic() - started, 1)
            )

    def _should_yield(self) -> bool:
        # work_lock held: a refresh or a handed-over write runs; the model would only slow it down
        return (
            self.stop.is_set()
            or self.work_lock.locked()
            or self.server.lock_waiters > 0
            or self.spool.due(time.time())
        )

    def refs_once(self) -> None:
        """At start-up, then every few seconds (schedules.refs_seconds): one `git for-each-ref`
        per catalog; a branch that moved with no hook gets a refresh queued, a new branch a track
        glob matches gets a label queued, a deleted branch's label is marked (and removed after
        the grace period)."""

        def work() -> PollAnswer:
            report = background.poll_branches(self.session, self.spool, now=time.time())
            if any(report[k] for k in ("queued", "created", "marked", "unmarked", "removed")):
                self.log.info("refs.changed", **report)
            return report

        self._timed("refs", work)

    def gc_once(self) -> None:
        def work() -> Mapping[str, object]:
            pruned = self.spool.prune(time.time())  # first: the index's gc may fail, this need not
            return {**background.nightly_gc(self.session), "quarantine_pruned": pruned}

        self._timed("gc", work)

    def verify_once(self) -> None:
        self._timed("verify", lambda: background.nightly_verify(self.session, self.stop))

    def start(self) -> None:
        s = self.schedules
        gc_trigger, verify_trigger = _cron(s.gc, "gc"), _cron(s.verify, "verify")
        # From the first moment: a SIGTERM while the shard or the model loads, or just after the
        # socket listens (systemctl stop, a test's teardown), stops the runner cleanly once its
        # start-up is done, instead of killing it with the shard open (exit -15).
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        # Held from before the shard is taken until after it is released: while it is held, CLIs
        # wait for this runner's socket rather than open the shard themselves.
        with runnerpid.hold(self.paths):
            self._run(gc_trigger, verify_trigger)

    def _run(self, gc_trigger: CronTrigger, verify_trigger: CronTrigger) -> None:
        s = self.schedules
        try:
            self.session.store.info()  # take the shard now: it stays ours until we stop
            self.session.engine.embedder.load()  # the model loaded once, before the first query
            self.server.start()
        except BaseException:
            self.session.close()
            raise
        try:
            recovered = self.recover()
        except OSError as exc:  # still serve searches; each drain records the failure, status shows it
            recovered = 0
            hint = writable.hint(self.spool.root)
            self.log.error("spool.unwritable", path=str(self.spool.root), error=str(exc), hint=hint)
        pruned = self.spool.prune(time.time())  # also at start: a runner restarted daily sees no night
        socket = str(self.server.path)
        self.log.info("runner.started", pid=os.getpid(), recovered=recovered, pruned=pruned, socket=socket)
        try:
            moved = background.queue_model_change(self.session, self.spool)
        except (MonodexError, OSError) as exc:
            moved = []
            self.log.error("model_change.failed", error=str(exc))
        if moved:
            self.log.info("model_change.queued", labels=moved, collection=self.session.qdrant.collection)
        try:
            uncounted = background.queue_uncounted_history(self.session, self.spool)
        except (MonodexError, OSError) as exc:
            uncounted = []
            self.log.error("history.queue_failed", error=str(exc))
        if uncounted:
            self.log.info("history.queued", labels=uncounted)
        # Once now, before the first drain: moves, deletions and new branches while it was down
        # are seen at once (a runner restarted more often than refs_seconds would never look),
        # and the branches' labels are settled before any refresh runs (branchlabels.py).
        self.refs_once()
        self.scheduler.add_job(
            self.drain_once, "interval", seconds=s.drain_seconds, id="drain", next_run_time=None
        )
        # its own pace: a runner that drains hourly (only when asked) still fills behind a refresh
        fill_every = min(s.drain_seconds, FILL_SECONDS)
        self.scheduler.add_job(self.fill_once, "interval", seconds=fill_every, id="fill")
        self.scheduler.add_job(self.refs_once, "interval", seconds=s.refs_seconds, id="refs")
        self.scheduler.add_job(self.gc_once, gc_trigger, id="gc")
        self.scheduler.add_job(self.verify_once, verify_trigger, id="verify")
        self.scheduler.get_job("drain").modify(next_run_time=_now())  # drain at once on start
        self.session.wake = self.wake_drain
        try:
            if not self.stop.is_set():  # else a signal came during start-up: stop now
                self.scheduler.start()
        finally:
            self.server.close()
            self.session.close()
            if self.stop.is_set():  # a signal's "stopping" comes first, from its own thread
                self._stop_said.wait(timeout=2)
            self.log.info("runner.stopped")
            self._ended.set()

    def _on_signal(self, signum: int, _frame: Any) -> None:
        # Runs between any two bytecodes of the main thread, which may hold a lock the work
        # below takes (the server's, the log's): set the flag, do the rest on a thread.
        self.stop.set()
        threading.Thread(target=self._shutdown, args=(signum,), daemon=True).start()

    def _shutdown(self, signum: int) -> None:
        """The scheduler stopped once it runs (a signal during start-up may come before it does;
        if it never starts, this ends when start() returns)."""
        self.log.info("runner.stopping", signal=signum)
        self._stop_said.set()
        self.server.cancel_all()
        while not self.scheduler.running:
            if self._ended.wait(0.05):
                return
        self.scheduler.shutdown(wait=True)


def _now() -> Any:
    from datetime import datetime

    return datetime.now(UTC)
