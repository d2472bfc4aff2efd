"""runner-state.json as a plain object with a frozen clock: the progress of a refresh is written
at most every PROGRESS_EVERY_SECONDS, and its end clears it."""

from __future__ import annotations

import json
from pathlib import Path

from monodex.scheduler.state import PROGRESS_EVERY_SECONDS, JobState

from monodex.runner.spool import Request


def test_refresh_progress_is_throttled_and_cleared(tmp_path: Path) -> None:
    clock = [100.0]
    path = tmp_path / "runner-state.json"
    state = JobState(path, clock=lambda: clock[0], wall=lambda: 5000.0 + clock[0])
    state.refresh_started(Request("acme", "main", "/r", "refs/heads/main", "c" * 40, "cli", created_at=1.0))

    def on_disk() -> dict[str, object]:
        return json.loads(path.read_text())["refresh"]  # type: ignore[no-any-return]

    assert on_disk()["files_total"] is None and on_disk()["started_at"] == 5100.0
    state.refresh_progress(1, 10, 3)
    assert on_disk()["files_done"] == 1  # the first tick after the start is written
    clock[0] += PROGRESS_EVERY_SECONDS / 2
    state.refresh_progress(2, 10, 6)
    assert on_disk()["files_done"] == 1  # too soon
    clock[0] += PROGRESS_EVERY_SECONDS / 2
    state.refresh_progress(3, 10, 9)
    assert on_disk()["files_done"] == 3 and on_disk()["updated_at"] == 5100.0 + PROGRESS_EVERY_SECONDS
    state.refresh_progress(10, 10, 30)  # the last file is always written
    assert on_disk()["files_done"] == 10
    ended = state.refresh_ended()
    assert (
        ended is not None and ended["chunks_embedded"] == 30 and "refresh" not in json.loads(path.read_text())
    )
    state.record("drain", outcome="interrupted", started=1.0, finished=2.0, result={"interrupted": ended})
    data = json.loads(path.read_text())
    assert data["drain"]["ok"] is False and data["last_productive_drain"] == data["drain"]
