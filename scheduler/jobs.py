"""The runner's jobs as plain functions: time and the refresh action are passed in, so tests call
them directly (no sleeping until a cron time)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monodex.indexer.crawl import Interrupted

from monodex import jsonfile, logs
from monodex.errors import MonodexError
from monodex.spool import Request, Spool

Refresh = Callable[[Request], dict[str, Any]]  # refresh one label; returns the crawl summary


@dataclass
class DrainReport:
    refreshed: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "refreshed": len(self.refreshed),
            "failed": len(self.failed),
            "labels": [r.get("label") for r in self.refreshed],
            "errors": self.failed,
        }


def drain(
    spool: Spool,
    refresh: Refresh,
    *,
    now: Callable[[], float] = time.time,
    should_stop: Callable[[], bool] = lambda: False,
    max_labels: int = 50,
) -> DrainReport:
    """Refresh due labels one at a time until the spool has nothing due (or we are asked to stop)."""
    log = logs.get("monodex.runner")
    report = DrainReport()
    for _ in range(max_labels):
        if should_stop():
            break
        claimed = spool.claim(now())
        if claimed is None:
            break
        request, paths = claimed
        try:
            summary = refresh(request)
        except (KeyboardInterrupt, Interrupted):
            spool.recover()  # stopping: the label stays resumable, the request stays queued
            break
        except Exception as exc:  # noqa: BLE001 - one label's failure must not stop the runner
            problem = exc.problem if isinstance(exc, MonodexError) else f"{type(exc).__name__}: {exc}"
            again = spool.fail(request, paths, error=problem, now=now())
            report.failed.append({"label": request.key, "error": problem, "attempts": again.attempts})
            log.warning("drain.failed", label=request.key, error=problem, attempts=again.attempts)
            continue
        spool.ack(paths)
        report.refreshed.append(summary)
        log.info(
            "drain.refreshed",
            label=request.key,
            commit=summary.get("commit", request.commit),  # the branch's commit when drained
            files_embedded=summary.get("files_embedded"),
            seconds=summary.get("seconds"),
        )
    return report


class JobState:
    """Last outcome of each job, kept in a small JSON file for `monodex status`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def record(self, job: str, *, ok: bool, started: float, finished: float, result: dict[str, Any]) -> None:
        data = self.read()
        data[job] = {"ok": ok, "started_at": started, "finished_at": finished, "result": result}
        if job == "drain" and (result.get("refreshed") or result.get("failed")):
            data["last_productive_drain"] = data[job]  # most drains find nothing to do
        jsonfile.write_atomic(self.path, data)
