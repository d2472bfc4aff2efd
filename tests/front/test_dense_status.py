"""Phase two in `status`: each label's dense coverage, chunks to go, state and ETA (issue 16)."""

from __future__ import annotations

from typing import Any

from monodex.front import render, status


def _row(pending: int, coverage: float) -> dict[str, Any]:
    return {
        "catalog": "rs",
        "label": "main",
        "dense_pending": pending,
        "dense_coverage": coverage,
        "commit_oid": "1a2b3c4d5e6f7a8b",
        "source_kind": "git-commit",
        "crawl_complete": True,
        "freshness": "fresh",
    }


def test_the_eta_comes_from_the_fill_jobs_pace_and_only_while_its_runner_lives() -> None:
    filling = {"label": "rs:main", "chunks_per_second": 30.0, "pid": 42}
    assert status._dense(_row(15870, 0.42), filling, 42) == {
        "coverage": 0.42,
        "pending": 15870,
        "eta_seconds": 529.0,
        "state": "filling",
    }
    other = {**filling, "label": "rs:feature"}
    assert status._dense(_row(300, 0.9), other, 42)["state"] == "queued"
    dead = status._dense(_row(300, 0.9), filling, None)  # a record left by a runner that is gone
    assert dead["state"] == "waiting for the runner" and dead["eta_seconds"] is None
    assert status._dense(_row(0, 1.0), filling, 42)["state"] == "complete"


def test_status_text_names_the_coverage_and_eta_and_says_nothing_once_complete() -> None:
    row = _row(15870, 0.42)
    row["dense"] = status._dense(row, {"label": "rs:main", "chunks_per_second": 30.0, "pid": 42}, 42)
    answer = {
        "runner": {"running": True, "pid": 42, "uptime_seconds": 60.0},
        "refresh": None,
        "spool": {"pending": 0, "claimed": 0, "failed": 0, "errors": [], "quarantined": 0},
        "jobs": {},
        "labels": [row],
    }
    text = render.status(answer)
    assert "rs:main\t1a2b3c4d5e6f\tfresh\tdense vectors 42% (15870 chunks to go, filling, ETA 8m49s;" in text
    row["dense"] = status._dense(_row(0, 1.0), None, 42)
    assert "dense vectors" not in render.status(answer)
