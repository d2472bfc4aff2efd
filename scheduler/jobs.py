"""The runner's jobs as plain functions: time and the refresh action are passed in, so tests call
them directly (no sleeping until a cron time)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from monodex.scheduler.state import JobState

from monodex.disk import writable
from monodex.errors import Interrupted, MonodexError, UsageError
from monodex.observe import logs
from monodex.runner.spool import Request, Spool
from monodex.schema.crawl import DrainAnswer, Failed, InProgress, RefreshAnswer

__all__ = ["DrainReport", "JobState", "drain"]

Refresh = Callable[[Request], RefreshAnswer]  # refresh one label; returns the crawl summary
_DONE_FIELDS = (
    "mode",
    "files_total",
    "files_reused",
    "files_embedded",
    "files_removed",
    "chunks_embedded",
    "chunks_reused",
    "chunks_pending",
    "seconds",
    "not_refreshed",
)


@dataclass
class DrainReport:
    refreshed: list[RefreshAnswer] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)
    interrupted: InProgress | None = None  # the refresh a stop cut short; its request stays queued

    def as_json(self) -> DrainAnswer:
        return {
            "refreshed": len(self.refreshed),
            "failed": len(self.failed),
            "labels": [r["label"] for r in self.refreshed],
            "errors": self.failed,
            "interrupted": self.interrupted,
        }


def _claim(spool: Spool, now: float) -> tuple[Request, list[Path]] | None:
    try:
        return spool.claim(now)
    except OSError as exc:  # a drain that cannot claim has failed, it did not find nothing to do
        raise MonodexError(
            f"cannot take requests from the spool {spool.root}: {exc}", writable.hint(spool.root)
        ) from exc


def drain(
    spool: Spool,
    refresh: Refresh,
    *,
    now: Callable[[], float] = time.time,
    should_stop: Callable[[], bool] = lambda: False,
    max_labels: int = 50,
    state: JobState | None = None,
) -> DrainReport:
    """Refresh due labels one at a time until the spool has nothing due (or we are asked to stop).
    With state, the refresh in progress is kept in the runner's state file for `status`."""
    log = logs.get("monodex.runner")
    report = DrainReport()
    for _ in range(max_labels):
        if should_stop():
            break
        claimed = _claim(spool, now())
        if claimed is None:
            break
        request, paths = claimed
        if state is not None:
            state.refresh_started(request)
        try:
            summary = refresh(request)
        except (KeyboardInterrupt, Interrupted):
            current = state.refresh_ended() if state is not None else None
            report.interrupted = current or {"label": request.key, "commit": request.commit}
            spool.recover()  # stopping: the label stays resumable, the request stays queued
            log.warning("refresh.interrupted", **report.interrupted)
            break
        except Exception as exc:  # noqa: BLE001 - one label's failure must not stop the runner
            if state is not None:
                state.refresh_ended()
            problem = exc.problem if isinstance(exc, MonodexError) else f"{type(exc).__name__}: {exc}"
            # a usage error (unknown catalog, a commit that does not resolve) will not pass by waiting
            again = spool.fail(
                request, paths, error=problem, now=now(), permanent=isinstance(exc, UsageError)
            )
            attempts = again.attempts if again else request.attempts + 1
            report.failed.append({"label": request.key, "error": problem, "attempts": attempts})
            event = "refresh.failed" if again else "refresh.quarantined"
            log.warning(event, label=request.key, error=problem, attempts=attempts)
            continue
        if state is not None:
            state.refresh_ended()
        spool.ack(paths)
        report.refreshed.append(summary)
        said: Mapping[str, object] = summary
        done = {k: said.get(k) for k in _DONE_FIELDS}
        # the branch's commit when drained (hooks may have queued an older one)
        log.info("refresh.done", label=request.key, commit=said.get("commit", request.commit), **done)
    return report
