"""The status answer (CLI `status --json`, the MCP status tool): the runner, the refresh in
progress, the spool, the jobs' last outcomes and each label's freshness.

Light on purpose: with the runner down it lists labels from the shard and reads branch heads
with git itself, loading neither the scheduler, dulwich, tree-sitter nor the model (a test counts
the modules)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any, cast

from monodex import names
from monodex.disk import writable
from monodex.disk.paths import Paths
from monodex.errors import MonodexError, UsageError
from monodex.front import route
from monodex.git.refs import branch_heads, unreadable, worktrees
from monodex.labels import branchlabels, standing
from monodex.observe import crawlstate
from monodex.requests import LabelsRequest
from monodex.runner import spool
from monodex.runner.runnerpid import pid_file, running_pid
from monodex.scheduler.state import JobState
from monodex.schema.status import (
    Checkout,
    Dense,
    Job,
    Refreshing,
    RunningCrawl,
    SpoolState,
    StatusAnswer,
    StatusLabel,
    Unread,
)
from monodex.settings import config


def collect(p: Paths) -> StatusAnswer:
    s = spool.default(p.state_dir)
    pid = running_pid(p)
    uptime = None
    if pid is not None:
        with contextlib.suppress(OSError):
            uptime = round(time.time() - pid_file(p).stat().st_mtime, 1)
    state = JobState(p.state_dir / "runner-state.json").read()
    refresh = _refresh(state.pop("refresh", None), pid)
    filling = state.pop("filling", None)
    crawls = crawlstate.running(p.crawls_dir)
    # Without a runner, a crawl running holds the index: asking it would wait for the lock.
    holder = crawls[0] if crawls and pid is None else None
    found = _labels(p) if holder is None else Unread(error=_held_by(holder))
    labels: list[StatusLabel | Unread]
    if isinstance(found, list):
        running = refresh["label"] if refresh and refresh["state"] == "running" else None
        for row in found:
            row["refreshing"] = running == _key(row)
            row["dense"] = _dense(row, filling, pid)
        labels = [*found]
    else:  # the index could not be read: one row that says why
        labels, found = [{"error": found["error"], "refreshing": False}], []
    return {
        "runner": {
            "running": pid is not None,
            "pid": pid,
            "uptime_seconds": uptime,
            "socket": str(p.socket_path) if pid is not None and p.socket_path.exists() else None,
        },
        "refresh": refresh,
        "crawls": crawls,
        "spool": _spool(s),
        "problems": writable.problems(
            [p.state_dir, p.log_dir, s.root, s.new, s.claimed, s.quarantine, s.tmp]
        ),
        "labels": labels,
        "worktrees": _worktrees(p, found),
        "jobs": cast(dict[str, Job], state),  # what the runner recorded (scheduler/state.py)
    }


def _held_by(crawl: RunningCrawl) -> str:
    return (
        f"the index is in use by the crawl of {crawl.get('catalog')}:{crawl.get('label')} "
        f"(pid {crawl.get('pid')}, see above): labels are listed once it ends"
    )


def _labels(p: Paths) -> list[StatusLabel] | Unread:
    """The labels answer, each row given its freshness against its branch (in place: the keys
    follow the row's own), or why the index could not be read."""
    cfg = config.load(p)
    try:
        rows = [cast(StatusLabel, row) for row in route.execute(p, LabelsRequest(), quiet=True)["labels"]]
    except MonodexError as exc:
        return {"error": exc.problem}
    heads: dict[str, dict[str, str] | None] = {}
    owners: dict[str, branchlabels.BranchLabels] = {}
    for row in rows:
        row["freshness"], row["branch"], row["branch_commit"] = "unknown", None, None
        if standing.commit_of_label(row["label"]):  # a detached HEAD's label: its commit never moves
            row["freshness"] = "commit (detached HEAD)"
            continue
        cat = cfg.catalogs.get(row["catalog"])
        if cat is None or row["source_kind"] != "git-commit":
            continue
        if cat.name not in heads:
            heads[cat.name] = branch_heads(cat.path)
            owners[cat.name] = branchlabels.load(p.state_dir, cat.name, heads[cat.name] or {})
        branches = heads[cat.name]
        if branches is None:
            row["problem"], row["hint"] = unreadable(cat.name, cat.path)
            continue
        row["branch"] = owners[cat.name].branch(row["label"])
        row["branch_commit"] = branches.get(row["branch"]) if row["branch"] else None
        fresh = names.is_fresh(
            complete=row["crawl_complete"],
            indexed_commit=row["commit_oid"],
            branch_commit=row["branch_commit"],
        )
        if fresh is not None:
            row["freshness"] = "fresh" if fresh else "stale"
        if since := row.get("branch_deleted_at"):
            row["freshness"] = "branch gone"
            row["branch_gone"] = {"since": since, "removed_after": since + cat.deleted_grace_days * 86400}
    return rows


def _worktrees(p: Paths, labels: list[StatusLabel]) -> list[Checkout]:
    """Every checkout of every catalog with its branch, the label that answers there and that
    label's freshness; `here` marks the one the current directory stands in."""
    cfg = config.load(p)
    here = standing.find(Path.cwd(), {name: c.path for name, c in cfg.catalogs.items()})
    rows: dict[tuple[str, str | None], StatusLabel] = {(lb["catalog"], lb["label"]): lb for lb in labels}
    out: list[Checkout] = []
    for name, cat in sorted(cfg.catalogs.items()):
        owners = branchlabels.of_repo(name, cat.path, p.state_dir)
        for wt in worktrees(cat.path) or []:
            label = _label_at(owners, wt["branch"], wt["head"])
            row = rows.get((name, label))
            out.append(
                {
                    "catalog": name,
                    "path": wt["path"],
                    "branch": wt["branch"],
                    "head": wt["head"],
                    "label": label,
                    "freshness": _worktree_freshness(row, wt["head"]),
                    "here": here is not None and str(here.worktree) == wt["path"],
                }
            )
    return out


def _label_at(owners: branchlabels.BranchLabels, branch: str | None, head: str | None) -> str | None:
    """The label a search from that checkout answers with (standing.Standing.label)."""
    if branch is None:
        return standing.commit_label(head) if head else None
    try:
        return owners.label(branch)
    except UsageError:  # a branch name that maps to no label
        return None


def _worktree_freshness(row: StatusLabel | None, head: str | None) -> str:
    if row is None:
        return "not indexed (indexed at the first search there)"
    if row.get("crawl_complete") and row.get("commit_oid") == head:
        return "fresh"
    return "stale"


def _dense(row: StatusLabel, filling: Any, pid: int | None) -> Dense:
    """Phase two for one label: coverage, chunks to go and, while the runner fills, its ETA (at
    the pace of its last rounds; other labels' pending chunks may come first)."""
    out: Dense = {
        "coverage": row["dense_coverage"],
        "pending": row["dense_pending"],
        "eta_seconds": None,
    }
    if not row["dense_pending"]:
        out["state"] = "complete"
        return out
    rate = filling.get("chunks_per_second") if isinstance(filling, dict) else None
    alive = pid is not None and isinstance(filling, dict) and filling.get("pid") == pid
    if alive and rate:
        out["state"] = "filling" if filling.get("label") == _key(row) else "queued"
        out["eta_seconds"] = round(row["dense_pending"] / float(rate), 1)
    else:
        out["state"] = "waiting for the runner" if pid is None else "queued"
    return out


def _refresh(record: Any, pid: int | None) -> Refreshing | None:
    """The runner's in-progress record; one left by a runner that is gone (killed) is interrupted."""
    if not isinstance(record, dict):
        return None
    alive = pid is not None and record.get("pid") == pid
    return cast(Refreshing, {**record, "state": "running" if alive else "interrupted"})


def _spool(s: spool.Spool) -> SpoolState:
    pending = s.pending()
    claimed = sorted(s.claimed.glob("*.json")) if s.claimed.is_dir() else []
    oldest = s.oldest_mtime()  # a draining runner moves files away while we look
    failed = s.failed()
    quarantined = s.quarantined()
    strays = s.unreadable()
    return {
        "pending": len(pending),
        "claimed": len(claimed),  # being refreshed, or left by a runner that died (recovered at start)
        "failed": len(failed),
        "oldest_age_seconds": round(time.time() - oldest, 1) if oldest else None,
        "errors": [{"label": f.key, "attempts": f.attempts, "error": f.last_error} for f in failed],
        # queued files that are no entry: the runner's next drain moves them to quarantine
        "unreadable": [{"name": q.name, "reason": q.reason} for q in strays],
        "quarantined": len(quarantined),
        "quarantine": [{"name": q.name, "reason": q.reason} for q in quarantined],
        "quarantine_dir": str(s.quarantine),
        "quarantine_hint": quarantine_hint(s) if quarantined else "",
    }


def quarantine_hint(s: spool.Spool) -> str:
    return (
        f"these requests were never run; read the reasons, then delete them (rm {s.quarantine}/*); "
        "the next commit queues the label again, or run 'monodex crawl'"
    )


def _key(row: StatusLabel) -> str:
    return f"{row['catalog']}:{row['label']}"
